/* A state machine over `state`, safe because state 6 is reached only through state 2, which
   sets `flag`; with MUTANT defined, state 2 no longer sets it. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int state = 1, done = 0, flag = 0;
  while (!done) {
    switch (state) {
    case 1: state = 2; break;
    case 2:
#ifndef MUTANT
      flag = 1;
#endif
      state = 3;
      break;
    case 3: state = __VERIFIER_nondet_int() ? 4 : 5; break;
    case 4: state = 6; break;
    case 5: state = 7; break;
    case 7: state = 6; break;
    case 6:
      if (!flag)
        reach_error();
      done = 1;
      break;
    default: reach_error();
    }
  }
  return 0;
}
