// A spurious transition at an assume: with cube length 1 the branch `x + y > 4` cannot be
// decided from x > 2 and y > 2 together.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 2 && x < 100) {
    if (y > 2 && y < 100) {
      if (x + y <= 4) reach_error();
    }
  }
  return 0;
}
