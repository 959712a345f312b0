// Interprocedural constant propagation of globals (cir::constprop).
int NP, DC, SKIP1;          // set once by init(): constants after it
int s;                      // the state: several values
int counter = 7;            // initialised, changed in bump(): not constant after a call of it
int taken = 3;              // address taken: never replaced
int *p = &taken;
int late;                   // 0 until set() runs, 9 after
int (*fp)(void);

void init(void) { NP = 1; DC = 2; SKIP1 = 3; s = NP; }
void bump(void) { counter = counter + 1; }
void set(void) { late = 9; }
int pick(void) { return s == DC; }        // called after init(): DC is 2, s unknown
int rec(int n) { if (n > 0) { return rec(n - 1); } return SKIP1; }
int viaptr(void) { return NP; }           // address taken: entry knows nothing
int unused(void) { return NP; }           // never called: left alone

int main(void) {
  int r = late;             // 0: before set()
  init();
  if (s == NP) { s = SKIP1; } else { s = DC; }
  r = r + s;                // s is 3 on one branch, 2 on the other: unknown
  r = r + counter;          // 7
  bump();
  r = r + counter;          // unknown (bump changes it)
  set();
  r = r + late + *p + taken + pick() + rec(2);
  fp = viaptr;
  r = r + fp();
  return r + NP;
}
