// Structure fields through `.` and `->`: writing one field leaves the other's predicates alone.
void reach_error(void);
struct pair { int a; int b; };
int main(void) {
  struct pair v;
  struct pair *q = &v;
  v.a = 1;
  q->b = 2;
  if (v.a != 1) reach_error();
  return 0;
}
