// Inline PTX integer arithmetic, carry chains, funnel shifts and conversions against C++
// references written here; prints mismatches and a checksum.
#include <cstdio>
#include <cstdint>
#include <cmath>

__device__ uint32_t mix(uint32_t x) { x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; return x ^ (x >> 16); }

__global__ void check(unsigned* bad, unsigned long long* sum) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, errors = 0;
  unsigned long long acc = 0;
  for (unsigned k = 0; k < 64; ++k) {
    uint32_t a = mix(t * 131 + k), b = mix(a ^ 0x5555), c = mix(b + 3), r;
    int32_t sa = (int32_t)a, sb = (int32_t)b, s;
    uint64_t w;
    int64_t sw;
    asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    errors += r != (uint32_t)(((uint64_t)a * b) >> 32);
    asm("mul.hi.s32 %0, %1, %2;" : "=r"(s) : "r"(sa), "r"(sb));
    errors += s != (int32_t)(((int64_t)sa * sb) >> 32);
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(w) : "r"(a), "r"(b));
    errors += w != (uint64_t)a * b; acc += w;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(sw) : "r"(sa), "r"(sb));
    errors += sw != (int64_t)sa * sb;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    errors += r != a * b + c;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    errors += r != (uint32_t)(((uint64_t)a * b) >> 32) + c;
    // 96-bit addition and subtraction through the carry flag
    uint32_t x0 = a, x1 = b, x2 = c, y0 = mix(a), y1 = mix(b), y2 = mix(c), z0, z1, z2;
    asm("add.cc.u32 %0, %3, %6;\n\taddc.cc.u32 %1, %4, %7;\n\taddc.u32 %2, %5, %8;"
        : "=r"(z0), "=r"(z1), "=r"(z2) : "r"(x0), "r"(x1), "r"(x2), "r"(y0), "r"(y1), "r"(y2));
    unsigned __int128 X = ((unsigned __int128)x2 << 64) | ((uint64_t)x1 << 32) | x0;
    unsigned __int128 Y = ((unsigned __int128)y2 << 64) | ((uint64_t)y1 << 32) | y0;
    unsigned __int128 Z = X + Y;
    errors += z0 != (uint32_t)Z || z1 != (uint32_t)(Z >> 32) || z2 != (uint32_t)(Z >> 64);
    asm("sub.cc.u32 %0, %3, %6;\n\tsubc.cc.u32 %1, %4, %7;\n\tsubc.u32 %2, %5, %8;"
        : "=r"(z0), "=r"(z1), "=r"(z2) : "r"(x0), "r"(x1), "r"(x2), "r"(y0), "r"(y1), "r"(y2));
    Z = X - Y;
    errors += z0 != (uint32_t)Z || z1 != (uint32_t)(Z >> 32) || z2 != (uint32_t)(Z >> 64);
    acc += z2;
    uint32_t n = c & 63;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(n));
    errors += r != (uint32_t)(((((uint64_t)b << 32) | a) << (n & 31)) >> 32);
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(n));
    errors += r != (uint32_t)((((uint64_t)b << 32) | a) >> (n < 32 ? n : 32));
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(n));
    errors += r != (n >= 32 ? 0u : a << n);
    asm("shr.s32 %0, %1, %2;" : "=r"(s) : "r"(sa), "r"(n));
    errors += s != (n >= 32 ? (sa < 0 ? -1 : 0) : sa >> n);
    float f = (float)(int32_t)a / 65536.0f, g;
    asm("cvt.rni.s32.f32 %0, %1;" : "=r"(s) : "f"(f));
    errors += s != (int32_t)nearbyintf(f);
    asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(s) : "f"(f));
    errors += s != (int32_t)truncf(f);
    asm("cvt.rmi.s32.f32 %0, %1;" : "=r"(s) : "f"(f));
    errors += s != (int32_t)floorf(f);
    asm("cvt.rpi.s32.f32 %0, %1;" : "=r"(s) : "f"(f));
    errors += s != (int32_t)ceilf(f); acc += (uint32_t)s;
    asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(s) : "f"(f * 1e6f));   // out of range: saturates
    errors += s != (f * 1e6f >= 2147483648.0f ? 2147483647 : f * 1e6f <= -2147483648.0f ? (-2147483647 - 1) : (int32_t)(f * 1e6f));
    asm("cvt.rn.f32.s32 %0, %1;" : "=f"(g) : "r"(sa));
    errors += g != (float)sa;
    asm("cvt.u16.u32 %0, %1;" : "=r"(r) : "r"(a));
    errors += r != (a & 0xffff);
    asm("cvt.s64.s32 %0, %1;" : "=l"(sw) : "r"(sa));
    errors += sw != (int64_t)sa;
    double d = (double)a * 1.000001, e;
    float h;
    asm("cvt.rn.f32.f64 %0, %1;" : "=f"(h) : "d"(d));
    errors += h != (float)d;
    asm("cvt.f64.f32 %0, %1;" : "=d"(e) : "f"(h));
    errors += e != (double)h;
    asm("mov.b32 %0, %1;" : "=r"(r) : "f"(h));          // bits, not value
    errors += r != __float_as_uint(h);
    asm("mov.b64 %0, {%1, %2};" : "=l"(w) : "r"(a), "r"(b));
    errors += w != (((uint64_t)b << 32) | a);
    asm("mov.b64 {%0, %1}, %2;" : "=r"(x0), "=r"(x1) : "l"(w));
    errors += x0 != a || x1 != b;
    asm("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, %1, %2;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "r"(a), "r"(b));
    errors += r != (a < b ? 1u : 0u);
    asm("{ .reg .u32 tmp; .reg .pred q; setp.ne.u32 q, %3, 0; add.u32 tmp, %1, %2; @q mul.lo.u32 tmp, tmp, 3; @!q add.u32 tmp, tmp, 0; mov.u32 %0, tmp; }"
        : "=r"(r) : "r"(a), "r"(b), "r"(k & 1));
    errors += r != ((k & 1) ? (a + b) * 3 : a + b);
    // 64-bit forms
    uint64_t p = ((uint64_t)a << 32) | b, q = ((uint64_t)c << 32) | a, o;
    asm("mul.hi.u64 %0, %1, %2;" : "=l"(o) : "l"(p), "l"(q));
    errors += o != (uint64_t)(((unsigned __int128)p * q) >> 64);
    asm("mul.lo.u64 %0, %1, %2;" : "=l"(o) : "l"(p), "l"(q));
    errors += o != p * q;
    asm("{ .reg .u64 lo; add.cc.u64 lo, %1, %2; addc.u64 %0, 0, 0; }" : "=l"(o) : "l"(p), "l"(q));
    errors += o != (uint64_t)(((unsigned __int128)p + q) >> 64);
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(o) : "l"(p), "r"(n), "r"(c >> 26));
    errors += o != (n >= 64 || (c >> 26) == 0 ? 0 : (p >> n) & ((c >> 26) + n >= 64 ? ~0ull >> n << n >> n : ((1ull << (c >> 26)) - 1)));
    asm("clz.b64 %0, %1;" : "=r"(r) : "l"(p >> n));
    errors += r != (p >> n == 0 ? 64u : (uint32_t)__builtin_clzll(p >> n));
    asm("bfind.u64 %0, %1;" : "=r"(r) : "l"(p >> n));
    errors += r != (p >> n == 0 ? 0xffffffffu : 63u - (uint32_t)__builtin_clzll(p >> n));
  }
  atomicAdd(bad, errors);
  atomicAdd(sum, acc);
}

int main() {
  unsigned* bad;
  unsigned long long* sum;
  cudaMallocManaged(&bad, 4); cudaMallocManaged(&sum, 8);
  *bad = 0; *sum = 0;
  check<<<2, 96>>>(bad, sum);
  cudaDeviceSynchronize();
  printf("mismatches %u checksum %llu\n", *bad, *sum);
  return *bad != 0;
}
