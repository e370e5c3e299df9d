"""Curated porting knowledge that hipify's tables do not carry, each entry with its source.

Kept small on purpose; extend with a source for every line.
"""

from __future__ import annotations

import re

# CUDA-only libraries: (name, identifier regex, header regex, ROCm counterpart, source)
LIBRARIES: tuple[tuple[str, str, str, str, str], ...] = (
    ("NVML", r"nvml[A-Z]\w*", r"nvml\.h", "amd-smi (libamd_smi; or rocm-smi)",
     "https://rocm.docs.amd.com/projects/amdsmi/en/latest/"),
    ("cuDNN", r"cudnn[A-Z]\w*|CUDNN_\w+", r"cudnn(?:_\w+)?\.h", "MIOpen",
     "https://rocm.docs.amd.com/projects/MIOpen/en/latest/"),
    ("NVSHMEM", r"nvshmemx?_\w+|NVSHMEM_\w+", r"nvshmemx?\.h", "rocSHMEM",
     "https://rocm.docs.amd.com/projects/rocSHMEM/en/latest/"),
    ("cuFile (GPUDirect Storage)", r"cuFile[A-Z]\w*|CU_FILE_\w+", r"cufile\.h", "hipFile",
     "https://github.com/ROCm/hipFile"),
    ("CUTLASS/CuTe", r"(?:cutlass|cute)::", r"(?:cutlass|cute)/[\w/.]+", "Composable Kernel (CK)",
     "https://rocm.docs.amd.com/projects/composable_kernel/en/latest/"),
    ("NCCL", r"nccl[A-Z]\w*|NCCL_\w+", r"nccl\.h", "RCCL (same API; link librccl)",
     "https://rocm.docs.amd.com/projects/rccl/en/latest/"),
)

# Shared objects that code dlopen()s by name, and what to load on ROCm.
DLOPEN_LIBRARIES: dict[str, str] = {
    "cuda": "libamdhip64.so", "cudart": "libamdhip64.so", "nvrtc": "libhiprtc.so",
    "nvidia-ml": "libamd_smi.so", "nccl": "librccl.so", "cublas": "libhipblas.so / librocblas.so",
    "cublasLt": "libhipblaslt.so", "cudnn": "libMIOpen.so", "cufft": "libhipfft.so", "curand": "libhiprand.so",
    "cusparse": "libhipsparse.so", "cusolver": "libhipsolver.so", "nvshmem": "librocshmem.so",
}
DLOPEN_RE = re.compile(r"\blib(" + "|".join(sorted(map(re.escape, DLOPEN_LIBRARIES), key=len, reverse=True))
                       + r")(?:64)?\.so(?:\.[\w.]*)?\b")

# HIP names that hipify produces but that ROCm documents as deprecated.
# hip name -> (status, advice, source)
_TEXTURE_REF = "https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/group___texture_d.html"
_DEPRECATED_LIST = "https://rocm.docs.amd.com/projects/HIP/en/docs-6.4.2/reference/deprecated_api_list.html"
HIP_DEPRECATED: dict[str, tuple[str, str, str]] = {
    **{name: ("deprecated texture-reference API (removed from CUDA 12; HIP 7.0 keeps it with changed error "
              "codes)", "use texture objects "
              "(hipCreateTextureObject / cudaCreateTextureObject)", _TEXTURE_REF)
       for name in ("hipBindTexture", "hipBindTexture2D", "hipBindTextureToArray", "hipBindTextureToMipmappedArray",
                    "hipUnbindTexture", "hipGetTextureReference", "hipGetTextureAlignmentOffset",
                    "hipTexRefSetAddressMode", "hipTexRefSetArray", "hipTexRefSetFilterMode", "hipTexRefSetFlags",
                    "hipTexRefSetFormat", "hipTexRefGetAddress", "hipTexRefSetAddress", "hipTexRefSetAddress2D")},
    **{name: ("deprecated context API (deprecated since ROCm 1.9)", "use hipSetDevice / the primary context "
              "and streams", _DEPRECATED_LIST)
       for name in ("hipCtxCreate", "hipCtxDestroy", "hipCtxPopCurrent", "hipCtxPushCurrent", "hipCtxSetCurrent",
                    "hipCtxGetCurrent", "hipCtxGetDevice", "hipCtxGetApiVersion", "hipCtxGetCacheConfig",
                    "hipCtxSetCacheConfig", "hipCtxSetSharedMemConfig", "hipCtxGetSharedMemConfig",
                    "hipCtxSynchronize", "hipCtxGetFlags", "hipCtxEnablePeerAccess", "hipCtxDisablePeerAccess")},
    **{name: ("deprecated profiler control (deprecated since ROCm 3.0)", "use rocprofiler / roctx ranges",
              _DEPRECATED_LIST) for name in ("hipProfilerStart", "hipProfilerStop")},
    **{name: ("deprecated host allocation API", "use hipHostMalloc / hipHostFree", _DEPRECATED_LIST)
       for name in ("hipMallocHost", "hipMemAllocHost", "hipFreeHost")},
}

# ROCm 7.0 (HIP API 7.0) changes that break CUDA code ported with hipify. Source:
ROCM7_CHANGES = "https://rocm.docs.amd.com/projects/HIP/en/latest/hip-7-changes.html"
# Names removed in ROCm 7.0 -> replacement.
ROCM7_REMOVED: dict[str, str] = {
    "HIP_MEMSET_NODE_PARAMS": "hipMemsetParams (hipDrvGraphAddMemsetNode / hipDrvGraphExecMemsetNodeSetParams)",
}
