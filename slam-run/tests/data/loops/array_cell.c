/* An array filled by a loop, then one cell checked: needs a fact about that cell
   (i <= 1023 or a[1023] == 1023), which the Horn refiner tracks as a value of its own. */
extern void __VERIFIER_error(void);

int main(void) {
  int a[2048];
  int i;
  for (i = 0; i < 1024; i++) {
    a[i] = i;
  }
  if (a[1023] != 1023)
    __VERIFIER_error();
  return 0;
}
