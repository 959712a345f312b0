/* The mutant of sum_step.c: the seventh step adds 3, so sn is 2 * n + 1 once n >= 7. */
extern void __VERIFIER_error(void);
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int i, n = __VERIFIER_nondet_int(), sn = 0;
  if (n >= 1000 || n < -1000)
    return 0;
  for (i = 1; i <= n; i++) {
    sn = sn + (i == 7 ? 3 : 2);
  }
  if (!(sn == n * 2 || sn == 0))
    __VERIFIER_error();
  return 0;
}
