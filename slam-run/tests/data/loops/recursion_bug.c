// Mutant of recursion.c: the recursion adds 2 at depth 3.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int depth(int n) {
  if (n <= 0) return 0;
  if (n == 3) return 2 + depth(n - 1);
  return 1 + depth(n - 1);
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 100) return 0;
  int r = depth(n);
  if (r != n) reach_error();
  return 0;
}
