// A loop entered in its middle by a goto (an irreducible control-flow graph): `x <= 11`.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = 0;
  if (__VERIFIER_nondet_int()) goto inside;
loop:
  if (x >= 10) goto out;
  x++;
inside:
  x++;
  goto loop;
out:
  if (x > 11) reach_error();
  return 0;
}
