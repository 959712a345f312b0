// At a procedure's entry its predicates start from the caller's actuals, each on its own:
// `x == g` and `x == 1` (local) cannot hold together with `g == 0` (global).
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int g;
void f(int x) {
  if (x == g) {
    if (x == 1) reach_error();
  }
}
int main(void) {
  f(__VERIFIER_nondet_int());
  return 0;
}
