#define OUTSIDE 0
