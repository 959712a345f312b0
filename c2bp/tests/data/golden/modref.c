// Mod/ref through a pointer argument: set() writes *p, so main's predicate over x changes.
void reach_error(void);
int g;
void set(int *p) { *p = 0; g = 1; }
int main(void) {
  int x = 1;
  set(&x);
  if (x != 0) reach_error();
  if (g != 1) reach_error();
  return 0;
}
