// rocm-port `port emulate`: Thrust, compiled from CCCL's own headers with its CPP device system
// (THRUST_DEVICE_SYSTEM_CPP, set by port emulate when a file includes <thrust/...>). Force-included
// after emu_runtime.h, so every public Thrust header is read here first, while __CUDACC__ and
// __CUDA_ARCH__ are hidden: CCCL would otherwise take this single host compilation for nvcc's
// and check the toolkit version, select device code paths and CUDA's extended float types. The
// program's own #include <thrust/...> lines then find the include guards already set.
// device_vector storage is host memory (operator new), as is cudaMalloc's here, so emulated
// kernels read and write it through thrust::raw_pointer_cast, and a device_ptr built over
// cudaMalloc'd memory is plain host memory to Thrust's algorithms.
#pragma once
#pragma push_macro("__CUDACC__")
#pragma push_macro("__CUDA_ARCH__")
#pragma push_macro("__NVCC__")
#undef __CUDACC__
#undef __CUDA_ARCH__
#undef __NVCC__
#if __has_include(<thrust/addressof.h>)
#include <thrust/addressof.h>
#endif
#if __has_include(<thrust/adjacent_difference.h>)
#include <thrust/adjacent_difference.h>
#endif
#if __has_include(<thrust/advance.h>)
#include <thrust/advance.h>
#endif
#if __has_include(<thrust/allocate_unique.h>)
#include <thrust/allocate_unique.h>
#endif
#if __has_include(<thrust/binary_search.h>)
#include <thrust/binary_search.h>
#endif
#if __has_include(<thrust/complex.h>)
#include <thrust/complex.h>
#endif
#if __has_include(<thrust/copy.h>)
#include <thrust/copy.h>
#endif
#if __has_include(<thrust/count.h>)
#include <thrust/count.h>
#endif
#if __has_include(<thrust/device_allocator.h>)
#include <thrust/device_allocator.h>
#endif
#if __has_include(<thrust/device_delete.h>)
#include <thrust/device_delete.h>
#endif
#if __has_include(<thrust/device_free.h>)
#include <thrust/device_free.h>
#endif
#if __has_include(<thrust/device_make_unique.h>)
#include <thrust/device_make_unique.h>
#endif
#if __has_include(<thrust/device_malloc.h>)
#include <thrust/device_malloc.h>
#endif
#if __has_include(<thrust/device_malloc_allocator.h>)
#include <thrust/device_malloc_allocator.h>
#endif
#if __has_include(<thrust/device_new.h>)
#include <thrust/device_new.h>
#endif
#if __has_include(<thrust/device_new_allocator.h>)
#include <thrust/device_new_allocator.h>
#endif
#if __has_include(<thrust/device_ptr.h>)
#include <thrust/device_ptr.h>
#endif
#if __has_include(<thrust/device_reference.h>)
#include <thrust/device_reference.h>
#endif
#if __has_include(<thrust/device_vector.h>)
#include <thrust/device_vector.h>
#endif
#if __has_include(<thrust/distance.h>)
#include <thrust/distance.h>
#endif
#if __has_include(<thrust/equal.h>)
#include <thrust/equal.h>
#endif
#if __has_include(<thrust/execution_policy.h>)
#include <thrust/execution_policy.h>
#endif
#if __has_include(<thrust/extrema.h>)
#include <thrust/extrema.h>
#endif
#if __has_include(<thrust/fill.h>)
#include <thrust/fill.h>
#endif
#if __has_include(<thrust/find.h>)
#include <thrust/find.h>
#endif
#if __has_include(<thrust/for_each.h>)
#include <thrust/for_each.h>
#endif
#if __has_include(<thrust/functional.h>)
#include <thrust/functional.h>
#endif
#if __has_include(<thrust/gather.h>)
#include <thrust/gather.h>
#endif
#if __has_include(<thrust/generate.h>)
#include <thrust/generate.h>
#endif
#if __has_include(<thrust/host_vector.h>)
#include <thrust/host_vector.h>
#endif
#if __has_include(<thrust/inner_product.h>)
#include <thrust/inner_product.h>
#endif
#if __has_include(<thrust/logical.h>)
#include <thrust/logical.h>
#endif
#if __has_include(<thrust/memory.h>)
#include <thrust/memory.h>
#endif
#if __has_include(<thrust/merge.h>)
#include <thrust/merge.h>
#endif
#if __has_include(<thrust/mismatch.h>)
#include <thrust/mismatch.h>
#endif
#if __has_include(<thrust/pair.h>)
#include <thrust/pair.h>
#endif
#if __has_include(<thrust/partition.h>)
#include <thrust/partition.h>
#endif
#if __has_include(<thrust/per_device_resource.h>)
#include <thrust/per_device_resource.h>
#endif
#if __has_include(<thrust/random.h>)
#include <thrust/random.h>
#endif
#if __has_include(<thrust/reduce.h>)
#include <thrust/reduce.h>
#endif
#if __has_include(<thrust/remove.h>)
#include <thrust/remove.h>
#endif
#if __has_include(<thrust/replace.h>)
#include <thrust/replace.h>
#endif
#if __has_include(<thrust/reverse.h>)
#include <thrust/reverse.h>
#endif
#if __has_include(<thrust/scan.h>)
#include <thrust/scan.h>
#endif
#if __has_include(<thrust/scatter.h>)
#include <thrust/scatter.h>
#endif
#if __has_include(<thrust/sequence.h>)
#include <thrust/sequence.h>
#endif
#if __has_include(<thrust/set_operations.h>)
#include <thrust/set_operations.h>
#endif
#if __has_include(<thrust/shuffle.h>)
#include <thrust/shuffle.h>
#endif
#if __has_include(<thrust/sort.h>)
#include <thrust/sort.h>
#endif
#if __has_include(<thrust/swap.h>)
#include <thrust/swap.h>
#endif
#if __has_include(<thrust/system_error.h>)
#include <thrust/system_error.h>
#endif
#if __has_include(<thrust/tabulate.h>)
#include <thrust/tabulate.h>
#endif
#if __has_include(<thrust/transform.h>)
#include <thrust/transform.h>
#endif
#if __has_include(<thrust/transform_reduce.h>)
#include <thrust/transform_reduce.h>
#endif
#if __has_include(<thrust/transform_scan.h>)
#include <thrust/transform_scan.h>
#endif
#if __has_include(<thrust/tuple.h>)
#include <thrust/tuple.h>
#endif
#if __has_include(<thrust/uninitialized_copy.h>)
#include <thrust/uninitialized_copy.h>
#endif
#if __has_include(<thrust/uninitialized_fill.h>)
#include <thrust/uninitialized_fill.h>
#endif
#if __has_include(<thrust/unique.h>)
#include <thrust/unique.h>
#endif
#if __has_include(<thrust/universal_allocator.h>)
#include <thrust/universal_allocator.h>
#endif
#if __has_include(<thrust/universal_ptr.h>)
#include <thrust/universal_ptr.h>
#endif
#if __has_include(<thrust/universal_vector.h>)
#include <thrust/universal_vector.h>
#endif
#if __has_include(<thrust/version.h>)
#include <thrust/version.h>
#endif
#if __has_include(<thrust/zip_function.h>)
#include <thrust/zip_function.h>
#endif
#if __has_include(<thrust/iterator/constant_iterator.h>)
#include <thrust/iterator/constant_iterator.h>
#endif
#if __has_include(<thrust/iterator/counting_iterator.h>)
#include <thrust/iterator/counting_iterator.h>
#endif
#if __has_include(<thrust/iterator/discard_iterator.h>)
#include <thrust/iterator/discard_iterator.h>
#endif
#if __has_include(<thrust/iterator/permutation_iterator.h>)
#include <thrust/iterator/permutation_iterator.h>
#endif
#if __has_include(<thrust/iterator/reverse_iterator.h>)
#include <thrust/iterator/reverse_iterator.h>
#endif
#if __has_include(<thrust/iterator/transform_iterator.h>)
#include <thrust/iterator/transform_iterator.h>
#endif
#if __has_include(<thrust/iterator/zip_iterator.h>)
#include <thrust/iterator/zip_iterator.h>
#endif
#pragma pop_macro("__NVCC__")
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("__CUDACC__")
