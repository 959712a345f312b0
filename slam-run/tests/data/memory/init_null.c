/* A NULL check on a field set by an init function; allocation never fails (SV-COMP). The
 * mutant's init leaves the field null on one branch. */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct conn { int *buf; int len; };

void init(struct conn *c) {
  c->buf = malloc(sizeof(int));
  c->len = 1;
#ifdef MUTANT
  if (__VERIFIER_nondet_int()) {
    c->buf = 0;
  }
#endif
}

int main(void) {
  struct conn c;
  init(&c);
  if (c.buf == 0) {
    reach_error();
    abort();
  }
  *c.buf = 3;
  return 0;
}
