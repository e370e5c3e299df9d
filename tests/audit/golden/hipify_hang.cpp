void launch() { k<<<1, 1>>>(); }
int shifty(int a, int b) { return a <<< b; }  // expect: hipify-hang
// a >>> in a comment does not close it
