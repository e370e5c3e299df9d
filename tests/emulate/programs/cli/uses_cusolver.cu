#include <cstdio>
#include <cusolverDn.h>
int main() { cusolverDnHandle_t h; cusolverDnCreate(&h); return 0; }
