int f(int x) {
  int r = 0;
  switch (x + 1) {
  case 1:
    r = 10;
  case 2:
    r += 1;
    break;
  case 5 ... 7:
    r = 5;
    break;
  default:
    r = -1;
  case 9:
    r = 9;
  }
  switch (x) { case 0: return 1; }
  return r;
}
