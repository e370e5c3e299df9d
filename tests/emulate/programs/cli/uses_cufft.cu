#include <cstdio>
#include <cufft.h>
int main() { cufftHandle p; cufftPlan1d(&p, 8, CUFFT_C2C, 1); return 0; }
