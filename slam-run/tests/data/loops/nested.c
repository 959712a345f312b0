// Nested loops with linear bounds: `i <= n` and `j <= i` at the loop heads.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i, j;
  if (n < 0 || n > 1000) return 0;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      if (j >= n) reach_error();
    }
  }
  return 0;
}
