/* Unsigned arithmetic wraps around: u - 1 from 0 is UINT_MAX. */
unsigned int u, w;

int main(void) {
  u = u - 1;
  w = u + 1;
  u = w * 2u;
  return 0;
}
