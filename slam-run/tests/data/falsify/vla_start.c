/* Safe, and `main`'s frame holds a two-dimensional variable-length array, which the concrete
 * interpreter does not model: no run of the falsifier gets past `main`'s entry, whatever it
 * draws. */
extern void reach_error(void);
extern unsigned int __VERIFIER_nondet_uint(void);

int main(void) {
  unsigned int m = __VERIFIER_nondet_uint();
  int a[m][m];
  unsigned int i;
  for (i = 0; i < m; i++) {
    a[i][i] = 0;
  }
  int x = 0;
  while (x < 100) {
    x++;
  }
  if (x != 100) {
    reach_error();
  }
  return 0;
}
