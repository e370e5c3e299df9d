"""Curated porting knowledge that hipify's tables do not carry, each entry with its source.

Kept small on purpose; extend with a source for every line.
"""

from __future__ import annotations

import re

# CUDA-only libraries: (name, identifier regex, header regex, ROCm counterpart, source)
LIBRARIES: tuple[tuple[str, str, str, str, str], ...] = (
    ("NVML", r"nvml[A-Z]\w*", r"nvml\.h", "amd-smi (libamd_smi; or rocm-smi)",
     "https://rocm.docs.amd.com/projects/amdsmi/en/latest/"),
    # cuDNN's own header names only: a project's "cudnn_att.h" merely starts like one
    ("cuDNN", r"cudnn[A-Z]\w*|CUDNN_\w+",
     r"cudnn(?:_(?:version|frontend|backend|graph|ops|cnn|adv)(?:_infer|_train)?(?:_v\d+)?)?\.h", "MIOpen",
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

# Deprecated HIP names are not listed here: ROCm 7's own headers say which names are deprecated
# (HIP_DEPRECATED attributes), read by porting.audit.symbols.

# ROCm 7.0 (HIP API 7.0) changes that break CUDA code ported with hipify. Source:
ROCM7_CHANGES = "https://rocm.docs.amd.com/projects/HIP/en/latest/hip-7-changes.html"
# Names removed in ROCm 7.0 -> replacement.
ROCM7_REMOVED: dict[str, str] = {
    "HIP_MEMSET_NODE_PARAMS": "hipMemsetParams (hipDrvGraphAddMemsetNode / hipDrvGraphExecMemsetNodeSetParams)",
}
