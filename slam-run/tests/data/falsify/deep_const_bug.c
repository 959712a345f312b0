/* The error behind 1,000 iterations of a loop that reads no input. */
extern void reach_error(void);

int main(void) {
  unsigned int x = 1;
  unsigned int y = 0;
  while (y < 1000) {
    x = 0;
    y++;
  }
  if (x != 1) {
    reach_error();
  }
  return 0;
}
