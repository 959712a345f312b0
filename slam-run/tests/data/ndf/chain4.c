// Transitivity along a chain of four variables: x < y < z < w, so x < w.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int z = __VERIFIER_nondet_int();
  int w = __VERIFIER_nondet_int();
  if (x < y) {
    if (y < z) {
      if (z < w) {
        if (!(x < w)) reach_error();
      }
    }
  }
  return 0;
}
