// A counter by two to an even bound: `i % 2 == 0` and `i <= 1000000` at the loop head.
extern void reach_error(void);
int main(void) {
  int i;
  for (i = 0; i < 1000000; i += 2)
    ;
  if (i != 1000000) reach_error();
  return 0;
}
