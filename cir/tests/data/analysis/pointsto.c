void *malloc(unsigned int);
struct pair { int a; int *ptr; };
int g1, g2;
int inc(int v) { return v + 1; }
int dec(int v) { return v - 1; }
int *id(int *p) { return p; }
int main(void) {
  int x, y;
  int *p = &x;
  int *q = id(&y);
  struct pair s;
  s.ptr = &g1;
  int *r = &s.a;
  int *m1 = malloc(sizeof(int));
  int *m2 = malloc(sizeof(int));
  int (*fp)(int) = inc;
  if (x) fp = &dec;
  int k = fp(x);
  int **pp = &p;
  *pp = &g2;
  return k + *p + *q + *r + *m1 + *m2;
}
