// Aliasing: `*p = 1` when p may point to x or y (Morris's axiom, pruned by points-to).
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = 0, y = 0;
  int *p;
  if (__VERIFIER_nondet_int()) p = &x; else p = &y;
  *p = 1;
  if (p == &x && x != 1) reach_error();
  return 0;
}
