// Mutant of callee_loop.c: the callee counts one step too few once k reaches 2.
extern void reach_error(void);
int count(int k) {
  int s = 0, i = 0;
  while (i < k) {
    if (i != 1) s++;
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
