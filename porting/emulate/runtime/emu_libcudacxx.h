// rocm-port `port emulate`: libcu++ (CCCL's libcudacxx) for host-side emulation: cuda::std and
// cuda::atomic / atomic_ref / atomic_thread_fence, compiled from CCCL's own headers. Force-included
// after emu_runtime.h when a file includes <cuda/...> (build.py), so each public header is read
// here first, while __CUDACC__, __CUDA_ARCH__ and __NVCC__ are hidden: CCCL then takes its host
// paths (GCC atomics, no PTX), which is what the emulated threads need, since they are fibers of
// one OS thread. The program's own #include <cuda/...> lines find the include guards already set.
// The synchronization primitives (cuda::barrier, pipeline, latch, semaphores, memcpy_async) are
// refused before this is reached (refuse.py): they wait by spinning, which no other fiber can end.
#pragma once
#pragma push_macro("__CUDACC__")
#pragma push_macro("__CUDA_ARCH__")
#pragma push_macro("__NVCC__")
#undef __CUDACC__
#undef __CUDA_ARCH__
#undef __NVCC__
#if __has_include(<cuda/atomic>)
#include <cuda/atomic>
#endif
#if __has_include(<cuda/std/atomic>)
#include <cuda/std/atomic>
#endif
#if __has_include(<cuda/std/array>)
#include <cuda/std/array>
#endif
#if __has_include(<cuda/std/utility>)
#include <cuda/std/utility>
#endif
#if __has_include(<cuda/std/type_traits>)
#include <cuda/std/type_traits>
#endif
#if __has_include(<cuda/std/limits>)
#include <cuda/std/limits>
#endif
#if __has_include(<cuda/std/cstdint>)
#include <cuda/std/cstdint>
#endif
#if __has_include(<cuda/std/cstddef>)
#include <cuda/std/cstddef>
#endif
#if __has_include(<cuda/std/climits>)
#include <cuda/std/climits>
#endif
#if __has_include(<cuda/std/tuple>)
#include <cuda/std/tuple>
#endif
#if __has_include(<cuda/std/functional>)
#include <cuda/std/functional>
#endif
#if __has_include(<cuda/std/bit>)
#include <cuda/std/bit>
#endif
#if __has_include(<cuda/std/span>)
#include <cuda/std/span>
#endif
#if __has_include(<cuda/std/optional>)
#include <cuda/std/optional>
#endif
#if __has_include(<cuda/std/variant>)
#include <cuda/std/variant>
#endif
#if __has_include(<cuda/std/complex>)
#include <cuda/std/complex>
#endif
#if __has_include(<cuda/std/cmath>)
#include <cuda/std/cmath>
#endif
#if __has_include(<cuda/std/ratio>)
#include <cuda/std/ratio>
#endif
#if __has_include(<cuda/std/chrono>)
#include <cuda/std/chrono>
#endif
#if __has_include(<cuda/std/cassert>)
#include <cuda/std/cassert>
#endif
#if __has_include(<cuda/std/iterator>)
#include <cuda/std/iterator>
#endif
#if __has_include(<cuda/std/algorithm>)
#include <cuda/std/algorithm>
#endif
#if __has_include(<cuda/std/numeric>)
#include <cuda/std/numeric>
#endif
#if __has_include(<cuda/std/mdspan>)
#include <cuda/std/mdspan>
#endif
#if __has_include(<cuda/std/expected>)
#include <cuda/std/expected>
#endif
#if __has_include(<cuda/std/bitset>)
#include <cuda/std/bitset>
#endif
#if __has_include(<cuda/std/inplace_vector>)
#include <cuda/std/inplace_vector>
#endif
#if __has_include(<cuda/std/initializer_list>)
#include <cuda/std/initializer_list>
#endif
#if __has_include(<cuda/std/memory>)
#include <cuda/std/memory>
#endif
#if __has_include(<cuda/std/concepts>)
#include <cuda/std/concepts>
#endif
#if __has_include(<cuda/std/cstdlib>)
#include <cuda/std/cstdlib>
#endif
#if __has_include(<cuda/std/cstring>)
#include <cuda/std/cstring>
#endif
#if __has_include(<cuda/std/string_view>)
#include <cuda/std/string_view>
#endif
#if __has_include(<cuda/functional>)
#include <cuda/functional>
#endif
#if __has_include(<cuda/cmath>)
#include <cuda/cmath>
#endif
#if __has_include(<cuda/memory>)
#include <cuda/memory>
#endif
#if __has_include(<cuda/iterator>)
#include <cuda/iterator>
#endif
#if __has_include(<cuda/type_traits>)
#include <cuda/type_traits>
#endif
#if __has_include(<cuda/utility>)
#include <cuda/utility>
#endif
#if __has_include(<cuda/std/numbers>)
#include <cuda/std/numbers>
#endif
#pragma pop_macro("__NVCC__")
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("__CUDACC__")
