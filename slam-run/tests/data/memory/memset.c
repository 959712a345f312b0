/* memset of a whole structure zeroes every field (the mutant writes a field after it). */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct st { int a; unsigned int b; int *name; };

int main(void) {
  struct st *s = malloc(sizeof(struct st));
  s->a = 5;
  s->b = 7u;
  memset(s, 0, sizeof(struct st));
#ifdef MUTANT
  s->b = 1u;
#endif
  if (s->a != 0 || s->b != 0u || s->name != 0) {
    reach_error();
    abort();
  }
  return 0;
}
