/* Constant subscripts are folded with C's arithmetic (a[1023], a[4], a[2147483647]);
   subscripts with variables, or whose value C leaves undefined, stay as written. */
int a[2048];

int main(void) {
  int i = 0;
  a[1024 - 1] = 1;
  a[8 / 2] = 2;
  a[(0u - 1u) / 2u] = 3;
  a[i + 1 - 1] = 4;
  a[2147483647 + 1] = 5;
  return a[2048 / 2];
}
