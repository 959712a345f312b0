// The Constrain paper's Fig. 1 (transitivity): with the predicates x<y, y<z, x<z and
// cube length 3, enforce length 2, the abstraction cannot relate them after `z = *`.
extern int __VERIFIER_nondet_int(void);
void error(void);
void main(void) {
  int x, y, z;
  x = __VERIFIER_nondet_int();
  y = __VERIFIER_nondet_int();
  if (x < y) {
    z = __VERIFIER_nondet_int();
    if (y < z) {
      if (!(x < z)) error();
    }
  }
}
