/* The mutant of array_scan.c: when a[0..510] are all nonzero the scan ends at i == 511. */
extern void __VERIFIER_error(void);

int main(void) {
  int a[512];
  int i;
  a[512 - 1] = 0;
  for (i = 0; a[i] != 0; i++) {
  }
  if (i > 510)
    __VERIFIER_error();
  return 0;
}
