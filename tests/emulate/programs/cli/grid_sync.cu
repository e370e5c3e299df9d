#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* x) { cg::grid_group g = cg::this_grid(); x[0] = 1; g.sync(); }
int main() { return 0; }
