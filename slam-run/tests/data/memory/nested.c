/* A malloc'ed structure reached through nested structure-pointer fields, s->s3->tmp.x, as in
 * OpenSSL's SSL state. The mutant overwrites the field through a second path to the same
 * object. */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

struct tmp { int x; int y; };
struct s3_state { struct tmp tmp; int state; };
struct ssl { struct s3_state *s3; int version; int *cert; };

int main(void) {
  struct ssl *s = malloc(sizeof(struct ssl));
  s->s3 = malloc(sizeof(struct s3_state));
  s->version = 3;
  s->s3->tmp.x = 5;
  s->s3->tmp.y = __VERIFIER_nondet_int();
  s->s3->state = s->version;
  struct s3_state *alias = s->s3;
#ifdef MUTANT
  alias->tmp.x = alias->tmp.y;
#else
  alias->tmp.y = alias->tmp.x;
#endif
  if (s->s3->tmp.x != 5) {
    reach_error();
    abort();
  }
  return 0;
}
