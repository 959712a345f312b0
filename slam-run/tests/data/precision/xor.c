// XOR and OR with a variable operand: integer mode keeps `x ^ y` and `4 | x` uninterpreted
// within range, so the path to the error has an integer model (`x ^ x` may be anything) that
// the program does not follow; bit-precisely `x ^ x` is 0 and `4 | x` is at least 4.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = x;
  int z = (x ^ y) + 5;
  if (z != 5) reach_error();
  if (x >= 0 && (4 | x) < 4) reach_error();
  return 0;
}
