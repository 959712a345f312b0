// A recursive function with a counter: `\result == n` for `n >= 0`.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int depth(int n) {
  if (n <= 0) return 0;
  return 1 + depth(n - 1);
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 100) return 0;
  int r = depth(n);
  if (r != n) reach_error();
  return 0;
}
