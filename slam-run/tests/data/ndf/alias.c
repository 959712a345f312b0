// An increment through a pointer that may point to either side of a comparison: from x < y,
// `*p = *p + 1` leads to x <= y whichever variable p points to. At cube length 1, c2bp cannot
// combine the alias predicate with the comparison (the loss of slam-algorithms.md §4: each
// updated predicate alone is possible, the pair with the state before is not), and the branch
// `x == y` — not a predicate — cannot be decided from two literals. Constrain adds a clause
// relating the states before and after the increment, and one on the assume.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int *p = &y;
  if (__VERIFIER_nondet_int()) p = &x;
  if (x < y) {
    *p = *p + 1;
    if (!(x == y) && !(x < y)) reach_error();
  }
  return 0;
}
