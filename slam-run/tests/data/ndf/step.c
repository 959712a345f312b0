// slam-algorithms.md §4, the loss enforce cannot repair: with x == y and x < y as predicates,
// `x = x + 1` from x < y leads to x <= y, which the Cartesian abstraction loses.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x < y) {
    x = x + 1;
    if (!(x == y) && !(x < y)) reach_error();
  }
  return 0;
}
