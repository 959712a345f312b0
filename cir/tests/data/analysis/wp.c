struct node { int val; struct node *next; };
int g;
unsigned int u;
int a[10];
int f(int n) { return n + g; }
int main(void) {
  int x = 0, y = 1, i = 0, j = 2;
  int *p = &x;
  int *q = &y;
  int z;
  int *r = &z;
  struct node n1;
  struct node *s = &n1;
  x = x + 1;
  *p = 1;
  *q = 2;
  s->val = 3;
  a[i] = 0;
  u = x;
  if (x < y) g = f(x);
  return 0;
}
