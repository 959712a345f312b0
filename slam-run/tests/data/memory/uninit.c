/* calloc's memory is zero, malloc's is arbitrary (the mutant reads a field of malloc'ed memory
 * that nothing initialised), read directly and through a pointer to the field. */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct rec { int used; int data; };

int main(void) {
#ifdef MUTANT
  struct rec *r = malloc(sizeof(struct rec));
#else
  struct rec *r = calloc(1, sizeof(struct rec));
#endif
  int *u = &r->used;
  r->data = 4;
  if (r->used != 0 || *u > 0) {
    reach_error();
    abort();
  }
  return 0;
}
