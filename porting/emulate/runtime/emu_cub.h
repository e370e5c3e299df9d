// port emulate: CUB's warp and block primitives on the CPU, for <cub/cub.cuh> and
// <hipcub/hipcub.hpp> (hipcub is the same namespace).
//
// Built from the runtime's own collectives (shuffles, __syncthreads), so they meet in lockstep
// like any warp operation. The hardware warp is the emulated one: WarpReduce/WarpScan's
// default logical warp and the warps BlockReduce/BlockScan reduce within are warpSize lanes, 32
// or 64, as CUB (CUB_PTX_WARP_THREADS) and hipCUB (HIPCUB_DEVICE_WARP_THREADS, 64 on CDNA)
// define them. The combining order follows CUB's warp-reduction algorithms (a shuffle tree
// with offsets 1, 2, 4, ... within each warp, then the warp aggregates in warp order), so a
// floating-point reduction rounds differently at 64 lanes exactly where the hardware would.
// Like CUB, a block reduction's result is defined in thread 0 only (the other threads get
// their warp's partial) and a TempStorage must not be reused without a __syncthreads between.
// Device-wide algorithms (DeviceReduce, DeviceScan, DeviceSelect) run on the host, in order;
// they do not depend on the warp width. What is not here is named at compile time
// ("uses cub::X, which port emulate's runtime does not provide").
#pragma once
#include "emu_runtime.h"

#include <limits>

#define CUB_VERSION 200200
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_PTX_WARP_THREADS warpSize
#define CUB_RUNTIME_FUNCTION
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
#define CUB_MAX(a, b) (((a) < (b)) ? (b) : (a))
#define CubDebug(e) (e)
// CUB's test utilities: stop with the error's name when a call fails
#define CubDebugExit(e)                                                                         \
  do {                                                                                          \
    cudaError_t emu_cub_e_ = (e);                                                               \
    if (emu_cub_e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "CUB error %s at %s:%d\n", cudaGetErrorString(emu_cub_e_), __FILE__, __LINE__); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace cub {
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE, BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE, BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};

struct Sum { template <class T> EMU_INL T operator()(const T& a, const T& b) const { return a + b; } };
struct Max { template <class T> EMU_INL T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
struct Min { template <class T> EMU_INL T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class K, class V> struct KeyValuePair {
  typedef K Key;
  typedef V Value;
  K key;
  V value;
  KeyValuePair() = default;
  EMU_INL KeyValuePair(const K& k, const V& v) : key(k), value(v) {}
};
// the first (smallest key) of the extreme values, as CUB's ArgMax/ArgMin
struct ArgMax {
  template <class K, class V> EMU_INL KeyValuePair<K, V> operator()(const KeyValuePair<K, V>& a, const KeyValuePair<K, V>& b) const {
    return (b.value > a.value || (b.value == a.value && b.key < a.key)) ? b : a;
  }
};
struct ArgMin {
  template <class K, class V> EMU_INL KeyValuePair<K, V> operator()(const KeyValuePair<K, V>& a, const KeyValuePair<K, V>& b) const {
    return (b.value < a.value || (b.value == a.value && b.key < a.key)) ? b : a;
  }
};

// radix-sort key twiddling (cub::Traits<T>::UnsignedBits, TwiddleIn/Out): order-preserving bits
template <class T, class Enable = void> struct Traits;
template <class T> struct Traits<T, typename std::enable_if<std::is_integral<T>::value>::type> {
  typedef typename std::make_unsigned<T>::type UnsignedBits;
  static constexpr UnsignedBits HIGH_BIT = std::is_signed<T>::value ? (UnsignedBits)((UnsignedBits)1 << (8 * sizeof(T) - 1)) : 0;
  static EMU_INL UnsignedBits TwiddleIn(UnsignedBits k) { return k ^ HIGH_BIT; }
  static EMU_INL UnsignedBits TwiddleOut(UnsignedBits k) { return k ^ HIGH_BIT; }
  static EMU_INL T Max() { return std::numeric_limits<T>::max(); }
  static EMU_INL T Lowest() { return std::numeric_limits<T>::lowest(); }
};
template <class T> struct Traits<T, typename std::enable_if<std::is_floating_point<T>::value>::type> {
  typedef typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type UnsignedBits;
  static constexpr UnsignedBits HIGH_BIT = (UnsignedBits)1 << (8 * sizeof(T) - 1);
  static EMU_INL UnsignedBits TwiddleIn(UnsignedBits k) { return k ^ ((k & HIGH_BIT) ? ~(UnsignedBits)0 : HIGH_BIT); }
  static EMU_INL UnsignedBits TwiddleOut(UnsignedBits k) { return k ^ ((k & HIGH_BIT) ? HIGH_BIT : ~(UnsignedBits)0); }
  static EMU_INL T Max() { return std::numeric_limits<T>::max(); }
  static EMU_INL T Lowest() { return std::numeric_limits<T>::lowest(); }
};

namespace emu_detail {
// CUB's RowMajorTid
template <int DX, int DY, int DZ> EMU_INL int linear_tid() {
  return (DZ == 1 ? 0 : (int)threadIdx.z * DX * DY) + (DY == 1 ? 0 : (int)threadIdx.y * DX) + (int)threadIdx.x;
}
// storage for values of T without constructing them (CUB's Uninitialized)
template <class T, int N> struct Slots {
  alignas(T) unsigned char bytes[sizeof(T) * (N > 0 ? N : 1)];
  EMU_INL T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
};
// a shuffle-tree reduction over a logical warp of L lanes: offsets 1, 2, 4, ...; a lane adds
// its partner's value only when the partner is one of the first `valid` lanes
template <int L, class T, class Op> EMU_INL T warp_reduce(T v, Op op, int valid) {
  static_assert((L & (L - 1)) == 0 && L >= 1, "a CUB logical warp is a power of two");
  static_assert(L <= warpSize, "a CUB logical warp cannot be wider than the hardware warp");
  int lane = (int)(__lane_id() % L);
  auto mask = __activemask();
  for (int off = 1; off < L; off *= 2) {
    T other = __shfl_down_sync(mask, v, off, L);
    if (lane + off < valid) v = op(v, other);
  }
  return v;
}
// an inclusive Kogge-Stone scan over a logical warp of L lanes (shuffles up by 1, 2, 4, ...)
template <int L, class T, class Op> EMU_INL T warp_inclusive(T v, Op op) {
  static_assert((L & (L - 1)) == 0 && L >= 1, "a CUB logical warp is a power of two");
  static_assert(L <= warpSize, "a CUB logical warp cannot be wider than the hardware warp");
  int lane = (int)(__lane_id() % L);
  auto mask = __activemask();
  for (int off = 1; off < L; off *= 2) {
    T up = __shfl_up_sync(mask, v, off, L);
    if (lane >= off) v = op(up, v);
  }
  return v;
}
template <class T, int N, class Op> EMU_INL T thread_reduce(const T (&in)[N], Op op) {
  T v = in[0];
  for (int i = 1; i < N; ++i) v = op(v, in[i]);
  return v;
}
}  // namespace emu_detail

// ---- WarpReduce / WarpScan -------------------------------------------------------------------
template <class T, int LOGICAL_WARP_THREADS = warpSize, int LEGACY_PTX_ARCH = 0> class WarpReduce {
 public:
  struct TempStorage {};
  EMU_INL explicit WarpReduce(TempStorage&) {}
  EMU_INL T Sum(T input) { return Reduce(input, cub::Sum()); }
  EMU_INL T Sum(T input, int valid_items) { return Reduce(input, cub::Sum(), valid_items); }
  template <class Op> EMU_INL T Reduce(T input, Op op) { return emu_detail::warp_reduce<LOGICAL_WARP_THREADS>(input, op, LOGICAL_WARP_THREADS); }
  template <class Op> EMU_INL T Reduce(T input, Op op, int valid_items) {
    return emu_detail::warp_reduce<LOGICAL_WARP_THREADS>(input, op, valid_items);
  }
};

template <class T, int LOGICAL_WARP_THREADS = warpSize, int LEGACY_PTX_ARCH = 0> class WarpScan {
  static constexpr int L = LOGICAL_WARP_THREADS;

 public:
  struct TempStorage {};
  EMU_INL explicit WarpScan(TempStorage&) {}
  template <class Op> EMU_INL void InclusiveScan(T input, T& out, Op op) { out = emu_detail::warp_inclusive<L>(input, op); }
  template <class Op> EMU_INL void InclusiveScan(T input, T& out, Op op, T& aggregate) {
    out = emu_detail::warp_inclusive<L>(input, op);
    aggregate = __shfl_sync(__activemask(), out, L - 1, L);
  }
  EMU_INL void InclusiveSum(T input, T& out) { InclusiveScan(input, out, cub::Sum()); }
  EMU_INL void InclusiveSum(T input, T& out, T& aggregate) { InclusiveScan(input, out, cub::Sum(), aggregate); }
  template <class Op> EMU_INL void ExclusiveScan(T input, T& out, T initial, Op op) {
    T aggregate;
    ExclusiveScan(input, out, initial, op, aggregate);
  }
  template <class Op> EMU_INL void ExclusiveScan(T input, T& out, T initial, Op op, T& aggregate) {
    T inclusive = emu_detail::warp_inclusive<L>(input, op);
    auto mask = __activemask();
    T before = __shfl_up_sync(mask, inclusive, 1, L);
    aggregate = __shfl_sync(mask, inclusive, L - 1, L);
    out = (__lane_id() % L) == 0 ? initial : op(initial, before);
  }
  template <class Op> EMU_INL void ExclusiveScan(T input, T& out, Op op) {  // lane 0's output is undefined in CUB
    T inclusive = emu_detail::warp_inclusive<L>(input, op);
    T before = __shfl_up_sync(__activemask(), inclusive, 1, L);
    out = (__lane_id() % L) == 0 ? input : before;
  }
  EMU_INL void ExclusiveSum(T input, T& out) {
    T aggregate;
    ExclusiveSum(input, out, aggregate);
  }
  EMU_INL void ExclusiveSum(T input, T& out, T& aggregate) {
    T inclusive = emu_detail::warp_inclusive<L>(input, cub::Sum());
    auto mask = __activemask();
    T before = __shfl_up_sync(mask, inclusive, 1, L);
    aggregate = __shfl_sync(mask, inclusive, L - 1, L);
    out = (__lane_id() % L) == 0 ? T(0) : before;
  }
  EMU_INL T Broadcast(T input, unsigned int src_lane) { return __shfl_sync(__activemask(), input, (int)src_lane, L); }
};

// ---- BlockReduce / BlockScan -----------------------------------------------------------------
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int WARPS = (THREADS + warpSize - 1) / warpSize;

 public:
  struct TempStorage { emu_detail::Slots<T, WARPS> warp_aggregates; };
  EMU_INL BlockReduce() : temp_(private_storage()) {}
  EMU_INL explicit BlockReduce(TempStorage& t) : temp_(t) {}
  template <class Op> EMU_INL T Reduce(T input, Op op) { return reduce(input, op, THREADS); }
  template <class Op> EMU_INL T Reduce(T input, Op op, int num_valid) { return reduce(input, op, num_valid); }
  template <int N, class Op> EMU_INL T Reduce(T (&inputs)[N], Op op) { return reduce(emu_detail::thread_reduce(inputs, op), op, THREADS); }
  EMU_INL T Sum(T input) { return reduce(input, cub::Sum(), THREADS); }
  EMU_INL T Sum(T input, int num_valid) { return reduce(input, cub::Sum(), num_valid); }
  template <int N> EMU_INL T Sum(T (&inputs)[N]) { return reduce(emu_detail::thread_reduce(inputs, cub::Sum()), cub::Sum(), THREADS); }

 private:
  TempStorage& temp_;
  static EMU_INL TempStorage& private_storage() {
    __shared__ TempStorage storage;  // per block (docs/emulate.md: static __shared__)
    return storage;
  }
  // CUB's BLOCK_REDUCE_WARP_REDUCTIONS: each warp reduces by shuffles, thread 0 combines the
  // warp aggregates in warp order after one barrier
  template <class Op> EMU_INL T reduce(T input, Op op, int num_valid) {
    int tid = emu_detail::linear_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
    int warp = tid / warpSize;
    int warp_valid = std::min(warpSize, std::max(0, num_valid - warp * warpSize));
    T v = emu_detail::warp_reduce<warpSize>(input, op, warp_valid);
    if (tid % warpSize == 0 && warp_valid > 0) temp_.warp_aggregates[warp] = v;
    __syncthreads();
    if (tid == 0) {
      int warps = std::min(WARPS, (num_valid + warpSize - 1) / warpSize);
      for (int w = 1; w < warps; ++w) v = op(v, temp_.warp_aggregates[w]);
    }
    return v;
  }
};

template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int WARPS = (THREADS + warpSize - 1) / warpSize;

 public:
  struct TempStorage { emu_detail::Slots<T, WARPS> warp_totals; };
  EMU_INL BlockScan() : temp_(private_storage()) {}
  EMU_INL explicit BlockScan(TempStorage& t) : temp_(t) {}

  // one value per thread
  template <class Op> EMU_INL void InclusiveScan(T input, T& out, Op op) { T a; InclusiveScan(input, out, op, a); }
  template <class Op> EMU_INL void InclusiveScan(T input, T& out, Op op, T& aggregate) {
    T before;
    bool has = exclusive(input, op, before, aggregate);
    out = has ? op(before, input) : input;
  }
  EMU_INL void InclusiveSum(T input, T& out) { InclusiveScan(input, out, cub::Sum()); }
  EMU_INL void InclusiveSum(T input, T& out, T& aggregate) { InclusiveScan(input, out, cub::Sum(), aggregate); }
  template <class Op> EMU_INL void ExclusiveScan(T input, T& out, T initial, Op op) { T a; ExclusiveScan(input, out, initial, op, a); }
  template <class Op> EMU_INL void ExclusiveScan(T input, T& out, T initial, Op op, T& aggregate) {
    T before;
    bool has = exclusive(input, op, before, aggregate);
    out = has ? op(initial, before) : initial;
  }
  EMU_INL void ExclusiveSum(T input, T& out) { T a; ExclusiveSum(input, out, a); }
  EMU_INL void ExclusiveSum(T input, T& out, T& aggregate) {
    T before;
    out = exclusive(input, cub::Sum(), before, aggregate) ? before : T(0);
  }

  // ITEMS_PER_THREAD values per thread, in a blocked arrangement (in and out may be the same array)
  template <int N, class Op> EMU_INL void InclusiveScan(T (&in)[N], T (&out)[N], Op op) { T a; InclusiveScan(in, out, op, a); }
  template <int N, class Op> EMU_INL void InclusiveScan(T (&in)[N], T (&out)[N], Op op, T& aggregate) {
    T before;
    bool has = exclusive(emu_detail::thread_reduce(in, op), op, before, aggregate);
    T run = has ? op(before, in[0]) : in[0];
    out[0] = run;
    for (int i = 1; i < N; ++i) out[i] = run = op(run, in[i]);
  }
  template <int N> EMU_INL void InclusiveSum(T (&in)[N], T (&out)[N]) { InclusiveScan(in, out, cub::Sum()); }
  template <int N> EMU_INL void InclusiveSum(T (&in)[N], T (&out)[N], T& aggregate) { InclusiveScan(in, out, cub::Sum(), aggregate); }
  template <int N, class Op> EMU_INL void ExclusiveScan(T (&in)[N], T (&out)[N], T initial, Op op) { T a; ExclusiveScan(in, out, initial, op, a); }
  template <int N, class Op> EMU_INL void ExclusiveScan(T (&in)[N], T (&out)[N], T initial, Op op, T& aggregate) {
    T before;
    bool has = exclusive(emu_detail::thread_reduce(in, op), op, before, aggregate);
    T run = has ? op(initial, before) : initial;
    for (int i = 0; i < N; ++i) {
      T item = in[i];
      out[i] = run;
      run = op(run, item);
    }
  }
  template <int N> EMU_INL void ExclusiveSum(T (&in)[N], T (&out)[N]) { T a; ExclusiveSum(in, out, a); }
  template <int N> EMU_INL void ExclusiveSum(T (&in)[N], T (&out)[N], T& aggregate) { ExclusiveScan(in, out, T(0), cub::Sum(), aggregate); }

 private:
  TempStorage& temp_;
  static EMU_INL TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  // CUB's BLOCK_SCAN_WARP_SCANS: a scan within each warp by shuffles, the warp totals through
  // shared memory after one barrier. `before` is the combination of every earlier thread's
  // value (false for thread 0, which has none); `aggregate` is the whole block's.
  template <class Op> EMU_INL bool exclusive(T input, Op op, T& before, T& aggregate) {
    int tid = emu_detail::linear_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
    int warp = tid / warpSize, lane = tid % warpSize;
    T inclusive = emu_detail::warp_inclusive<warpSize>(input, op);
    T up = __shfl_up_sync(__activemask(), inclusive, 1);
    if (lane == warpSize - 1 || tid == THREADS - 1) temp_.warp_totals[warp] = inclusive;
    __syncthreads();
    aggregate = temp_.warp_totals[0];
    bool has = warp > 0;
    if (has) before = temp_.warp_totals[0];
    for (int w = 1; w < WARPS; ++w) {
      aggregate = op(aggregate, temp_.warp_totals[w]);
      if (w < warp) before = op(before, temp_.warp_totals[w]);
    }
    if (lane > 0) {
      before = has ? op(before, up) : up;
      has = true;
    }
    return has;
  }
};

// ---- direct loads and stores; BlockLoad / BlockStore ------------------------------------------
// Blocked: thread t holds items t*N .. t*N+N-1; striped: items t, t+T, t+2T, ...; warp-striped:
// the same within each warp's segment of warpSize*N items (so it depends on the width).
template <class It, class T, int N> EMU_INL void LoadDirectBlocked(int tid, It it, T (&items)[N]) {
  for (int i = 0; i < N; ++i) items[i] = it[tid * N + i];
}
template <class It, class T, int N> EMU_INL void LoadDirectBlocked(int tid, It it, T (&items)[N], int valid) {
  for (int i = 0; i < N; ++i) if (tid * N + i < valid) items[i] = it[tid * N + i];
}
template <class It, class T, int N, class D> EMU_INL void LoadDirectBlocked(int tid, It it, T (&items)[N], int valid, D oob) {
  for (int i = 0; i < N; ++i) items[i] = tid * N + i < valid ? (T)it[tid * N + i] : (T)oob;
}
template <int BLOCK_THREADS, class It, class T, int N> EMU_INL void LoadDirectStriped(int tid, It it, T (&items)[N]) {
  for (int i = 0; i < N; ++i) items[i] = it[tid + i * BLOCK_THREADS];
}
template <int BLOCK_THREADS, class It, class T, int N> EMU_INL void LoadDirectStriped(int tid, It it, T (&items)[N], int valid) {
  for (int i = 0; i < N; ++i) if (tid + i * BLOCK_THREADS < valid) items[i] = it[tid + i * BLOCK_THREADS];
}
template <int BLOCK_THREADS, class It, class T, int N, class D>
EMU_INL void LoadDirectStriped(int tid, It it, T (&items)[N], int valid, D oob) {
  for (int i = 0; i < N; ++i) items[i] = tid + i * BLOCK_THREADS < valid ? (T)it[tid + i * BLOCK_THREADS] : (T)oob;
}
template <class It, class T, int N> EMU_INL void LoadDirectWarpStriped(int tid, It it, T (&items)[N]) {
  int lane = tid % warpSize, base = (tid / warpSize) * warpSize * N;
  for (int i = 0; i < N; ++i) items[i] = it[base + lane + i * warpSize];
}
template <class It, class T, int N> EMU_INL void LoadDirectWarpStriped(int tid, It it, T (&items)[N], int valid) {
  int lane = tid % warpSize, base = (tid / warpSize) * warpSize * N;
  for (int i = 0; i < N; ++i) if (base + lane + i * warpSize < valid) items[i] = it[base + lane + i * warpSize];
}
template <class It, class T, int N> EMU_INL void StoreDirectBlocked(int tid, It it, T (&items)[N]) {
  for (int i = 0; i < N; ++i) it[tid * N + i] = items[i];
}
template <class It, class T, int N> EMU_INL void StoreDirectBlocked(int tid, It it, T (&items)[N], int valid) {
  for (int i = 0; i < N; ++i) if (tid * N + i < valid) it[tid * N + i] = items[i];
}
template <int BLOCK_THREADS, class It, class T, int N> EMU_INL void StoreDirectStriped(int tid, It it, T (&items)[N]) {
  for (int i = 0; i < N; ++i) it[tid + i * BLOCK_THREADS] = items[i];
}
template <int BLOCK_THREADS, class It, class T, int N> EMU_INL void StoreDirectStriped(int tid, It it, T (&items)[N], int valid) {
  for (int i = 0; i < N; ++i) if (tid + i * BLOCK_THREADS < valid) it[tid + i * BLOCK_THREADS] = items[i];
}
template <class It, class T, int N> EMU_INL void StoreDirectWarpStriped(int tid, It it, T (&items)[N]) {
  int lane = tid % warpSize, base = (tid / warpSize) * warpSize * N;
  for (int i = 0; i < N; ++i) it[base + lane + i * warpSize] = items[i];
}

// The transposing algorithms only make the global accesses coalesced: what each thread ends up
// holding is the blocked arrangement, which is what is loaded here directly (striped for STRIPED).
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {};
  EMU_INL BlockLoad() {}
  EMU_INL explicit BlockLoad(TempStorage&) {}
  template <class It> EMU_INL void Load(It it, T (&items)[ITEMS_PER_THREAD]) {
    if (ALGORITHM == BLOCK_LOAD_STRIPED) LoadDirectStriped<THREADS>(tid(), it, items);
    else LoadDirectBlocked(tid(), it, items);
  }
  template <class It> EMU_INL void Load(It it, T (&items)[ITEMS_PER_THREAD], int valid) {
    if (ALGORITHM == BLOCK_LOAD_STRIPED) LoadDirectStriped<THREADS>(tid(), it, items, valid);
    else LoadDirectBlocked(tid(), it, items, valid);
  }
  template <class It, class D> EMU_INL void Load(It it, T (&items)[ITEMS_PER_THREAD], int valid, D oob) {
    if (ALGORITHM == BLOCK_LOAD_STRIPED) LoadDirectStriped<THREADS>(tid(), it, items, valid, oob);
    else LoadDirectBlocked(tid(), it, items, valid, oob);
  }

 private:
  static EMU_INL int tid() { return emu_detail::linear_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>(); }
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
  static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {};
  EMU_INL BlockStore() {}
  EMU_INL explicit BlockStore(TempStorage&) {}
  template <class It> EMU_INL void Store(It it, T (&items)[ITEMS_PER_THREAD]) {
    if (ALGORITHM == BLOCK_STORE_STRIPED) StoreDirectStriped<THREADS>(tid(), it, items);
    else StoreDirectBlocked(tid(), it, items);
  }
  template <class It> EMU_INL void Store(It it, T (&items)[ITEMS_PER_THREAD], int valid) {
    if (ALGORITHM == BLOCK_STORE_STRIPED) StoreDirectStriped<THREADS>(tid(), it, items, valid);
    else StoreDirectBlocked(tid(), it, items, valid);
  }

 private:
  static EMU_INL int tid() { return emu_detail::linear_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>(); }
};

// ---- device-wide algorithms: on the host, in order (the first call sizes the temporary
// storage, as CUB's two-phase protocol expects; nothing depends on the width) ----------------
namespace emu_detail {
EMU_INL bool sizing(void* temp, size_t& bytes) {
  if (temp != nullptr) return false;
  bytes = 1;  // a real allocation for the second call
  return true;
}
}  // namespace emu_detail
struct DeviceReduce {
  template <class In, class Out, class N, class Op, class T>
  static cudaError_t Reduce(void* temp, size_t& bytes, In in, Out out, N n, Op op, T init, cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    T acc = init;
    for (N i = 0; i < n; ++i) acc = op(acc, in[i]);
    *out = acc;
    return cudaSuccess;
  }
  template <class In, class Out, class N> static cudaError_t Sum(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
    typedef typename std::remove_cv<typename std::remove_reference<decltype(*out)>::type>::type T;
    return Reduce(temp, bytes, in, out, n, cub::Sum(), T(0), s);
  }
  template <class In, class Out, class N> static cudaError_t Max(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
    typedef typename std::remove_cv<typename std::remove_reference<decltype(*out)>::type>::type T;
    return Reduce(temp, bytes, in, out, n, cub::Max(), std::numeric_limits<T>::lowest(), s);
  }
  template <class In, class Out, class N> static cudaError_t Min(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
    typedef typename std::remove_cv<typename std::remove_reference<decltype(*out)>::type>::type T;
    return Reduce(temp, bytes, in, out, n, cub::Min(), std::numeric_limits<T>::max(), s);
  }
  template <class In, class Out, class N, class Better> static cudaError_t arg(void* temp, size_t& bytes, In in, Out out, N n, Better better) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    int best = 0;
    for (N i = 1; i < n; ++i) if (better(in[i], in[best])) best = (int)i;
    out->key = best;
    out->value = in[best];
    return cudaSuccess;
  }
  template <class In, class Out, class N> static cudaError_t ArgMax(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t = nullptr) {
    return arg(temp, bytes, in, out, n, [](const auto& a, const auto& b) { return b < a; });
  }
  template <class In, class Out, class N> static cudaError_t ArgMin(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t = nullptr) {
    return arg(temp, bytes, in, out, n, [](const auto& a, const auto& b) { return a < b; });
  }
};
struct DeviceScan {
  template <class In, class Out, class Op, class T, class N>
  static cudaError_t ExclusiveScan(void* temp, size_t& bytes, In in, Out out, Op op, T init, N n, cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    T run = init;
    for (N i = 0; i < n; ++i) {
      T item = in[i];
      out[i] = run;
      run = op(run, item);
    }
    return cudaSuccess;
  }
  template <class In, class Out, class Op, class N>
  static cudaError_t InclusiveScan(void* temp, size_t& bytes, In in, Out out, Op op, N n, cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    if (n <= 0) return cudaSuccess;
    auto run = in[0];
    out[0] = run;
    for (N i = 1; i < n; ++i) out[i] = run = op(run, in[i]);
    return cudaSuccess;
  }
  template <class In, class Out, class N> static cudaError_t ExclusiveSum(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
    typedef typename std::remove_cv<typename std::remove_reference<decltype(*out)>::type>::type T;
    return ExclusiveScan(temp, bytes, in, out, cub::Sum(), T(0), n, s);
  }
  template <class In, class Out, class N> static cudaError_t InclusiveSum(void* temp, size_t& bytes, In in, Out out, N n, cudaStream_t s = nullptr) {
    return InclusiveScan(temp, bytes, in, out, cub::Sum(), n, s);
  }
};
struct DeviceSelect {
  template <class In, class Flags, class Out, class Count, class N>
  static cudaError_t Flagged(void* temp, size_t& bytes, In in, Flags flags, Out out, Count count, N n, cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    N kept = 0;
    for (N i = 0; i < n; ++i) if (flags[i]) out[kept++] = in[i];
    *count = kept;
    return cudaSuccess;
  }
  template <class In, class Out, class Count, class N, class Pred>
  static cudaError_t If(void* temp, size_t& bytes, In in, Out out, Count count, N n, Pred pred, cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    N kept = 0;
    for (N i = 0; i < n; ++i) if (pred(in[i])) out[kept++] = in[i];
    *count = kept;
    return cudaSuccess;
  }
};
struct DeviceRunLengthEncode {
  // runs of equal items: each run's first item, its length, and the number of runs
  template <class In, class Unique, class Lengths, class Count, class N>
  static cudaError_t Encode(void* temp, size_t& bytes, In in, Unique unique, Lengths lengths, Count runs, N n,
                            cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    N kept = 0;
    for (N i = 0; i < n; ++kept) {
      N j = i + 1;
      while (j < n && in[j] == in[i]) ++j;
      unique[kept] = in[i];
      lengths[kept] = j - i;
      i = j;
    }
    *runs = kept;
    return cudaSuccess;
  }
  // runs longer than one item: where each starts, its length, and how many there are
  template <class In, class Offsets, class Lengths, class Count, class N>
  static cudaError_t NonTrivialRuns(void* temp, size_t& bytes, In in, Offsets offsets, Lengths lengths, Count runs, N n,
                                    cudaStream_t = nullptr) {
    if (emu_detail::sizing(temp, bytes)) return cudaSuccess;
    N kept = 0;
    for (N i = 0; i < n;) {
      N j = i + 1;
      while (j < n && in[j] == in[i]) ++j;
      if (j - i > 1) {
        offsets[kept] = i;
        lengths[kept] = j - i;
        ++kept;
      }
      i = j;
    }
    *runs = kept;
    return cudaSuccess;
  }
};

// A caching allocator's interface over plain device allocations: nothing is cached, which a
// program cannot observe except through timing
struct CachingDeviceAllocator {
  static constexpr unsigned INVALID_BIN = (unsigned)-1;
  static constexpr size_t INVALID_SIZE = (size_t)-1;
  static constexpr int INVALID_DEVICE_ORDINAL = -1;
  explicit CachingDeviceAllocator(unsigned = 8, unsigned = 3, unsigned = INVALID_BIN, size_t = INVALID_SIZE,
                                  bool = false, bool = false) {}
  explicit CachingDeviceAllocator(bool, bool = false) {}
  cudaError_t SetMaxCachedBytes(size_t) { return cudaSuccess; }
  cudaError_t DeviceAllocate(int, void** p, size_t n, cudaStream_t = nullptr) { return cudaMalloc(p, n); }
  cudaError_t DeviceAllocate(void** p, size_t n, cudaStream_t = nullptr) { return cudaMalloc(p, n); }
  cudaError_t DeviceFree(int, void* p) { return cudaFree(p); }
  cudaError_t DeviceFree(void* p) { return cudaFree(p); }
  cudaError_t FreeAllCached() { return cudaSuccess; }
};

// iterators over computed values (usable in kernels and in the device-wide algorithms)
template <class T, class Offset = std::ptrdiff_t> class CountingInputIterator {
 public:
  typedef T value_type;
  typedef T reference;
  typedef Offset difference_type;
  EMU_INL explicit CountingInputIterator(const T& first) : v_(first) {}
  EMU_INL T operator*() const { return v_; }
  template <class D> EMU_INL T operator[](D n) const { return v_ + (T)n; }
  template <class D> EMU_INL CountingInputIterator operator+(D n) const { return CountingInputIterator(v_ + (T)n); }
  EMU_INL CountingInputIterator& operator++() { ++v_; return *this; }
 private:
  T v_;
};
template <class T, class Offset = std::ptrdiff_t> class ConstantInputIterator {
 public:
  typedef T value_type;
  typedef T reference;
  typedef Offset difference_type;
  EMU_INL explicit ConstantInputIterator(const T& v) : v_(v) {}
  EMU_INL T operator*() const { return v_; }
  template <class D> EMU_INL T operator[](D) const { return v_; }
  template <class D> EMU_INL ConstantInputIterator operator+(D) const { return *this; }
  EMU_INL ConstantInputIterator& operator++() { return *this; }
 private:
  T v_;
};
template <class T, class Op, class It, class Offset = std::ptrdiff_t> class TransformInputIterator {
 public:
  typedef T value_type;
  typedef T reference;
  typedef Offset difference_type;
  EMU_INL TransformInputIterator(It it, Op op) : it_(it), op_(op) {}
  EMU_INL T operator*() const { return op_(*it_); }
  template <class D> EMU_INL T operator[](D n) const { return op_(it_[n]); }
  template <class D> EMU_INL TransformInputIterator operator+(D n) const { return TransformInputIterator(it_ + n, op_); }
  EMU_INL TransformInputIterator& operator++() { ++it_; return *this; }
 private:
  It it_;
  Op op_;
};
}  // namespace cub
namespace hipcub = cub;
