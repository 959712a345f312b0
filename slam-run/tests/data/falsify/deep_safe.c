/* Safe: a counter to a constant, whatever the input; the error needs a count it never has. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int x = 0;
  while (x < 100) {
    x++;
  }
  if (x != 100) {
    reach_error();
  }
  return n;
}
