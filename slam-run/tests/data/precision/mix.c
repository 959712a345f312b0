// A signed/unsigned mix: a negative int converted to unsigned is at least 2^31, and OR-ing
// bits into it keeps it so. Integer mode keeps `u | k` of two variables uninterpreted within
// range.
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
void reach_error(void);
int main(void) {
  int s = __VERIFIER_nondet_int();
  unsigned int k = __VERIFIER_nondet_uint();
  unsigned int u = (unsigned int)s;
  unsigned int v = u | k;
  if (s < 0 && v < 2147483648u) reach_error();
  return 0;
}
