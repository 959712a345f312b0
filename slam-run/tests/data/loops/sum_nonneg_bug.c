// Mutant of sum_nonneg.c: the accumulator subtracts at i == 2 and goes negative.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0, s = 0;
  if (n < 0 || n > 1000) return 0;
  while (i < n) {
    if (i == 2) s -= 10;
    else s += i;
    i++;
  }
  if (s < 0) reach_error();
  return 0;
}
