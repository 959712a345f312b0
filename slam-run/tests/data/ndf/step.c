// An increment after a comparison: from x < y, `x = x + 1` leads to x <= y; newton's
// predicates keep the same path, and constrain excludes it.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x < y) {
    x = x + 1;
    if (!(x == y) && !(x < y)) reach_error();
  }
  return 0;
}
