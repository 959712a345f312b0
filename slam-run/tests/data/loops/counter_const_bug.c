// Mutant of counter_const.c: the loop stops at 99.
extern void reach_error(void);
int main(void) {
  int x = 0;
  while (x < 99) {
    x++;
  }
  if (x != 100) reach_error();
  return 0;
}
