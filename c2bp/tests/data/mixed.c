// A global predicate and local ones no state satisfies together: `g == 0`, `x == g`, `x == 1`.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int g;
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == g) {
    if (x == 1) reach_error();
  }
  return 0;
}
