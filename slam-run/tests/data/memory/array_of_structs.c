/* An array of structures written through an index variable: items[j].val must not alias
 * items[2].val unless j == 2 (the mutant). */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct item { int key; int val; };
struct item items[4];

int main(void) {
  int j = 1;
#ifdef MUTANT
  j = 2;
#endif
  items[1].key = 1;
  items[2].key = 2;
  items[2].val = 5;
  items[j].val = 3;
  items[j].key = 9;
  if (items[2].val != 5) {
    reach_error();
    abort();
  }
  return 0;
}
