/* A state machine: `state` takes 1, 2 and 3; `next` is assigned 0, 2 and 3; `copy` and
   `kept` are copies of `state`. */
int state;

int main(void) {
  int next = 0, copy, kept;
  while (1) {
    if (state == 1) {
      next = 2;
    } else if (state == 2) {
      next = 3;
    } else if (state == 3) {
      break;
    }
    state = next;
    copy = state;
    kept = copy;
  }
  return kept;
}
