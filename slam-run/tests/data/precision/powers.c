/* y is 2 to the power of the iterations: 8 at the end, never a multiple of 3. */
extern void __VERIFIER_error(void);

int main(void) {
  unsigned int x = 0;
  unsigned int y = 1;
  while (x < 3) {
    x++;
    y *= 2;
  }
  if (y % 3 == 0)
    __VERIFIER_error();
  return 0;
}
