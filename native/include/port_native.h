/* port_native.h: the C ABI of rocm-port's native layer (schema 1).
 *
 * One ABI for every build path (cuda, native-hip, hipified-cuda, cpu). Every function
 * returns a pn_status (0 = ok); on failure pn_last_error() returns a one-line message
 * for the calling thread. Nothing here aborts the process on bad input.
 */
#ifndef PORT_NATIVE_H
#define PORT_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PN_API __declspec(dllexport)
#else
#define PN_API __attribute__((visibility("default")))
#endif

#define PN_ABI_VERSION 1

typedef enum {
  PN_OK = 0,
  PN_ERR_INVALID = 1,       /* bad argument (null, negative, unknown enum) */
  PN_ERR_NO_DEVICE = 2,     /* the runtime has no usable device */
  PN_ERR_RUNTIME = 3,       /* the GPU runtime (or OS) reported an error */
  PN_ERR_NOT_FOUND = 4,     /* unknown segment key or event id */
  PN_ERR_BOUNDS = 5,        /* offset/length outside a segment or tensor */
  PN_ERR_OVERLAP = 6,       /* a new segment overlaps a registered one */
  PN_ERR_ALIGNMENT = 7,     /* pointer/offset not aligned to the element size */
  PN_ERR_UNSUPPORTED = 8    /* not available on this backend */
} pn_status;

typedef enum { PN_MEM_UNKNOWN = 0, PN_MEM_HOST = 1, PN_MEM_DEVICE = 2, PN_MEM_MANAGED = 3 } pn_memory_kind;

typedef enum {
  PN_DT_F32 = 0, PN_DT_F64 = 1, PN_DT_F16 = 2, PN_DT_BF16 = 3,
  PN_DT_I32 = 4, PN_DT_I64 = 5, PN_DT_U8 = 6, PN_DT_I8 = 7, PN_DT_I16 = 8
} pn_dtype;

typedef enum { PN_OP_SUM = 0, PN_OP_AVG = 1, PN_OP_MAX = 2 } pn_reduce_op;

#define PN_MAX_DIMS 16
#define PN_PCI_BUS_ID_LEN 32
#define PN_HANDLE_BYTES 128

typedef struct {
  int32_t kind;                         /* pn_memory_kind */
  int32_t device;                       /* device ordinal, -1 for host */
  char pci_bus_id[PN_PCI_BUS_ID_LEN];   /* owning device's PCI bus id, "" for host */
} pn_pointer_info;

typedef struct {
  int32_t kind;                         /* 1 = GPU IPC memory handle, 2 = POSIX shared memory */
  int32_t device;
  uint64_t size;
  uint64_t offset;                      /* offset of the segment inside the exported allocation */
  unsigned char bytes[PN_HANDLE_BYTES]; /* IPC handle, or the NUL-terminated shm name */
} pn_export_handle;

typedef struct pn_registry pn_registry;
typedef struct pn_engine pn_engine;

/* -- library ------------------------------------------------------------------------ */
PN_API int pn_abi_version(void);
PN_API const char* pn_backend_name(void);        /* "cpu" | "cuda" | "hip" */
PN_API const char* pn_build_path(void);          /* the `port build` path it was built for */
PN_API const char* pn_last_error(void);
PN_API pn_status pn_device_count(int32_t* count); /* PN_ERR_NO_DEVICE when none */
/* Host threads the cpu path may use for one copy/reduce above 4 MiB (default 1; <= 0: one per core). */
PN_API void pn_set_num_threads(int32_t threads);
PN_API int32_t pn_get_num_threads(void);

/* -- pointer classification ------------------------------------------------------------ */
PN_API pn_status pn_classify_pointer(const void* ptr, pn_pointer_info* out);

/* -- registry ------------------------------------------------------------------------ */
PN_API pn_status pn_registry_create(pn_registry** out);
PN_API void pn_registry_destroy(pn_registry* reg);
/* elem_size: alignment unit of the segment (1 for raw bytes). */
PN_API pn_status pn_register(pn_registry* reg, void* ptr, uint64_t size, uint32_t elem_size, uint64_t* key);
PN_API pn_status pn_deregister(pn_registry* reg, uint64_t key);
PN_API pn_status pn_segment(pn_registry* reg, uint64_t key, void** ptr, uint64_t* size, pn_pointer_info* info);
PN_API pn_status pn_segment_count(pn_registry* reg, uint64_t* count);
/* Allocate `size` bytes that can be exported (shared memory on cpu, device memory on GPU). */
PN_API pn_status pn_alloc_exportable(pn_registry* reg, uint64_t size, uint32_t elem_size, void** ptr, uint64_t* key);
PN_API pn_status pn_export(pn_registry* reg, uint64_t key, pn_export_handle* out);
/* Map a handle exported by another registry (any process on this node) and register it. */
PN_API pn_status pn_import(pn_registry* reg, const pn_export_handle* handle, uint32_t elem_size, void** ptr,
                           uint64_t* key);

/* -- copy engine ------------------------------------------------------------------------ */
PN_API pn_status pn_engine_create(pn_registry* reg, pn_engine** out);
PN_API void pn_engine_destroy(pn_engine* eng);
/* Copy nbytes from (src_key, src_off) to (dst_key, dst_off) on the engine's stream.
 * Returns an event id that completes when the copy has landed. */
PN_API pn_status pn_engine_copy(pn_engine* eng, uint64_t dst_key, uint64_t dst_off, uint64_t src_key,
                                uint64_t src_off, uint64_t nbytes, uint64_t* event);
PN_API pn_status pn_event_query(pn_engine* eng, uint64_t event, int32_t* done);
PN_API pn_status pn_event_wait(pn_engine* eng, uint64_t event);
PN_API pn_status pn_engine_synchronize(pn_engine* eng);

/* -- shard kernels -------------------------------------------------------------------------
 * A tensor view is (data, ndim, sizes, strides in elements, elem_size). The shard is the
 * slice [start, start+length) of dimension `dim`. Gather copies it into the contiguous
 * buffer `staging`; scatter copies `staging` back into the slice. `stream` is a
 * cudaStream_t/hipStream_t (NULL = default stream; ignored on cpu). */
PN_API pn_status pn_gather_shard(const void* src, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                 int32_t elem_size, int32_t dim, int64_t start, int64_t length,
                                 void* staging, void* stream);
PN_API pn_status pn_scatter_shard(void* dst, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                                  int32_t elem_size, int32_t dim, int64_t start, int64_t length,
                                  const void* staging, void* stream);
/* out[i] = op(bufs[0][i], ..., bufs[k-1][i]) for i < n; avg needs a floating dtype. */
PN_API pn_status pn_reduce(const void* const* bufs, int32_t k, int64_t n, int32_t dtype, int32_t op, void* out,
                           void* stream);
PN_API pn_status pn_stream_synchronize(void* stream);

#ifdef __cplusplus
}
#endif
#endif /* PORT_NATIVE_H */
