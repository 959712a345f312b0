/* w = x where x > 5 follows only from a cube of four literals (x == y, y == z, z == u,
 * u > 5): beyond the default cube length of 3, within --cube-len inf. */
int u, w, x, y, z;

int main(void) {
  w = x;
  x = u;
  return 0;
}
