// A flag and a phase change: once `x` has passed 5 the flag is set (`x <= 5 || flag == 1`).
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0, flag = 0;
  if (n < 0 || n > 1000) return 0;
  while (x < n) {
    if (x == 5) flag = 1;
    x++;
  }
  if (n > 5 && flag == 0) reach_error();
  return 0;
}
