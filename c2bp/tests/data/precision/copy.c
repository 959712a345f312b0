/* x = y, y = x + y, x = 2 over local predicates, then a branch on x < y. */
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  x = y;
  y = x + y;
  x = 2;
  if (x < y)
    y = y - x;
  return 0;
}
