struct node { int val; struct node *next; };
struct pair { int a; int b[3]; };
int arr[4] = {1, 2};
int main(void) {
  struct node n1, n2;
  struct node *p = &n1;
  struct pair q = { 1, { 2 } };
  int a[3];
  n1.next = &n2;
  p->next->val = 3;
  a[p->val] = *(&n2.val);
  q.b[2] = sizeof(struct pair);
  unsigned char c = 255;
  c += 1;
  long l = 1L << 3;
  return a[0] + q.a + arr[1];
}
