/* A flags word set and cleared with | and & and tested with & against constants (as
 * ssl3_accept's (tmp___1 & 12288)); the mutant clears the wrong bit. */
extern void abort(void);
void reach_error(void) {}
extern void *malloc(unsigned long size);
extern void *calloc(unsigned long n, unsigned long size);
extern void *memset(void *d, int c, unsigned long n);
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

#define F_READ 1u
#define F_WRITE 4u
#define F_MODE 12288u

int main(void) {
  unsigned int flags = __VERIFIER_nondet_uint();
  flags = flags | F_READ;
#ifdef MUTANT
  flags = flags & 0xfffffffeu;
#else
  flags = flags & 0xfffffffbu;
#endif
  if ((flags & F_READ) == 0u) {
    reach_error();
    abort();
  }
  if ((flags & F_MODE) == 4096u && (flags & 8192u) != 0u) {
    reach_error();
    abort();
  }
  return 0;
}
