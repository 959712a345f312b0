// A state machine: an `int state` with a `switch` inside `while (1)`; `0 <= state <= 3`.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int state = 0;
  while (1) {
    switch (state) {
    case 0:
      state = 1;
      break;
    case 1:
      if (__VERIFIER_nondet_int()) state = 2;
      else state = 0;
      break;
    case 2:
      state = 3;
      break;
    default:
      state = 0;
      break;
    }
    if (state < 0 || state > 3) reach_error();
  }
  return 0;
}
