// Like sites.c, but the second site is reachable: its trace is not the shortest one.
extern void reach_error(void);

int main(void) {
  int x = 0;
  int y = x;
  if (y != 0) reach_error();
  int u = 0;
  int v = u;
  if (v == 0) reach_error();
  return 0;
}
