/* The locking example of the Lazy Abstraction paper (Henzinger, Jhala, Majumdar, Sutre,
 * POPL'02, Fig. 1; `seed-digest.md` T1), written with SV-COMP conventions: misusing the lock
 * calls reach_error(). Mutant (c) of `seed-digest.md`: unlock() without holding the lock. Expected: FALSE.
 */
extern void abort(void);
void reach_error(void) {}
extern int __VERIFIER_nondet_int(void);

int LOCK = 0;

void lock(void) {
  if (LOCK == 0) {
    LOCK = 1;
  } else {
    reach_error();
    abort();
  }
}

void unlock(void) {
  if (LOCK == 1) {
    LOCK = 0;
  } else {
    reach_error();
    abort();
  }
}

void Example(void) {
  int old, new = __VERIFIER_nondet_int(), got_lock;
  if (__VERIFIER_nondet_int()) {
    do {
      got_lock = 0;
      if (__VERIFIER_nondet_int()) {
        lock();
        got_lock++;
      }
      if (__VERIFIER_nondet_int()) { /* mutant (c): was if (got_lock) */
        unlock();
      }
    } while (__VERIFIER_nondet_int());
  }
  do {
    lock();
    old = new;
    if (__VERIFIER_nondet_int()) {
      unlock();
      new++;
    }
  } while (new != old);
  unlock();
}

int main(void) {
  Example();
  return 0;
}
