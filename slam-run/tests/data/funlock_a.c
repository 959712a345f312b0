/* The locking example of the Lazy Abstraction paper (Henzinger, Jhala, Majumdar, Sutre,
 * POPL'02, Fig. 1; `seed-digest.md` T1), written with SV-COMP conventions: misusing the lock
 * calls reach_error(). Mutant (a) of `seed-digest.md`: without `new++` the final unlock() may find the lock free. Expected: FALSE.
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
      if (got_lock) {
        unlock();
      }
    } while (__VERIFIER_nondet_int());
  }
  do {
    lock();
    old = new;
    if (__VERIFIER_nondet_int()) {
      unlock();
      /* mutant (a): new++ deleted */
    }
  } while (new != old);
  unlock();
}

int main(void) {
  Example();
  return 0;
}
