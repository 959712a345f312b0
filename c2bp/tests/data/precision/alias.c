/* Two pointers that may alias: *p = 0 changes *q when p == q, and a write to a through
 * a plain assignment changes both *p and *q when they point to a. */
int a, b;
int *p, *q;

int main(void) {
  if (__VERIFIER_nondet_int())
    p = &a;
  else
    p = &b;
  if (__VERIFIER_nondet_int())
    q = &a;
  else
    q = &b;
  *p = 0;
  *q = *q + 1;
  a = 0;
  return 0;
}
