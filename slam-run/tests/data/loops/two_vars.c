// Two variables moving together: `x - y == i - j` at the loop head.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i = __VERIFIER_nondet_int();
  int j = __VERIFIER_nondet_int();
  int x = i, y = j;
  if (x < 0 || x > 1000000 || y < -1000000 || y > 1000000) return 0;
  while (x != 0) {
    x--;
    y--;
  }
  if (i == j && y != 0) reach_error();
  return 0;
}
