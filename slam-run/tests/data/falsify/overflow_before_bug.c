/* The only runs that leave the loop overflow `x` first (undefined behaviour): no defined
   execution reaches the error, and the falsifier's runs stop at the overflow. */
extern void reach_error(void);

int main(void) {
  int x = 2147483600;
  int i = 0;
  while (i < 1000) {
    x++;
    i++;
  }
  reach_error();
  return 0;
}
