void *malloc(unsigned int);
void *calloc(unsigned int, unsigned int);
void *__VERIFIER_nondet_pointer(void);
struct tmp_st { int next_state; int *cipher; };
struct s3_st { struct tmp_st tmp; int flags; };
struct ssl_st { struct s3_st *s3; int *cert; int state; };
struct node { int val; struct node *next; };
int g, h;
struct ops { int (*get)(void); int st; };
int one(void) { return 1; }
struct node *new_node(void) {
  struct node *n = malloc(sizeof(struct node));
  return n;
}
struct node *init_node(int v) {
  struct node *n = malloc(sizeof(struct node));
  n->val = v;
  return n;
}
int main(void) {
  struct ssl_st *s = malloc(sizeof(struct ssl_st));
  s->s3 = malloc(sizeof(struct s3_st));
  s->cert = &g;
  s->s3->tmp.cipher = &h;
  int *buf = __VERIFIER_nondet_pointer();
  *buf = 0;
  struct node *a = new_node();
  struct node *b = new_node();
  a->next = b;
  struct node *c = init_node(1);
  struct node *d = init_node(2);
  struct ssl_st copy;
  copy = *s;
  char *pun = (char *)&h;
  *pun = 1;
  struct node *z = calloc(1, sizeof(struct node));
  struct ops *o = malloc(sizeof(struct ops));
  o->get = one;
  return 0;
}
