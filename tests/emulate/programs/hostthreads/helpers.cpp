typedef unsigned int uint;
static uint umin(uint a, uint b) { return a < b ? a : b; }  // its own, as cuda-samples' mergeSort has
unsigned host_min(unsigned a, unsigned b) { return umin(a, b); }
