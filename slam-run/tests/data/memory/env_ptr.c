/* Pointers the program does not set: a scratch pointer the environment gives
 * (`__VERIFIER_nondet_pointer`) written through, and a callback field of a malloc'ed
 * structure (reached through the cast C code writes on `malloc`'s result) tested against
 * NULL, as OpenSSL's state machines do. The error needs both to be non-null: a
 * counterexample must choose them so, or its replay stops at a null dereference. */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *__VERIFIER_nondet_pointer(void);
extern int __VERIFIER_nondet_int(void);

struct conn { void (*info)(void); int state; };

int main(void) {
  struct conn *s = (struct conn *)malloc(sizeof(struct conn));
  int *scratch = __VERIFIER_nondet_pointer();
  int n = __VERIFIER_nondet_int();
  *scratch = n;
  s->state = 1;
  if ((unsigned long)s->info != (unsigned long)(void *)0) {
    s->state = 2;
  }
  if (s->state == 2 && *scratch == n) {
#ifdef MUTANT
    reach_error();
    abort();
#endif
  }
  if (s->state == 3) {
    reach_error();
    abort();
  }
  return 0;
}
