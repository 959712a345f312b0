// A counter to a constant: `x <= 100` at the loop head, which no single trace's weakest
// preconditions contain.
extern void reach_error(void);
int main(void) {
  int x = 0;
  while (x < 100) {
    x++;
  }
  if (x != 100) reach_error();
  return 0;
}
