// A signed/unsigned mix: a negative int converted to unsigned is at least 2^31, and OR-ing
// bits into it keeps it so. Integer mode keeps `u | 1u` uninterpreted within range.
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int s = __VERIFIER_nondet_int();
  unsigned int u = (unsigned int)s;
  unsigned int v = u | 1u;
  if (s < 0 && v < 2147483648u) reach_error();
  return 0;
}
