int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++) {
    if (i == 3) continue;
    if (i == 7) break;
    s += i;
  }
  while (s > 0) {
    s--;
    if (s == 5) break;
  }
  do {
    s++;
    if (s < 2) continue;
  } while (s < 4);
  while (1) {
    if (s) return s;
  }
}
