// Formal-parameter and return predicates: inc's `\result > a` tells main that y > x.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int inc(int a) { return a + 1; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 1000) return 0;
  int y = inc(x);
  if (y <= x) reach_error();
  return 0;
}
