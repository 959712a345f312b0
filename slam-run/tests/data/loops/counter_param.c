// A counter to a parameter `n`: `x <= n` at the loop head.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0;
  if (n < 0 || n > 1000000) return 0;
  while (x < n) {
    x++;
  }
  if (x != n) reach_error();
  return 0;
}
