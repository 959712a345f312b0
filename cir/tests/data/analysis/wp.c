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
  char *cp = (char *)&z;
  *cp = 5;
  struct node n2;
  int *ip = &n1.val;
  if (y) ip = &n2.val;
  n1 = n2;
  return 0;
}
