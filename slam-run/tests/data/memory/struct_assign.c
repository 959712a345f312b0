/* A structure assigned whole, to a local and through a pointer to malloc'ed memory: the copy
 * keeps the values of the moment it was made (the mutant copies after the change). */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct pt { int x; int y; };

int main(void) {
  struct pt a, b;
  struct pt *p = malloc(sizeof(struct pt));
  a.x = 1;
  a.y = __VERIFIER_nondet_int();
#ifdef MUTANT
  a.x = 3;
  b = a;
#else
  b = a;
  a.x = 3;
#endif
  *p = b;
  if (p->x != 1 || p->y != a.y) {
    reach_error();
    abort();
  }
  return 0;
}
