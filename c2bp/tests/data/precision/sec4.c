/* slam-algorithms.md §4: the loss enforce cannot repair, E = {x == y, x < y}, x = x + 1. */
int x, y;

int main(void) {
  x = x + 1;
  return 0;
}
