/* x = *p where p may point to y or z (aliasing through a read). */
int x, y, z;
int *p;

int main(void) {
  if (__VERIFIER_nondet_int())
    p = &y;
  else
    p = &z;
  x = *p;
  y = x - 1;
  return 0;
}
