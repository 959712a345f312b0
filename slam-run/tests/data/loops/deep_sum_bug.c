// A bug behind 100 loop iterations of two variables moving together.
extern void reach_error(void);
int main(void) {
  int i = 0, j = 10;
  while (i < 500) {
    i++;
    j++;
    if (j - i != 10 || i == 100) {
      if (j == 110) reach_error();
    }
  }
  return 0;
}
