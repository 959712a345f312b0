/* A pointer to a field passed to a callee that writes through it: only that field changes
 * (the mutant passes the other field). */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct dev { int flags; int count; };

void set(int *p, int v) { *p = v; }

int main(void) {
  struct dev *d = malloc(sizeof(struct dev));
  d->count = 0;
  d->flags = 0;
#ifdef MUTANT
  set(&d->count, 1);
#else
  set(&d->flags, 1);
#endif
  if (d->count != 0) {
    reach_error();
    abort();
  }
  return 0;
}
