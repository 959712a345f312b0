int f(int x, int y) {
  int *p = &y;
  x = x + 1;
  while (x > 0) x--;
  *p = 2;
  return x + y;
}
