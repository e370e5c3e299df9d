// port emulate: cooperative groups at block and warp scope, over the runtime's barrier and warp
// collectives (so every group operation meets in lockstep like the intrinsics it is made of).
// A grid group gives ranks and sizes; its sync and multi-grid groups are refused (docs/emulate.md).
#pragma once
#include "emu_runtime.h"

namespace cooperative_groups {
namespace details {
EMU_INL unsigned linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
EMU_INL unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
EMU_INL unsigned lane() { return linear_tid() % EMU_WARP; }
EMU_INL unsigned long long tile_mask(unsigned n) {
  if (n == 0 || n > (unsigned)EMU_WARP || (n & (n - 1)) != 0) emu::fault("a thread block tile must be a power of two no wider than the warp");
  unsigned base = lane() / n * n;
  return (n == 64 ? ~0ull : ((1ull << n) - 1)) << base;
}
// the bits of `m` gathered into the low bits, in lane order (ballots of a group are by rank)
EMU_INL unsigned long long compact(unsigned long long bits, unsigned long long m) {
  unsigned long long out = 0;
  int k = 0;
  for (int l = 0; l < 64; ++l)
    if (m & (1ull << l)) out |= ((bits >> l) & 1ull) << k++;
  return out;
}
EMU_INL int nth_lane(unsigned long long m, unsigned rank) {
  for (int l = 0; l < 64; ++l)
    if ((m & (1ull << l)) && rank-- == 0) return l;
  return -1;
}
}  // namespace details

// Every group is a thread_group (CUDA's hierarchy: a function taking `const thread_group&` accepts a
// block, a tile or a coalesced group): the base knows its kind and dispatches sync/rank/size.
class thread_group {
 public:
  EMU_INL explicit thread_group(unsigned n) : kind_(TILE), n_(n), m_(0) {}
  EMU_INL void sync() const {
    if (kind_ == BLOCK) __syncthreads();
    else if (kind_ == COALESCED) __syncwarp(m_);
    else __syncwarp(details::tile_mask(n_));
  }
  EMU_INL unsigned long long thread_rank() const {
    if (kind_ == BLOCK) return details::linear_tid();
    if (kind_ == COALESCED) return __popcll(m_ & ((1ull << details::lane()) - 1));
    return details::lane() % n_;
  }
  EMU_INL unsigned long long size() const {
    if (kind_ == BLOCK) return details::block_threads();
    if (kind_ == COALESCED) return __popcll(m_);
    return n_;
  }
  EMU_INL unsigned long long num_threads() const { return size(); }
  EMU_INL bool is_valid() const { return true; }

 protected:
  enum Kind { BLOCK, TILE, COALESCED };
  EMU_INL thread_group(Kind k, unsigned n, unsigned long long m) : kind_(k), n_(n), m_(m) {}
  Kind kind_;
  unsigned n_;
  unsigned long long m_;
};

class thread_block : public thread_group {
 public:
  EMU_INL thread_block() : thread_group(BLOCK, 0, 0) {}
  EMU_INL void sync() const { __syncthreads(); }
  EMU_INL unsigned long long thread_rank() const { return details::linear_tid(); }
  EMU_INL unsigned long long size() const { return details::block_threads(); }
  EMU_INL unsigned long long num_threads() const { return details::block_threads(); }
  EMU_INL dim3 group_index() const { return blockIdx; }
  EMU_INL dim3 thread_index() const { return threadIdx; }
  EMU_INL dim3 group_dim() const { return blockDim; }
  EMU_INL dim3 dim_threads() const { return blockDim; }
};
EMU_INL thread_block this_thread_block() { return thread_block(); }
// Scratch for tiles wider than a warp on CUDA 11+; tiles here are at most a warp, so it holds nothing.
template <unsigned... Sizes> struct block_tile_memory {};
template <unsigned... Sizes> EMU_INL thread_block this_thread_block(block_tile_memory<Sizes...>&) { return thread_block(); }

// The whole grid, for what needs no grid-wide barrier (ranks, sizes). grid.sync() needs every
// block resident at once, which blocks run one after another do not give: it stops the run as
// unsupported (the refusal scan names it first when it sees it).
class grid_group {
 public:
  EMU_INL unsigned long long thread_rank() const {
    unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    return block * details::block_threads() + details::linear_tid();
  }
  EMU_INL unsigned long long size() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * details::block_threads();
  }
  EMU_INL unsigned long long num_threads() const { return size(); }
  EMU_INL unsigned long long block_rank() const { return thread_rank() / details::block_threads(); }
  EMU_INL unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
  EMU_INL dim3 group_dim() const { return gridDim; }
  EMU_INL dim3 block_index() const { return blockIdx; }
  EMU_INL bool is_valid() const { return true; }
  EMU_INL void sync() const { emu::unsupported("cooperative groups grid sync (grid_group::sync)"); }
};
EMU_INL grid_group this_grid() { return grid_group(); }

template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "tile size: a power of two");  // wider than the warp: a fault if used

 public:
  EMU_INL thread_block_tile() : thread_group(N) { details::tile_mask(N); }
  EMU_INL unsigned long long meta_group_rank() const { return details::linear_tid() / N; }
  EMU_INL unsigned long long meta_group_size() const { return (details::block_threads() + N - 1) / N; }
  template <class T> EMU_INL T shfl(T v, int src) const { return emu::exchange("thread_block_tile::shfl", emu::SHFL_IDX, 1, details::tile_mask(N), v, src, N); }
  template <class T> EMU_INL T shfl_up(T v, unsigned d) const { return emu::exchange("thread_block_tile::shfl_up", emu::SHFL_UP, 1, details::tile_mask(N), v, (int)d, N); }
  template <class T> EMU_INL T shfl_down(T v, unsigned d) const { return emu::exchange("thread_block_tile::shfl_down", emu::SHFL_DOWN, 1, details::tile_mask(N), v, (int)d, N); }
  template <class T> EMU_INL T shfl_xor(T v, unsigned x) const { return emu::exchange("thread_block_tile::shfl_xor", emu::SHFL_XOR, 1, details::tile_mask(N), v, (int)x, N); }
  EMU_INL int any(int p) const { return (int)emu::vote("thread_block_tile::any", emu::ANY, 1, details::tile_mask(N), p); }
  EMU_INL int all(int p) const { return (int)emu::vote("thread_block_tile::all", emu::ALL, 1, details::tile_mask(N), p); }
  EMU_INL unsigned long long ballot(int p) const {
    unsigned long long m = details::tile_mask(N);
    return details::compact(emu::vote("thread_block_tile::ballot", emu::BALLOT, 1, m, p), m);
  }
};

template <unsigned N, class Parent> EMU_INL thread_block_tile<N> tiled_partition(const Parent&) { return thread_block_tile<N>(); }
EMU_INL thread_group tiled_partition(const thread_group&, unsigned n) { details::tile_mask(n); return thread_group(n); }

// The lanes active where it was created, ranked in lane order.
class coalesced_group : public thread_group {
 public:
  EMU_INL explicit coalesced_group(unsigned long long m) : thread_group(COALESCED, 0, m) {}
  EMU_INL unsigned long long thread_rank() const { return __popcll(m_ & ((1ull << details::lane()) - 1)); }
  EMU_INL unsigned long long size() const { return __popcll(m_); }
  EMU_INL unsigned long long num_threads() const { return __popcll(m_); }
  EMU_INL void sync() const { __syncwarp(m_); }
  template <class T> EMU_INL T shfl(T v, unsigned rank) const {
    return emu::exchange("coalesced_group::shfl", emu::SHFL_IDX, 1, m_, v, details::nth_lane(m_, rank), EMU_WARP);
  }
  EMU_INL int any(int p) const { return (int)emu::vote("coalesced_group::any", emu::ANY, 1, m_, p); }
  EMU_INL int all(int p) const { return (int)emu::vote("coalesced_group::all", emu::ALL, 1, m_, p); }
  EMU_INL unsigned long long ballot(int p) const {
    return details::compact(emu::vote("coalesced_group::ballot", emu::BALLOT, 1, m_, p), m_);
  }

};
EMU_INL coalesced_group coalesced_threads() { return coalesced_group(emu::vote("coalesced_threads", emu::ACTIVEMASK, 0, 0, 1)); }

template <class G> EMU_INL void sync(const G& g) { g.sync(); }

template <class T> struct plus { EMU_INL T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { EMU_INL T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { EMU_INL T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { EMU_INL T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { EMU_INL T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { EMU_INL T operator()(const T& a, const T& b) const { return a ^ b; } };

// cg::reduce / inclusive_scan / exclusive_scan over a tile, by shuffles within the tile
template <unsigned N, class T, class Op> EMU_INL T reduce(const thread_block_tile<N>& g, T v, Op op) {
  for (unsigned o = N / 2; o > 0; o /= 2) v = op(v, g.shfl_xor(v, o));
  return v;
}
template <unsigned N, class T, class Op> EMU_INL T inclusive_scan(const thread_block_tile<N>& g, T v, Op op) {
  for (unsigned o = 1; o < N; o *= 2) {
    T up = g.shfl_up(v, o);
    if (g.thread_rank() >= o) v = op(v, up);
  }
  return v;
}
template <unsigned N, class T> EMU_INL T inclusive_scan(const thread_block_tile<N>& g, T v) { return inclusive_scan(g, v, plus<T>()); }
template <unsigned N, class T, class Op> EMU_INL T exclusive_scan(const thread_block_tile<N>& g, T v, Op op) {
  T inc = inclusive_scan(g, v, op);
  T prev = g.shfl_up(inc, 1);
  return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned N, class T> EMU_INL T exclusive_scan(const thread_block_tile<N>& g, T v) { return exclusive_scan(g, v, plus<T>()); }
}  // namespace cooperative_groups
