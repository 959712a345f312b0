/* An array copied cell by cell, then one cell compared: needs the disjunctive invariant
   i <= 256 || a[256] == b[256] (the cell is equal once the copy has passed it). */
extern void __VERIFIER_error(void);

int main(void) {
  int a[512];
  int b[512];
  int i;
  int t;
  for (i = 0; i < 512; i++) {
    t = a[i];
    b[i] = t;
  }
  if (a[512 / 2] != b[512 / 2])
    __VERIFIER_error();
  return 0;
}
