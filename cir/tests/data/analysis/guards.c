// Error guards (cir::pred::guard_predicates): which conditions guard the error.
extern void abort(void);
void reach_error() {}
extern int __VERIFIER_nondet_int();
int g;
void errorFn(void) { ERROR: reach_error(); abort(); }
int main() {
  g = __VERIFIER_nondet_int();
  int lk = 0;
  int p = __VERIFIER_nondet_int();
  int q = __VERIFIER_nondet_int();
  int near = __VERIFIER_nondet_int();
  if (p != 0) lk = 1;                    // no error after it: not a guard
  if (p != 0) {
    if (lk != 1) goto ERR;               // a guard: lk != 1
  }
  if (g > 5) errorFn();                  // a guard through errorFn (global): g > 5
  if (near == 7) { near = 1; reach_error(); }   // one step before the error: near == 7
  if (g == 0) return 1;                  // constant-free but no error: not a guard
  if (q < 3) { q = q + 1; q = q + 2; q = q + 3; q = q + 4; reach_error(); }  // too far
  return 0;
ERR:
  reach_error();
  abort();
}
