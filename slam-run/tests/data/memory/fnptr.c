/* A function pointer stored in a field of a malloc'ed structure and called through it (the
 * mutant stores the other function). */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct ops { int (*get)(void); int state; };

int one(void) { return 1; }
int two(void) { return 2; }

int main(void) {
  struct ops *o = malloc(sizeof(struct ops));
  o->state = 0;
#ifdef MUTANT
  o->get = two;
#else
  o->get = one;
#endif
  if (o->get() != 1) {
    reach_error();
    abort();
  }
  return 0;
}
