"""ROCm API families whose headers the compile-only ROCm 7 SDK does not carry.

The SDK (``port sdk fetch``: ROCm 7.1's ``hip/`` runtime headers from PyPI's triton wheel) has
no hipBLAS, MIOpen, RCCL, ... and no ``hip_complex.h`` or GL/EGL interop headers. A name of one
of these families cannot be judged declared or undeclared against it, so the readers of the
headers leave it unjudged:

* the alias table (``porting.aliases.ground_truth``) marks such an alias ``unverified`` with the
  family's name: every family except the runtime's own interop headers, whose policy is an
  ``[[undeclared]]`` rule of ``hip_aliases/overrides.toml`` (the portable header includes
  ``hip/hip_runtime.h`` only, and ROCm's GL interop is not part of it);
* the audit (``porting.audit.checks``) reads only ``hip/hip_runtime.h`` and never reports a name
  of any family here as removed from ROCm 7.

One table, so the two readers cannot drift apart (they did: the audit called hipify's
``hipDoubleComplex`` undeclared while the alias table knew hip_complex.h was missing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    name: str
    cuda: str  # regex searched in a CUDA name
    hip: str  # regex searched in a HIP name
    header: str  # where a full ROCm 7 install declares the family
    runtime_interop: bool = False  # libamdhip64's own API, declared outside hip_runtime.h


FAMILIES: tuple[Family, ...] = (
    Family("hipBLAS", r"(?i)cublas", r"(?i)(hipblas|rocblas)", "hipblas/hipblas.h"),
    Family("hipSPARSE", r"(?i)cusparse", r"(?i)(hipsparse|rocsparse)", "hipsparse/hipsparse.h"),
    Family("hipRAND", r"(?i)(curand|mtgp32)", r"(?i)(hiprand|rocrand)", "hiprand/hiprand.h"),
    Family("hipFFT", r"(?i)cufft", r"(?i)(hipfft|rocfft)", "hipfft/hipfft.h"),
    Family("hipSOLVER", r"(?i)cusolver", r"(?i)(hipsolver|rocsolver)", "hipsolver/hipsolver.h"),
    Family("MIOpen", r"(?i)cudnn", r"(?i)(miopen|hipdnn)", "miopen/miopen.h"),
    Family("RCCL", r"(?i)nccl", r"(?i)rccl", "rccl/rccl.h"),
    Family("hipRTC", r"(?i)nvrtc", r"(?i)hiprtc", "hip/hiprtc.h"),
    Family("roctx", r"(?i)nvtx", r"(?i)roctx", "roctracer/roctx.h"),
    Family("amdsmi", r"(?i)nvml", r"(?i)amdsmi", "amd_smi/amdsmi.h"),
    Family("hipFile", r"(?i)(cufile|IS_CUDA_ERR|^cu_err$)", r"(?i)hipfile", "hipfile/hipfile.h"),
    Family("hipSPARSELt", r"(?i)cusparselt", r"(?i)hipsparselt", "hipsparselt/hipsparselt.h"),
    Family("hipCUB/rocPRIM", r"^cub::", r"(?i)(hipcub|rocprim)", "hipcub/hipcub.hpp"),
    Family("hip_complex.h", r"^cu(Double|Float)?Complex$", r"^hip(Double|Float)?Complex$", "hip/hip_complex.h"),
    Family("GL/EGL interop", r"(?i)(^cu(da)?GL|^cu(da)?Graphics(GL|EGL)|^cu(da)?EGL|^CU_GL|^CU_EGL)",
           r"(?i)^(hipGL|hipGraphicsGL|hipGraphicsEGL|hipEGL|HIP_GL_|HIP_EGL_)", "hip/hip_gl_interop.h",
           runtime_interop=True),
)
_COMPILED = tuple((f, re.compile(f.cuda), re.compile(f.hip)) for f in FAMILIES)


def family_of(cuda: str, hip: str, *, interop: bool = True) -> Family | None:
    """The family a CUDA -> HIP pair belongs to (either name may be ""); ``interop=False`` leaves
    the runtime's interop headers out."""
    for family, cuda_re, hip_re in _COMPILED:
        if not interop and family.runtime_interop:
            continue
        if (cuda and cuda_re.search(cuda)) or (hip and hip_re.search(hip)):
            return family
    return None
