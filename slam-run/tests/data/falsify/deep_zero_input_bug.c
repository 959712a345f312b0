/* The error behind 1,000 iterations, reached when the input is 0. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int y = __VERIFIER_nondet_int();
  int x = 0;
  while (x < 1000) {
    x++;
    if (y != 0) {
      x++;
    }
  }
  if (x == 1000 && y == 0) {
    reach_error();
  }
  return 0;
}
