/* A linked list of three malloc'ed nodes walked in a loop (the mutant gives one node another
 * value). */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct node { int val; struct node *next; };

int main(void) {
  struct node *a = malloc(sizeof(struct node));
  struct node *b = malloc(sizeof(struct node));
  struct node *c = malloc(sizeof(struct node));
  a->val = 1;
  a->next = b;
  b->val = 1;
  b->next = c;
#ifdef MUTANT
  c->val = 2;
#else
  c->val = 1;
#endif
  c->next = 0;
  struct node *p = a;
  while (p != 0) {
    if (p->val != 1) {
      reach_error();
      abort();
    }
    p = p->next;
  }
  return 0;
}
