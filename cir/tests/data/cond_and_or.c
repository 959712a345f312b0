int g;
int main(void) {
  int a = 1, b = 2, c;
  if (a < b && (b == 2 || !c)) {
    g = 1;
  } else {
    g = 2;
  }
  c = a && b;
  c = (a > 0) ? a : -a;
  if (a ? b : c) g = 3;
  return c;
}
