// Wrap-around of an unsigned counter: `c + 1` is smaller than `c` only when `c` is
// UINT_MAX, whose bits are all set, so OR-ing any bits into it changes nothing. Integer mode
// models the wrap-around but keeps `c | k` of two variables uninterpreted within range.
extern unsigned int __VERIFIER_nondet_uint(void);
void reach_error(void);
int main(void) {
  unsigned int c = __VERIFIER_nondet_uint();
  unsigned int k = __VERIFIER_nondet_uint();
  unsigned int d = c + 1u;
  if (d < c) {
    if ((c | k) != c) reach_error();
  }
  return 0;
}
