// An array index kept in bounds by the loop counter: the property is the bound
// (`0 <= i < 10` inside the loop), not the contents.
extern void reach_error(void);
int a[10];
int main(void) {
  int i;
  for (i = 0; i < 10; i++) {
    if (i < 0 || i >= 10) reach_error();
    a[i] = i;
  }
  return 0;
}
