// Mutant of counter_param.c: the counter steps by two and passes an odd `n`.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0;
  if (n < 0 || n > 1000000) return 0;
  while (x < n) {
    x += 2;
  }
  if (x != n) reach_error();
  return 0;
}
