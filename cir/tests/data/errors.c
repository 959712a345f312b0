void error(void);
void __VERIFIER_error(void);
int main(void) {
  int x = 0;
  if (x) error();
  if (x > 1) __VERIFIER_error();
  if (x > 2) goto ERROR;
  return 0;
ERROR:
  return 1;
}
