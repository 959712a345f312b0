// Mutant of order_count.c: the slower counter may stand still (a small bound, so that the
// counterexample is short).
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i = 0, k = 0;
  while (i < 5) {
    int j = __VERIFIER_nondet_int();
    if (j < 0 || j >= 1000) return 0;
    i = i + j;
    k++;
  }
  if (k > 5) reach_error();
  return 0;
}
