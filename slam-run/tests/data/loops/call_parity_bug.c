// Mutant of call_parity.c: `f` steps by one from 4 (a small bound, so that the
// counterexample is short).
extern void reach_error(void);
void check(int c) {
  if (!c) reach_error();
}
unsigned int f(unsigned int z) {
  if (z == 4) return z + 1;
  return z + 2;
}
int main(void) {
  unsigned int x = 0;
  while (x < 10) {
    x = f(x);
  }
  check(!(x % 2));
  return 0;
}
