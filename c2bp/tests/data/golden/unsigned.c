// Unsigned wrap-around (UINT_MAX + 1 == 0) and the usual arithmetic conversions (-1 < 1u is false).
void reach_error(void);
int main(void) {
  unsigned int u = 4294967295u;
  u = u + 1;
  if (u != 0) reach_error();
  int i = -1;
  if (i < 1u) reach_error();
  return 0;
}
