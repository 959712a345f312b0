union u { int i; char c; };
int main(void) {
  union u v;
  double d = 1.5;
  v.i = 3;
  d = d * 2;
  int r = v.c;
  __asm__("nop");
  return r;
}
