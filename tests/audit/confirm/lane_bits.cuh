// --confirm: a header (no main()): nothing to run, its finding is marked not-run.
__device__ unsigned lanes_below() {
  const unsigned lane = threadIdx.x % warpSize;
  return (1u << lane) - 1;
}
