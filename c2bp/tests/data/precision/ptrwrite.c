/* *p = e where p may point to x (Morris's case split on p == &x). */
int x, y;
int *p;

int main(void) {
  if (__VERIFIER_nondet_int())
    p = &x;
  else
    p = &y;
  *p = 1;
  *p = x + 1;
  x = 0;
  return 0;
}
