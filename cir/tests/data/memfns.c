/* Allocation types and memset/memcpy of whole objects (cir::lower's memory module). */
typedef unsigned int size_t;
void *malloc(size_t);
void *calloc(size_t, size_t);
void *memset(void *, int, size_t);
void *memcpy(void *, const void *, size_t);
struct in { int a; char b[3]; };
struct S { int x; int *p; struct in i; union { int u; char c; } un; };
int main(void) {
  struct S *s = malloc(sizeof(struct S));
  struct S t;
  int *q = calloc(1, sizeof *q);
  char *buf = malloc(10);
  int *arr = calloc(4, sizeof(int));
  memset(s, 0, sizeof(struct S));
  memset(&t.i, 0, sizeof(t.i));
  memcpy(&t, s, sizeof t);
  memcpy(buf, s, 4);
  char cs[4];
  memset(cs, 7, 4);
  memset(&t.i, 1, sizeof(t.i));
  void *r = memcpy(q, arr, sizeof(int));
  return r == q;
}
