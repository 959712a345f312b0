// An accumulator: `s >= 0 && i >= 0` at the loop head.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0, s = 0;
  if (n < 0 || n > 1000) return 0;
  while (i < n) {
    s += i;
    i++;
  }
  if (s < 0) reach_error();
  return 0;
}
