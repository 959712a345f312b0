int main(void) {
  int i = 0;
again:
  i++;
  if (i < 10) goto again;
  goto out;
  i = 42;
out:
  return i;
}
