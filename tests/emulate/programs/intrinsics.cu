// Every warp intrinsic of the emulator, once per thread, for tests/emulate/test_intrinsics.py
// to check against its reference table. argv[1] = "full": all 128 threads active;
// "partial": threads with tid % 5 == 3 exit first, so they are inactive in every collective.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define OUT(name, value) printf("%s %d %lld\n", name, tid, (long long)(value))

__global__ void probe(bool partial) {
  int tid = threadIdx.x;
  if (partial && tid % 5 == 3) return;
  auto m = __activemask();
  int v = tid * 10 + 1;
  OUT("activemask", (unsigned long long)m);
  OUT("lane_id", __lane_id());
  OUT("shfl_idx", __shfl_sync(m, v, (tid * 3) % 7));
  OUT("shfl_idx_w16", __shfl_sync(m, v, tid + 5, 16));
  OUT("shfl_up3", __shfl_up_sync(m, v, 3));
  OUT("shfl_up1_w8", __shfl_up_sync(m, v, 1, 8));
  OUT("shfl_down5", __shfl_down_sync(m, v, 5));
  OUT("shfl_down2_w16", __shfl_down_sync(m, v, 2, 16));
  OUT("shfl_xor1", __shfl_xor_sync(m, v, 1));
  OUT("shfl_xor20", __shfl_xor_sync(m, v, 20));
  OUT("shfl_xor4_w4", __shfl_xor_sync(m, v, 4, 4));
  OUT("shfl_legacy_down1", __shfl_down(v, 1));
  OUT("shfl_double_idx0", (long long)(__shfl_sync(m, (double)v + 0.5, 0) * 2));
  OUT("ballot", (unsigned long long)__ballot_sync(m, tid % 3 == 0));
  OUT("ballot_legacy", (unsigned long long)__ballot(tid % 4 == 1));
  OUT("any", __any_sync(m, tid == 5));
  OUT("all_true", __all_sync(m, tid < 1000));
  OUT("all_even", __all_sync(m, tid % 2 == 0));
  OUT("reduce_add", __reduce_add_sync(m, (unsigned)tid));
  OUT("reduce_min", __reduce_min_sync(m, tid * 7 % 13 - 6));
  OUT("reduce_max", __reduce_max_sync(m, tid * 7 % 13 - 6));
  OUT("reduce_and", __reduce_and_sync(m, (unsigned)(tid | 0x100)));
  OUT("reduce_or", __reduce_or_sync(m, 1u << (tid % 8)));
  OUT("reduce_xor", __reduce_xor_sync(m, (unsigned)tid));
  OUT("match_any", (unsigned long long)__match_any_sync(m, tid % 4));
  int pred = -1;
  OUT("match_all_mask", (unsigned long long)__match_all_sync(m, 5, &pred));
  OUT("match_all_pred", pred);
  OUT("match_all_differ", (unsigned long long)__match_all_sync(m, tid, &pred));
  OUT("match_all_differ_pred", pred);
  OUT("syncthreads_count", __syncthreads_count(tid % 3 == 0));
  OUT("syncthreads_and", __syncthreads_and(tid < 1000));
  OUT("syncthreads_or", __syncthreads_or(tid == 77));
  __syncwarp(m);
  if (tid % 2 == 0) {  // a divergent branch: only the even lanes meet here
    OUT("branch_activemask", (unsigned long long)__activemask());
    OUT("branch_ballot", (unsigned long long)__ballot_sync(__activemask(), tid % 4 == 0));
  } else {             // ...and only the odd lanes here
    OUT("branch_activemask", (unsigned long long)__activemask());
    OUT("branch_ballot", (unsigned long long)__ballot_sync(__activemask(), tid % 3 == 0));
  }
}

__global__ void bits(unsigned long long* out) {
  unsigned long long x = 0xF00000000000F0A0ull;
  out[0] = __popc(0xF0F0u);
  out[1] = __popcll(x);
  out[2] = __ffs(0x00A0);
  out[3] = __ffs(0);
  out[4] = __ffsll((long long)0x1000000000ull);
  out[5] = __clz(0x00FF0000);
  out[6] = __clzll(0x1ll);
  out[7] = __brev(0x1u);
  out[8] = __popc((unsigned)__ballot(1));  // 32 at either width: __popc takes 32 bits
  out[9] = __popcll(__ballot(1));          // the real lane count
  out[10] = warpSize;
  out[11] = sizeof(__ballot(1));
  out[12] = __byte_perm(0x33221100u, 0x77665544u, 0x5410u);
  out[13] = __funnelshift_l(0x80000000u, 0x1u, 1);
}

int main(int argc, char** argv) {
  bool partial = argc > 1 && std::strcmp(argv[1], "partial") == 0;
  probe<<<1, 128>>>(partial);
  unsigned long long* d;
  cudaMalloc(&d, 14 * sizeof(unsigned long long));
  bits<<<1, 64>>>(d);
  unsigned long long h[14];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 14; ++i) printf("bits %d %lld\n", i, (long long)h[i]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
