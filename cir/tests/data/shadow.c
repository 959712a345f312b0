int i;
static int s = 5;
int f(void) { static int cnt; cnt++; return cnt; }
int main(void) {
  int i = 1;
  {
    int i = 2;
    i++;
  }
  for (int i = 0; i < 2; i++) {
    int t;
    t = i;
  }
  return i + s;
}
