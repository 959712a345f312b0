// Two counters with different steps: `j == 2 * i` at the loop head.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0, j = 0;
  if (n < 0 || n > 1000) return 0;
  while (i < n) {
    i++;
    j += 2;
  }
  if (j != 2 * n) reach_error();
  return 0;
}
