// Two bounds and their sum: x > 2 and y > 2 give x + y > 4, which the abstraction at cube
// length 1 cannot relate (newton's predicate x + y <= 4 does not help): constrain does.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 2 && x < 100) {
    if (y > 2 && y < 100) {
      if (x + y <= 4) reach_error();
    }
  }
  return 0;
}
