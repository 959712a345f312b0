extern void abort(void);
extern void exit(int);
void reach_error(void) {}
extern int __VERIFIER_nondet_int(void);
extern unsigned __VERIFIER_nondet_uint();
extern void __VERIFIER_assume(int);
void assume_abort_if_not(int c) { if (!c) abort(); }
int ext(int);
int main(void) {
  int x = __VERIFIER_nondet_int();
  unsigned u = __VERIFIER_nondet_uint();
  char c = __VERIFIER_nondet_char();
  __VERIFIER_assume(x > 0 && x < 100);
  assume_abort_if_not(u < 10u);
  if (x == 50) exit(1);
  x = ext(x);
  if (x + u == 7) reach_error();
  return c;
}
