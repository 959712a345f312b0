// A bug behind 100 loop iterations: one trace at a time, it costs 100 refinements.
extern void reach_error(void);
int main(void) {
  int x = 0;
  while (x < 1000) {
    x++;
    if (x == 100) reach_error();
  }
  return 0;
}
