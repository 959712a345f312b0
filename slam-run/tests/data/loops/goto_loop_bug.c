// Mutant of goto_loop.c: entered in the middle, the loop ends at 11, above the bound 10.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int x = 0;
  if (__VERIFIER_nondet_int()) goto inside;
loop:
  if (x >= 10) goto out;
  x++;
inside:
  x++;
  goto loop;
out:
  if (x > 10) reach_error();
  return 0;
}
