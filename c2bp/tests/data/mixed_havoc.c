// As mixed.c, but `x` is written by an external function through its address: the call
// makes `x == g` and `x == 1` unknown, each on its own, next to `g == 0` (global).
extern void __VERIFIER_init(int *p);
void reach_error(void);
int g;
int main(void) {
  int x = 0;
  __VERIFIER_init(&x);
  if (x == g) {
    if (x == 1) reach_error();
  }
  return 0;
}
