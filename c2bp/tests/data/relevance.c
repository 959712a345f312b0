// Relevance by cells: `s->state` and `s->version` are reached through the same pointer but are
// different memory; `p == q` is about the pointers themselves and so meets every field read
// through them. The error is unreachable only through the inconsistent cube
// `p == q ∧ p->state == 1 ∧ ¬(q->state == 1)`, whose middle literal meets the first only
// through `p`, read as a value by `p == q` and as a base by `p->state == 1`.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
struct S {
  int state;
  int version;
};
struct S a, b;
int main(void) {
  struct S *p = &a;
  struct S *q = &b;
  struct S *s = &a;
  if (__VERIFIER_nondet_int()) q = &a;
  p->state = __VERIFIER_nondet_int();
  s->version = __VERIFIER_nondet_int();
  if (p->state == 1) {
    if (p == q) {
      if (q->state != 1) reach_error();
    }
  }
  return s->version;
}
