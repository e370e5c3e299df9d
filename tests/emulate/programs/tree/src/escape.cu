// Reaches out of its source tree with `../`: refused, nothing copied.
#include "../outside.h"
int main() { return OUTSIDE; }
