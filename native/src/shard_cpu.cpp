// Shard gather/scatter/reduce on the host (the cpu build path).
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>
#include <vector>

#include "half_bits.h"
#include "shard_view.h"

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

constexpr int64_t kParallelBytes = 4 << 20;  // below this one thread is faster than spawning more
constexpr int64_t kBytesPerThread = 1 << 20;

int32_t threads_for(int64_t bytes) {
  if (bytes < kParallelBytes) return 1;
  const int64_t by_size = bytes / kBytesPerThread;
  const int32_t t = pn::num_threads();
  return static_cast<int32_t>(by_size < t ? by_size : t);
}

// fn(begin, end) over [0, n) split into `threads` contiguous ranges; the caller's thread runs
// the first. If a thread cannot be started its range runs on the caller's thread instead.
template <typename Fn>
void parallel_for(int64_t n, int32_t threads, const Fn& fn) {
  if (threads <= 1 || n < 2) {
    fn(int64_t{0}, n);
    return;
  }
  const int64_t parts = threads < n ? threads : n;
  const int64_t step = (n + parts - 1) / parts;
  std::vector<std::thread> pool;
  for (int64_t b = step; b < n; b += step) {
    const int64_t e = b + step < n ? b + step : n;
    try {
      pool.emplace_back([&fn, b, e] { fn(b, e); });
    } catch (const std::system_error&) {
      fn(b, e);
    }
  }
  fn(int64_t{0}, step < n ? step : n);
  for (auto& t : pool) t.join();
}

constexpr int64_t kTile = 32;

// Element-strided innermost dim while another dim `p` has stride 1 (a transposed view): copy
// in kTile x kTile tiles of the (p, last) plane so both sides stay in cache.
template <typename T, bool kGather>
void copy_tiled(T* strided, const pn::ShardView& v, T* contiguous, int32_t p) {
  const int32_t last = v.ndim - 1;
  int64_t flat_stride[PN_MAX_DIMS];
  int64_t acc = 1;
  for (int32_t d = last; d >= 0; --d) {
    flat_stride[d] = acc;
    acc *= v.size[d];
  }
  const int64_t rows = v.size[p], cols = v.size[last], col_stride = v.stride[last], row_flat = flat_stride[p];
  int64_t idx[PN_MAX_DIMS] = {};
  const int64_t planes = v.numel / (rows * cols);
  for (int64_t plane = 0; plane < planes; ++plane) {
    int64_t so = 0, fo = 0;
    for (int32_t d = 0; d < last; ++d) {
      if (d == p) continue;
      so += idx[d] * v.stride[d];
      fo += idx[d] * flat_stride[d];
    }
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      const int64_t r1 = r0 + kTile < rows ? r0 + kTile : rows;
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = c0 + kTile < cols ? c0 + kTile : cols;
        for (int64_t r = r0; r < r1; ++r) {
          T* f = contiguous + fo + r * row_flat;
          T* s = strided + so + r;  // stride of dim p is 1
          for (int64_t c = c0; c < c1; ++c) {
            if (kGather)
              f[c] = s[c * col_stride];
            else
              s[c * col_stride] = f[c];
          }
        }
      }
    }
    for (int32_t d = last - 1; d >= 0; --d) {  // odometer over the dims other than p and last
      if (d == p) continue;
      if (++idx[d] < v.size[d]) break;
      idx[d] = 0;
    }
  }
}

// Copy between a collapsed strided view (at `base`) and a contiguous buffer.
template <typename T, bool kGather>
void copy_strided(char* base, const pn::ShardView& v, char* flat) {
  T* strided = reinterpret_cast<T*>(base) + v.offset;
  T* contiguous = reinterpret_cast<T*>(flat);
  const int32_t last = v.ndim - 1;
  const int64_t inner = v.size[last], inner_stride = v.stride[last];
  if (inner_stride != 1) {
    for (int32_t p = 0; p < last; ++p)
      if (v.stride[p] == 1) return copy_tiled<T, kGather>(strided, v, contiguous, p);
  }
  int64_t idx[PN_MAX_DIMS] = {};
  int64_t outer = v.numel / inner;
  int64_t off = 0;  // element offset of the current row, kept in step with the odometer
  for (int64_t row = 0; row < outer; ++row) {
    T* s = strided + off;
    if (inner_stride == 1) {
      if (kGather)
        std::memcpy(contiguous, s, sizeof(T) * inner);
      else
        std::memcpy(s, contiguous, sizeof(T) * inner);
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        if (kGather)
          contiguous[i] = s[i * inner_stride];
        else
          s[i * inner_stride] = contiguous[i];
      }
    }
    contiguous += inner;
    for (int32_t d = last - 1; d >= 0; --d) {  // odometer over the outer dims
      off += v.stride[d];
      if (++idx[d] < v.size[d]) break;
      off -= v.stride[d] * v.size[d];
      idx[d] = 0;
    }
  }
}

template <bool kGather>
void dispatch(char* base, const pn::ShardView& v, int32_t elem_size, char* flat) {
  switch (elem_size) {
    case 1: copy_strided<uint8_t, kGather>(base, v, flat); break;
    case 2: copy_strided<uint16_t, kGather>(base, v, flat); break;
    case 4: copy_strided<uint32_t, kGather>(base, v, flat); break;
    case 8: copy_strided<uint64_t, kGather>(base, v, flat); break;
    default: copy_strided<Bytes16, kGather>(base, v, flat); break;
  }
}

template <bool kGather>
pn_status run(char* base, const pn::ShardView& v, int32_t elem_size, char* flat) {
  if (v.numel == 0) return PN_OK;
  if (v.ndim == 0) {  // one element
    if (kGather)
      std::memcpy(flat, base + v.offset * elem_size, elem_size);
    else
      std::memcpy(base + v.offset * elem_size, flat, elem_size);
    return PN_OK;
  }
  // Large shards: split the outermost collapsed dim across threads; each part is a sub-view.
  const int64_t per = v.numel / v.size[0];
  parallel_for(v.size[0], threads_for(v.numel * elem_size), [&](int64_t b, int64_t e) {
    pn::ShardView sub = v;
    sub.size[0] = e - b;
    sub.offset = v.offset + b * v.stride[0];
    sub.numel = per * (e - b);
    dispatch<kGather>(base, sub, elem_size, flat + b * per * elem_size);
  });
  return PN_OK;
}

// Reduction over K buffers, accumulating in Acc; Load/Store convert storage <-> Acc. Works in
// blocks so that each pass over one buffer is a simple loop the compiler vectorises, while
// every element still sums its K values in buffer order (bit-exact with a sequential reference).
template <typename Acc>
inline Acc max_nan(Acc acc, Acc x) {  // NaN propagates, like torch.max
  return (acc != acc) ? acc : ((x != x || x > acc) ? x : acc);
}

template <typename T, typename Acc, typename Load, typename Store>
void reduce_typed(const void* const* bufs, int32_t k, int64_t begin, int64_t end, int32_t op, void* out, Load load,
                  Store store) {
  constexpr int64_t kBlock = 2048;
  Acc acc[kBlock];
  T* o = static_cast<T*>(out);
  for (int64_t base = begin; base < end; base += kBlock) {
    const int64_t m = end - base < kBlock ? end - base : kBlock;
    const T* b0 = static_cast<const T*>(bufs[0]) + base;
    for (int64_t i = 0; i < m; ++i) acc[i] = load(b0[i]);
    for (int32_t j = 1; j < k; ++j) {
      const T* bj = static_cast<const T*>(bufs[j]) + base;
      if (op == PN_OP_MAX) {
        for (int64_t i = 0; i < m; ++i) acc[i] = max_nan<Acc>(acc[i], load(bj[i]));
      } else {
        for (int64_t i = 0; i < m; ++i) acc[i] = static_cast<Acc>(acc[i] + load(bj[i]));
      }
    }
    if (op == PN_OP_AVG)
      for (int64_t i = 0; i < m; ++i) acc[i] = static_cast<Acc>(acc[i] / static_cast<Acc>(k));
    for (int64_t i = 0; i < m; ++i) o[base + i] = store(acc[i]);
  }
}

template <typename T>
void reduce_plain(const void* const* bufs, int32_t k, int64_t begin, int64_t end, int32_t op, void* out) {
  using Acc = T;
  reduce_typed<T, Acc>(bufs, k, begin, end, op, out, [](T x) { return x; }, [](Acc x) { return static_cast<T>(x); });
}

void reduce_range(const void* const* bufs, int32_t k, int64_t b, int64_t e, int32_t dtype, int32_t op, void* out) {
  switch (dtype) {
    case PN_DT_F32:
      reduce_typed<float, float>(bufs, k, b, e, op, out, [](float x) { return x; }, [](float x) { return x; });
      break;
    case PN_DT_F64: reduce_plain<double>(bufs, k, b, e, op, out); break;
    case PN_DT_F16:
      reduce_typed<uint16_t, float>(bufs, k, b, e, op, out, pn::f16_to_float, pn::float_to_f16);
      break;
    case PN_DT_BF16:
      reduce_typed<uint16_t, float>(bufs, k, b, e, op, out, pn::bf16_to_float, pn::float_to_bf16);
      break;
    case PN_DT_I32:
      reduce_typed<int32_t, int64_t>(bufs, k, b, e, op, out, [](int32_t x) { return int64_t(x); },
                                     [](int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); });
      break;
    case PN_DT_I64:
      if (op == PN_OP_MAX)
        reduce_plain<int64_t>(bufs, k, b, e, op, out);
      else  // accumulate in uint64: wraps like torch instead of signed-overflow UB
        reduce_typed<int64_t, uint64_t>(bufs, k, b, e, op, out, [](int64_t x) { return static_cast<uint64_t>(x); },
                                        [](uint64_t x) { return static_cast<int64_t>(x); });
      break;
    case PN_DT_U8: reduce_typed<uint8_t, uint64_t>(bufs, k, b, e, op, out, [](uint8_t x) { return uint64_t(x); },
                                                   [](uint64_t x) { return static_cast<uint8_t>(x); });
      break;
    case PN_DT_I8:
      reduce_typed<int8_t, int64_t>(bufs, k, b, e, op, out, [](int8_t x) { return int64_t(x); },
                                    [](int64_t x) { return static_cast<int8_t>(static_cast<uint8_t>(x)); });
      break;
    case PN_DT_I16:
      reduce_typed<int16_t, int64_t>(bufs, k, b, e, op, out, [](int16_t x) { return int64_t(x); },
                                     [](int64_t x) { return static_cast<int16_t>(static_cast<uint16_t>(x)); });
      break;
    default: break;
  }
}

}  // namespace

extern "C" {

PN_API pn_status pn_gather_shard(const void* src, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                 int32_t elem_size, int32_t dim, int64_t start, int64_t length, void* staging,
                                 void*) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(src, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK) return st;
  return run<true>(static_cast<char*>(const_cast<void*>(src)), v, elem_size, static_cast<char*>(staging));
}

PN_API pn_status pn_scatter_shard(void* dst, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                  int32_t elem_size, int32_t dim, int64_t start, int64_t length,
                                  const void* staging, void*) {
  pn::ShardView v;
  pn_status st = pn::make_shard_view(dst, staging, ndim, sizes, strides, elem_size, dim, start, length, &v);
  if (st != PN_OK) return st;
  return run<false>(static_cast<char*>(dst), v, elem_size, static_cast<char*>(const_cast<void*>(staging)));
}

PN_API pn_status pn_reduce(const void* const* bufs, int32_t k, int64_t n, int32_t dtype, int32_t op, void* out,
                           void*) {
  pn_status st = pn::check_reduce_args(bufs, k, n, dtype, op, out);
  if (st != PN_OK || n == 0) return st;
  static const int32_t kElemSize[] = {4, 8, 2, 2, 4, 8, 1, 1, 2};
  parallel_for(n, threads_for(n * kElemSize[dtype] * (k + 1)), [&](int64_t b, int64_t e) {
    reduce_range(bufs, k, b, e, dtype, op, out);
  });
  return PN_OK;
}

PN_API pn_status pn_stream_synchronize(void*) { return PN_OK; }

}  // extern "C"
