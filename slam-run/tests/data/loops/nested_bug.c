// Mutant of nested.c: the inner loop runs to `i` inclusive and reaches `n - 1 + 1`.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i, j;
  if (n < 0 || n > 1000) return 0;
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i + 1; j++) {
      if (j >= n) reach_error();
    }
  }
  return 0;
}
