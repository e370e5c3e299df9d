// Inline PTX integer bit instructions against C++ references written here (not the emulator's
// helpers): each kernel thread checks many inputs; the host prints mismatches and a checksum.
#include <cstdio>
#include <cstdint>

__device__ uint32_t mix(uint32_t x) { x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; return x ^ (x >> 16); }

__device__ uint32_t ref_bfe_u32(uint32_t a, uint32_t pos, uint32_t len) {
  if (len == 0 || pos >= 32) return 0;
  if (pos + len > 32) len = 32 - pos;
  return len == 32 ? a : (a >> pos) & ((1u << len) - 1);
}
__device__ int32_t ref_bfe_s32(int32_t a, uint32_t pos, uint32_t len) {
  if (len == 0) return 0;
  uint32_t top = pos + len - 1 > 31 ? 31 : pos + len - 1;
  if (pos > 31) return (a >> 31);               // every bit is the sign of bit 31
  int shift = 31 - (int)top;
  return (int32_t)((uint32_t)a << shift) >> (shift + (int)pos);
}
__device__ uint32_t ref_bfi(uint32_t f, uint32_t b, uint32_t pos, uint32_t len) {
  if (pos >= 32 || len == 0) return b;
  if (pos + len > 32) len = 32 - pos;
  uint32_t m = (len == 32 ? 0xffffffffu : ((1u << len) - 1)) << pos;
  return (b & ~m) | ((f << pos) & m);
}
__device__ uint32_t ref_brev(uint32_t a) { uint32_t r = 0; for (int i = 0; i < 32; ++i) if (a & (1u << i)) r |= 1u << (31 - i); return r; }
__device__ uint32_t ref_popc(uint32_t a) { uint32_t n = 0; while (a) { n += a & 1; a >>= 1; } return n; }
__device__ uint32_t ref_clz(uint32_t a) { uint32_t n = 0; for (int i = 31; i >= 0 && !(a & (1u << i)); --i) ++n; return n; }
__device__ uint32_t ref_bfind_u(uint32_t a) { if (!a) return 0xffffffffu; uint32_t i = 31; while (!(a & (1u << i))) --i; return i; }
__device__ uint32_t ref_prmt(uint32_t a, uint32_t b, uint32_t s) {
  unsigned char bytes[8] = {(unsigned char)a, (unsigned char)(a >> 8), (unsigned char)(a >> 16), (unsigned char)(a >> 24),
                            (unsigned char)b, (unsigned char)(b >> 8), (unsigned char)(b >> 16), (unsigned char)(b >> 24)};
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t sel = (s >> (4 * i)) & 15;
    uint32_t byte = bytes[sel & 7];
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}

__global__ void check(unsigned* bad, unsigned* sum) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, errors = 0, acc = 0;
  for (unsigned k = 0; k < 64; ++k) {
    uint32_t a = mix(t * 977 + k), b = mix(a + 1), c = mix(b + 7), pos = c & 63, len = (c >> 8) & 63, r;
    int32_t s;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len));
    errors += r != ref_bfe_u32(a, pos, len); acc += r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"((int32_t)a), "r"(pos), "r"(len));
    errors += s != ref_bfe_s32((int32_t)a, pos, len); acc += s;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(pos), "r"(len));
    errors += r != ref_bfi(a, b, pos, len); acc += r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    errors += r != ref_prmt(a, b, c); acc += r;
    asm("brev.b32 %0, %1;" : "=r"(r) : "r"(a >> (k & 31)));
    errors += r != ref_brev(a >> (k & 31)); acc += r;
    asm("popc.b32 %0, %1;" : "=r"(r) : "r"(a >> (k & 31)));
    errors += r != ref_popc(a >> (k & 31));
    asm("clz.b32 %0, %1;" : "=r"(r) : "r"(a >> (k & 31)));
    errors += r != ref_clz(a >> (k & 31));
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(a >> (k & 31)));
    errors += r != ref_bfind_u(a >> (k & 31));
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c));   // a ^ b ^ c
    errors += r != (a ^ b ^ c);
    asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(r) : "r"(a), "r"(b), "r"(c));   // majority
    errors += r != ((a & b) | (a & c) | (b & c));
    uint64_t w = ((uint64_t)a << 32) | b, rw;
    asm("brev.b64 %0, %1;" : "=l"(rw) : "l"(w));
    errors += rw != (((uint64_t)ref_brev(b) << 32) | ref_brev(a));
    asm("popc.b64 %0, %1;" : "=r"(r) : "l"(w));
    errors += r != ref_popc(a) + ref_popc(b);
  }
  atomicAdd(bad, errors);
  atomicAdd(sum, acc);
}

int main() {
  unsigned *bad, *sum;
  cudaMallocManaged(&bad, 4); cudaMallocManaged(&sum, 4);
  *bad = 0; *sum = 0;
  check<<<2, 96>>>(bad, sum);
  cudaDeviceSynchronize();
  // edge cases the PTX ISA names: bfind(0), clz(0), bfe with len 0, bfind.shiftamt
  printf("mismatches %u checksum %u\n", *bad, *sum);
  return *bad != 0;
}
