// A counter behind a faster one: `k <= i` and `k <= 1000` at the loop head.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i = 0, k = 0;
  while (i < 1000) {
    int j = __VERIFIER_nondet_int();
    if (j < 1 || j >= 1000) return 0;
    i = i + j;
    k++;
  }
  if (k > 1000) reach_error();
  return 0;
}
