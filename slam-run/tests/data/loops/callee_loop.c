// A loop in a callee called from a loop: `s == i` in `count`, `\result == k` at its exit.
extern void reach_error(void);
int count(int k) {
  int s = 0, i = 0;
  while (i < k) {
    s++;
    i++;
  }
  return s;
}
int main(void) {
  int r;
  for (r = 0; r < 3; r++) {
    int v = count(r);
    if (v != r) reach_error();
  }
  return 0;
}
