/* The mutant of array_copy.c: the copy adds one, so a[256] != b[256] after the loop. */
extern void __VERIFIER_error(void);

int main(void) {
  int a[512];
  int b[512];
  int i;
  int t;
  for (i = 0; i < 512; i++) {
    t = a[i];
    b[i] = t + 1;
  }
  if (a[512 / 2] != b[512 / 2])
    __VERIFIER_error();
  return 0;
}
