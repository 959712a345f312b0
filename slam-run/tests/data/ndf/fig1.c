// The Constrain paper's Fig. 1 (transitivity), with SV-COMP conventions.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int z = __VERIFIER_nondet_int();
  if (x < y) {
    if (y < z) {
      if (!(x < z)) reach_error();
    }
  }
  return 0;
}
