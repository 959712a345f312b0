/* The error behind a scan of an uninitialised array: reached only when its first 601
   elements are all non-zero, which the run with every value 0 never gives. */
extern void reach_error(void);

int main(void) {
  int a[1024];
  int i;
  for (i = 0; i < 1024 && a[i] != 0; i++)
    ;
  if (i > 600) {
    reach_error();
  }
  return 0;
}
