// The Constrain paper's Fig. 3 (a call and its return through foo), with SV-COMP conventions.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void);
int foo(int a) {
  int b = __VERIFIER_nondet_int();
  if (a < b) {
    return b;
  } else {
    abort();
  }
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int z;
  if (x < y) {
    z = foo(y);
    if (!(x < z)) reach_error();
  }
  return 0;
}
