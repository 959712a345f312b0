int g(int a) { return a + 1; }
int h(int a, int b) { return a * b; }
int (*fp)(int) = g;
int main(void) {
  int x = 1, y;
  y = h(g(x), x++) + g(2);
  g(y);
  y = fp(y);
  y = (*fp)(y);
  x = y = 3;
  return x;
}
