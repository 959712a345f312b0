// An inconsistent cube whose predicates are connected only through the last one in the
// predicate file: `x == -3` (over x) and `g >= 4` (over g) share nothing, `x + 1 + g >= 2`
// shares with both. With `g >= 4` false and x read anew, `x == -3 ∧ x + 1 + g >= 2` cannot
// hold, and the error is unreachable.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int g = __VERIFIER_nondet_int();
  int y = 0;
  if (g >= 4) return 0;
  int x = __VERIFIER_nondet_int();
  if (x == -3) {
    if (x + 1 + g >= 2) reach_error();
  }
  return y;
}
