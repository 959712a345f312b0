// Counting down from a parameter: `x >= 0` at the loop head.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = n;
  if (n < 0) return 0;
  while (x > 0) {
    x--;
  }
  if (x != 0) reach_error();
  return 0;
}
