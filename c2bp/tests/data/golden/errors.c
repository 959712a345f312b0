// Error conventions: the test runs it with --error-fn error, --error-label ERROR and --assert.
void __assert_fail(const char *, const char *, unsigned int, const char *);
extern int __VERIFIER_nondet_int(void);
void error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x == 1) error();
  if (x == 2) goto ERROR;
  if (!(x != 3)) __assert_fail("x != 3", "errors.c", 9, "main");
  return 0;
ERROR:
  return 1;
}
