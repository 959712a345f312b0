/* The fact the caller's check needs (g == 200) is established two calls down, in set(); the
 * caller reads g through a pointer and compares it with a local of its own. */
void reach_error(void) {}
unsigned char g = 1;
void set(void) {
  unsigned char t = 200;
  g = t;
}
void mid(void) {
  set();
}
int main(void) {
  unsigned char y = 0;
  unsigned char *w = &g;
  mid();
  if (y + 1 > *w) reach_error();
  return 0;
}
