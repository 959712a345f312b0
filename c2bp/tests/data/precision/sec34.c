/* slam-algorithms.md §3.4 worked example: E = {x < 5, x == 2}, x = x + 1. */
int x;

int main(void) {
  x = x + 1;
  return 0;
}
