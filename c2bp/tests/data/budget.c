// Thirteen related local predicates: at a long enforce length the search for inconsistent
// cubes is long, and a small query budget stops it (tests/budget.rs).
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  x = x + y;
  return 0;
}
