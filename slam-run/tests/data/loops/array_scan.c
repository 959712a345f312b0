/* A scan that stops at a zero the program wrote into the last cell (the subscript is a
   constant expression, folded to a[511]): needs i <= 511 and a[511] == 0 together. */
extern void __VERIFIER_error(void);

int main(void) {
  int a[512];
  int i;
  a[512 - 1] = 0;
  for (i = 0; a[i] != 0; i++) {
  }
  if (i > 511)
    __VERIFIER_error();
  return 0;
}
