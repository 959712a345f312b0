/* The error behind 1,000 iterations, reached only when the input is large: the run with
   every input 0 ends without it. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0;
  while (i < 1000) {
    i++;
  }
  if (n > 100000 && i == 1000) {
    reach_error();
  }
  return 0;
}
