// Three error sites, each guarded by a copy of a constant: newton refutes the trace to each
// site with a predicate of its own, independent of the others'.
extern void reach_error(void);

int main(void) {
  int x = 0;
  int y = x;
  if (y != 0) reach_error();
  int u = 0;
  int v = u;
  if (v != 0) reach_error();
  int p = 0;
  int q = p;
  if (q != 0) reach_error();
  return 0;
}
