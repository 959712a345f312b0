// slam-algorithms.md §3.4: E = {x < 5, x == 2}, x = x + 1 gives
// {x < 5}, {x == 2} := schoose[{x == 2}, !{x < 5}], schoose[F, {x == 2} | !{x < 5}].
extern int __VERIFIER_nondet_int(void);
void reach_error(void);
int main(void) {
  int x = __VERIFIER_nondet_int();
  x = x + 1;
  if (x == 2) reach_error();
  return 0;
}
