// Inline PTX warp, barrier, memory and special-register instructions, written so that the
// printed result does not depend on the warp width: the same at 32 and 64 lanes.
#include <cstdio>
#include <cstdint>

__global__ void warp(const int* in, int* out, unsigned* bad) {
  __shared__ int tile[128];
  unsigned lane, warpid, errors = 0, t = threadIdx.x;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  errors += lane != t % warpSize || warpid != t / warpSize;
  int v, w;
  asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(in + t));
  asm volatile("st.shared.s32 [%0], %1;" :: "l"(tile + t), "r"(v * 2) : "memory");
  asm volatile("bar.sync 0;" ::: "memory");
  asm volatile("ld.shared.volatile.s32 %0, [%1+4];" : "=r"(w) : "l"(tile + (t + 127) % 128 - ((t + 127) % 128 == 127 ? 127 : 0)));
  errors += w != 2 * in[(t + 127) % 128 == 127 ? 1 : t];
  asm volatile("membar.cta;");
  asm volatile("fence.acq_rel.gpu;");
  // a butterfly sum within 8-lane segments (c = (32 - 8) << 8 | 0x1f), width-independent
  int sum = v, other;
  for (int x = 1; x < 8; x <<= 1) {
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x181f, -1;" : "=r"(other) : "r"(sum), "r"(x));
    sum += other;
  }
  int up;
  asm volatile("shfl.sync.up.b32 %0, %1, 1, 0x1800, -1;" : "=r"(up) : "r"(v));
  int idx;
  asm volatile("shfl.sync.idx.b32 %0, %1, 3, 0x181f, -1;" : "=r"(idx) : "r"(v));
  unsigned any, all, ballot, active;
  asm volatile("{ .reg .pred p, q; setp.gt.s32 p, %2, 50; vote.sync.any.pred q, p, -1; selp.u32 %0, 1, 0, q;"
               " vote.sync.all.pred q, p, -1; selp.u32 %1, 1, 0, q; }" : "=r"(any), "=r"(all) : "r"(v));
  asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; vote.sync.ballot.b32 %0, p, -1; }" : "=r"(ballot) : "r"(t & 1));
  asm volatile("activemask.b32 %0;" : "=r"(active));
  errors += __popc(ballot) != 16 || active != 0xffffffffu;   // the low 32 lanes of a full warp
  long long c0, c1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
  errors += c1 < c0;
  unsigned sm, nsm;
  asm("mov.u32 %0, %%smid;" : "=r"(sm));
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  errors += sm >= nsm;
  out[t] = sum * 1000000 + up * 1000 + idx + (int)(any * 10 + all);
  atomicAdd(bad, errors);
}

int main() {
  int *in, *out;
  unsigned* bad;
  cudaMallocManaged(&in, 128 * sizeof(int)); cudaMallocManaged(&out, 128 * sizeof(int)); cudaMallocManaged(&bad, 4);
  for (int i = 0; i < 128; ++i) in[i] = (i * 37) % 101;
  *bad = 0;
  warp<<<1, 128>>>(in, out, bad);
  cudaDeviceSynchronize();
  long long check = 0;
  for (int i = 0; i < 128; ++i) check = check * 31 + out[i];
  printf("mismatches %u out[0..3] %d %d %d %d check %lld\n", *bad, out[0], out[1], out[2], out[3], check);
  return *bad != 0;
}
