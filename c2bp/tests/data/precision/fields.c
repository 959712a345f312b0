/* Struct fields: a field write, a write through a pointer that may reach s or t, and a
 * structure copy. */
struct pt {
  int a;
  int b;
};

struct pt s, t;
struct pt *q;

int main(void) {
  if (__VERIFIER_nondet_int())
    q = &s;
  else
    q = &t;
  s.a = s.b + 1;
  q->a = 3;
  t = s;
  q->b = q->a;
  return 0;
}
