// A step through a call, checked in a callee after the loop: `x % 2 == 0` at the loop head,
// `\result == z + 2` at `f`'s exit.
extern void reach_error(void);
void check(int c) {
  if (!c) reach_error();
}
unsigned int f(unsigned int z) { return z + 2; }
int main(void) {
  unsigned int x = 0;
  while (x < 0x0fffffff) {
    x = f(x);
  }
  check(!(x % 2));
  return 0;
}
