/* A type pun through char * (no union): a byte written into one int leaves another int alone;
 * the mutant writes into the int it tests. The answer must be sound: a correct verdict or
 * UNKNOWN, never TRUE for the mutant. */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

int main(void) {
  int x = 0;
  int y = 7;
#ifdef MUTANT
  char *c = (char *)&y;
#else
  char *c = (char *)&x;
#endif
  *c = 1;
  if (y != 7) {
    reach_error();
    abort();
  }
  return 0;
}
