/* Thirteen related predicates over x and y: at unbounded cube length a search over more than
 * 12 atoms covers the valuations (c2bp's Search::by_generalization) instead of listing every
 * minimal cube; the abstraction must still be the Cartesian one. */
extern int __VERIFIER_nondet_int(void);
int x, y;

int main(void) {
  x = __VERIFIER_nondet_int();
  y = __VERIFIER_nondet_int();
  x = x + y;
  y = y - 1;
  if (x > y) {
    x = x - 2;
  }
  return 0;
}
