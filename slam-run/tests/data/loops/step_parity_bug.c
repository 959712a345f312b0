// Mutant of step_parity.c: an odd bound (small, so that the counterexample is short).
extern void reach_error(void);
int main(void) {
  int i;
  for (i = 0; i < 7; i += 2)
    ;
  if (i != 7) reach_error();
  return 0;
}
