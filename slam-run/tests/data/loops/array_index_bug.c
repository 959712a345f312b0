// Mutant of array_index.c: the loop runs one step too far, so the bound check fails at i == 10.
extern void reach_error(void);
int a[11];
int main(void) {
  int i;
  for (i = 0; i <= 10; i++) {
    if (i < 0 || i >= 10) reach_error();
    a[i] = i;
  }
  return 0;
}
