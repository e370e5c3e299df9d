__global__ void k() {}
void launch() { k<<<1, 1>>>(); k<<<2, 2, 0, 0>>>(); }
