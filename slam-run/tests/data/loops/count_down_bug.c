// Mutant of count_down.c: counting down by two from an odd `n` overshoots zero.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = n;
  if (n < 0 || n > 1000) return 0;
  while (x > 0) {
    x -= 2;
  }
  if (x != 0) reach_error();
  return 0;
}
