// Recursion: down() returns 0 on every path; its return predicate carries that to main.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int down(int n) {
  if (n <= 0) return 0;
  return down(n - 1);
}
int main(void) {
  int r = down(__VERIFIER_nondet_int());
  if (r != 0) reach_error();
  return 0;
}
