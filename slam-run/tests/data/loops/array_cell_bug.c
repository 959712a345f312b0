/* The mutant of array_cell.c: the loop stores i + 1, so a[1023] is 1024. */
extern void __VERIFIER_error(void);

int main(void) {
  int a[2048];
  int i;
  for (i = 0; i < 1024; i++) {
    a[i] = i + 1;
  }
  if (a[1023] != 1023)
    __VERIFIER_error();
  return 0;
}
