// Mutant of flag_phase.c: the flag is set only at x == 7, which a run with n == 6 misses.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0, flag = 0;
  if (n < 0 || n > 1000) return 0;
  while (x < n) {
    if (x == 7) flag = 1;
    x++;
  }
  if (n > 5 && flag == 0) reach_error();
  return 0;
}
