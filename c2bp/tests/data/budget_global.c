// budget.c with global variables: the search for inconsistent cubes over global predicates
// has the same budget (tests/budget.rs).
extern int __VERIFIER_nondet_int(void);
int x, y;
int main(void) {
  x = __VERIFIER_nondet_int();
  y = __VERIFIER_nondet_int();
  x = x + y;
  return 0;
}
