// Reads its arguments and standard input, writes an output file whose content depends on the
// warp width only through the hazard argv[1] chooses ("portable" or "lanes32").
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void lane_ids(int* out, bool assume32) {
  int t = threadIdx.x;
  out[t] = assume32 ? (t & 31) : (t % warpSize);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: args_files MODE\n"); return 2; }
  bool assume32 = strcmp(argv[1], "lanes32") == 0;
  char word[64] = {0};
  if (scanf("%63s", word) != 1) strcpy(word, "<none>");
  int* d;
  cudaMalloc(&d, 128 * sizeof(int));
  lane_ids<<<1, 128>>>(d, assume32);
  int h[128];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  FILE* f = fopen("lanes.txt", "w");  // 1 where the kernel's lane id is the hardware's
  for (int i = 0; i < 128; ++i) fprintf(f, "%d\n", h[i] == i % prop.warpSize ? 1 : 0);
  fclose(f);
  printf("mode %s, stdin word %s\n", argv[1], word);
  printf("elapsed %d ms\n", (int)(clock() % 1000));
  return 0;
}
