// A state machine whose state lives in a structure, as OpenSSL's `s->state` does: the Horn
// clauses read a structure's fields through memory, as fresh values, so the path program of
// every trace round the loop is unsafe for them and its error path does not replay. The
// error needs state 4 without the flag, which only state 2 leads to: safe.
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
struct ssl {
  int state;
  int hit;
  int count;
};
int main(void) {
  struct ssl s;
  s.state = 0;
  s.hit = 0;
  s.count = 0;
  while (1) {
    switch (s.state) {
    case 0:
      s.state = 1;
      break;
    case 1:
      if (__VERIFIER_nondet_int()) s.state = 2;
      else s.state = 3;
      break;
    case 2:
      s.hit = 1;
      s.state = 4;
      break;
    case 3:
      s.count = s.count + 1;
      s.state = 0;
      break;
    case 4:
      if (s.hit == 0) reach_error();
      s.state = 5;
      break;
    default:
      return 0;
    }
  }
  return 0;
}
