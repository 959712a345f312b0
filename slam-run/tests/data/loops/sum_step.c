/* A sum by two up to a bounded n (the shape of SV-COMP's sum01): needs sn == 2 * (i - 1),
   i <= n + 1 and the case n <= 0, from a Horn solution with a disjunction. */
extern void __VERIFIER_error(void);
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int i, n = __VERIFIER_nondet_int(), sn = 0;
  if (n >= 1000 || n < -1000)
    return 0;
  for (i = 1; i <= n; i++) {
    sn = sn + 2;
  }
  if (!(sn == n * 2 || sn == 0))
    __VERIFIER_error();
  return 0;
}
