"""What `port emulate` cannot run, found before compiling and named in one line (exit 2).

Each entry is one feature the CPU runtime does not model; a program that uses it is refused
with the feature's name and the first place it is used, instead of a compile error or a wrong
answer. Names the runtime simply lacks (an unusual ``cudaFoo``) are caught later, from the
compiler's own message (porting.emulate.build.explain_compile_error).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..audit.mask import mask
from . import ptx
from .build import cccl_dir


@dataclass(frozen=True)
class Feature:
    name: str
    code: re.Pattern[str] | None = None      # matched on code (comments, literals blanked)
    include: re.Pattern[str] | None = None   # matched on #include header names
    # emulated when this answers True (a feature that needs files outside the runtime, as Thrust
    # needs CCCL's headers); refused otherwise
    emulated: Callable[[], bool] | None = None


def _f(name: str, code: str | None = None, include: str | None = None,
       emulated: Callable[[], bool] | None = None) -> Feature:
    return Feature(name, re.compile(code) if code else None, re.compile(include) if include else None, emulated)


def _have_cccl() -> bool:
    return cccl_dir() is not None


CUSPARSE_SUBSET = (
    "Create", "Destroy", "SetStream", "GetStream", "GetErrorString", "GetErrorName", "CreateCsr", "CreateCoo",
    "DestroySpMat", "SpMatGetSize", "SpMatSetAttribute", "CreateDnVec", "DestroyDnVec", "CreateDnMat",
    "DestroyDnMat", "SpMV_bufferSize", "SpMV", "SpMM_bufferSize", "SpMM", "SparseToDense_bufferSize",
    "SparseToDense")

FEATURES: tuple[Feature, ...] = (
    # cuBLAS's common routines are computed on the CPU (runtime/emu_cublas.h, <cublas_v2.h>); a
    # routine outside that subset fails the compile, named. cuBLASLt, cuBLASXt and the legacy
    # <cublas.h> API are not emulated
    _f("uses cuBLASLt/cuBLASXt or the legacy cuBLAS API", r"\bcublas(?:Lt|Xt)\w*\s*\(",
       r"^cublas(?:Lt|XT|Xt)?\w*\.h$(?<!cublas_v2\.h)(?<!cublas_api\.h)"),
    _f("uses hipBLAS/rocBLAS", r"\b(?:hip|roc)blas_?[A-Za-z]\w*\s*\(", r"(?:^|/)(?:hip|roc)blas"),
    # cuFFT's plans and C2C/R2C/C2R transforms are computed on the CPU (runtime/emu_cufft.h,
    # <cufft.h>); cufftXt (multi-GPU, half precision, callbacks) is not
    _f("uses cuFFT's Xt API (multi-GPU, callbacks, half precision)", r"\bcufftXt\w*\s*\(", r"^cufftXt"),
    # cuRAND's host generators and device functions are emulated with xorwow streams of their own
    # (runtime/emu_curand.h: the same at every width, not NVIDIA's numbers); its quasi-random
    # and MTGP32 generators and the device API's distributions beyond the basics are not
    _f("uses cuRAND's quasi-random, MTGP32 or discrete generators",
       r"\bcurand(?:StateSobol\w*|StateScrambledSobol\w*|StateMtgp32\w*|MakeMTGP32\w*|_poisson|_discrete\w*"
       r"|CreatePoissonDistribution)\b|\bCURAND_RNG_QUASI_\w+|\bcurandDirectionVectors\w*", r"^curand_mtgp32"),
    # cuSPARSE's generic SpMV, SpMM and SparseToDense on CSR/COO are computed on the CPU
    # (runtime/emu_cusparse.h); any other cusparse function is refused by this scan, named
    _f("uses cuSPARSE beyond SpMV/SpMM/SparseToDense on CSR/COO",
       r"\bcusparse(?!(?:" + "|".join(CUSPARSE_SUBSET) + r")\s*\()[A-Z]\w*\s*\("),
    _f("uses cuSOLVER", None, r"^cusolver"),
    _f("uses cuDNN", None, r"^cudnn"),
    _f("uses NCCL/RCCL", None, r"^(?:nccl|rccl)"),
    # NVRTC compiles the tree's .cu files it names ahead (porting/emulate/modules.py, emu_nvrtc.h);
    # a program that names none is refused there, by name
    # Thrust is compiled from CCCL's headers with its CPP device system (build.thrust_flags,
    # runtime/emu_thrust.h); refused only where no CCCL is installed
    _f("uses Thrust (no CCCL headers found: set PORT_EMULATE_CCCL)", r"\bthrust::", r"^thrust/", _have_cccl),
    # CUB's warp and block primitives and its common device-wide algorithms are emulated
    # (runtime/emu_cub.h); a CUB name it lacks fails the compile, named (build.explain_compile_error)
    # libcu++'s types, atomics and cuda::std are compiled from CCCL's headers in host mode
    # (runtime/emu_libcudacxx.h); its synchronization primitives wait by spinning, which no other
    # fiber of the one OS thread can end, and its PTX wrappers have no CPU meaning: refused
    _f("libcu++ synchronization or PTX primitives (cuda::barrier, pipeline, latch, semaphores, memcpy_async, ptx)",
       r"\bcuda::(?:std::)?(?:barrier|pipeline\w*|make_pipeline|latch|counting_semaphore|binary_semaphore"
       r"|memcpy_async|ptx::|device::|annotated_ptr|access_property|apply_access_property|discard_memory)\b",
       r"^cuda/(?:barrier|pipeline|latch|semaphore|annotated_ptr|ptx|std/barrier|std/latch|std/semaphore)\b"),
    _f("uses libcu++ (cuda::; no CCCL headers found: set PORT_EMULATE_CCCL)", r"\bcuda::(?!std::)", r"^cuda/",
       _have_cccl),
    # half and bfloat16 are emulated (runtime/emu_fp16.h); the 8-bit float formats are not
    _f("fp8 types (cuda_fp8.h)", r"\b__nv_fp8\w*|\b__hip_fp8\w*", r"(?:^|/)(?:cuda_fp8|hip_fp8|amd_hip_fp8)\.h"),
    # inline PTX: a subset is translated to C++ (porting/emulate/ptx.py); an asm statement with an
    # instruction outside it is refused naming that instruction (scan_text)
    # texture objects and references, CUDA arrays and 3D copies are emulated (runtime/emu_texture.h);
    # mipmaps, cubemaps and gradient reads are not
    _f("mipmapped or cubemap textures", r"\b(?:texCubemap\w*|tex[123]DGrad)\s*[<(]"
       r"|\b(?:cuda|hip)(?:MallocMipmappedArray|GetMipmappedArrayLevel|MipmappedArray_t)\b"),
    _f("surface objects", r"\bsurf[123]D\w*\s*[<(]|\b(?:cuda|hip)SurfaceObject_t\b"),
    # this_grid() for ranks and sizes is emulated; a grid-wide barrier is found by _grid_sync
    _f("cooperative groups grid sync", r"\b(?:cuda|hip)LaunchCooperativeKernel\w*|\bthis_multi_grid\s*\("),
    _f("cooperative groups labeled/binary partitions or clusters",
       r"\b(?:labeled_partition|binary_partition|cluster_group|this_cluster)\s*[(<]"),
    # nvcuda::wmma's fragments, loads, stores and mma_sync are emulated (runtime/emu_wmma.h); the
    # sub-byte experimental types (u4, s4, b1: bmma_sync) and the __hmma builtins are not
    _f("tensor-core WMMA sub-byte types or __hmma builtins",
       r"\bwmma::experimental::|\bbmma_sync\s*\(|\b__(?:hmma|imma|bmma|dmma)\w*"),
    _f("asynchronous copy pipelines", r"\b__pipeline_\w+\s*\(|\bmemcpy_async\s*\(", r"^cuda_pipeline"),
    # graphs built by stream capture and from kernel, host, memcpy, memset, empty and child-graph
    # nodes are emulated (runtime/emu_graph.h, emu_kernels.h); the generic cudaGraphAddNode and
    # conditional, memory-allocation, event and external nodes are not. Not cudaGraphics*
    # (graphics interop, below)
    _f("CUDA graph conditional, memory, event or generic nodes",
       r"\b(?:cuda|hip)Graph(?:AddNode|\w*Conditional\w*|AddMem(?:Alloc|Free)Node|AddEvent\w*Node|\w*External\w*"
       r"|\w*BatchMemOp\w*)\b|\b(?:cuda|hip)GraphNodeParams\b"),
    # the driver API's devices, contexts, memory, copies, memsets, streams and events are emulated
    # (runtime/emu_driver.h, <cuda.h>), and so are modules built from a .cu of the program's tree,
    # with cuModuleGetFunction/GetGlobal and the launches (porting/emulate/modules.py); the linker,
    # libraries and kernel handles of CUDA 12 are not. A driver call outside all of these fails
    # the compile, named
    _f("the CUDA driver API's linker or libraries (cuLink*, cuLibrary*, cuKernel*)",
       r"\bcu(?:Link\w+|Library\w+|Kernel(?:Get|Set)\w+)\s*\("),
    _f("the driver API's virtual memory management (cuMemCreate, cuMemMap, ...)",
       r"\bcuMem(?:Create|Release|Map|MapArrayAsync|Unmap|AddressReserve|AddressFree|SetAccess|GetAccess"
       r"|GetAllocation\w+|ExportToShareableHandle|ImportFromShareableHandle|RetainAllocationHandle)\s*\("),
    _f("CUDA IPC / multi-process memory", r"\b(?:cuda|hip)Ipc\w+"),
    _f("graphics interop (OpenGL/EGL/D3D)", r"\b(?:cuda|hip|cu)Graphics\w+|\bcuEGL\w+",
       r"^(?:cuda|hip)_?(?:gl|egl|d3d\w*)_interop|^cuda(?:EGL|GL|D3D\d*|VDPAU)\.h$"),
    _f("AMDGCN/NVVM compiler builtins", r"\b__builtin_(?:amdgcn|nvvm|r600)_\w+"),
    _f("cluster launch / distributed shared memory", r"\b__cluster_dims__\b|\bcluster_group\b"),
)


@dataclass(frozen=True)
class Refusal:
    feature: str
    where: str  # file:line

    def message(self) -> str:
        return f"{self.where}: {self.feature}, which port emulate does not emulate (see docs/emulate.md)"


WARP_SYNCHRONOUS = "implicit warp-synchronous execution (a volatile view of shared memory without __syncwarp)"
_SHARED_DECL = re.compile(r"\b__shared__\b[^;{}()]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*;")
_VOLATILE_SHARED = re.compile(r"\bvolatile\b[^;{}]*\b__shared__\b|\b__shared__\b[^;{}]*\bvolatile\b")


def scan_text(text: str, path: str) -> list[Refusal]:
    masked = mask(text)
    found: list[Refusal] = []
    for feature in FEATURES:
        if feature.emulated is not None and feature.emulated():
            continue
        at = _first_use(feature, masked)
        if at is not None:
            line, _ = masked.position(at)
            found.append(Refusal(feature.name, f"{path}:{line}"))
    asm = ptx.first_unsupported(text)
    if asm is not None:
        found.append(Refusal(f"inline assembly: {asm[1]}", f"{path}:{masked.position(asm[0])[0]}"))
    at = _warp_synchronous(masked.code)
    if at is not None:
        found.append(Refusal(WARP_SYNCHRONOUS, f"{path}:{masked.position(at)[0]}"))
    at = _grid_sync(masked.code)
    if at is not None and not any(f.feature == GRID_SYNC for f in found):
        found.append(Refusal(GRID_SYNC, f"{path}:{masked.position(at)[0]}"))
    return found


GRID_SYNC = "cooperative groups grid sync"
_GRID_NAMES = re.compile(r"\bgrid_group\s*&?\s*([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*=\s*(?:\w+::)*this_grid\s*\(\s*\)")
_THIS_GRID = r"(?:\w+::)*this_grid\s*\(\s*\)"


def _grid_sync(code: str) -> int | None:
    """A grid-wide barrier: ``this_grid().sync()``, ``g.sync()`` or ``sync(g)`` on a grid group.
    Blocks run one after another here, so no block could pass it; ranks and sizes of the grid
    group need no barrier and are emulated."""
    names = {a or b for a, b in _GRID_NAMES.findall(code)}
    target = "|".join([_THIS_GRID, *(r"\b" + re.escape(n) for n in sorted(names))])
    m = re.search(rf"(?:{target})\s*\.\s*sync\s*\(|\bsync\s*\(\s*(?:{target})\s*\)", code)
    return m.start() if m else None


def _warp_synchronous(code: str) -> int | None:
    """Pre-Volta warp-synchronous code reads and writes shared memory through ``volatile`` and
    relies on the lanes of a warp executing each statement together, with no __syncwarp. The
    fibers run lanes one after another between collectives, so such code cannot be run
    faithfully here: it is refused instead of reported as 'same' with a wrong answer."""
    if "__syncwarp" in code:
        return None
    m = _VOLATILE_SHARED.search(code)
    if m:
        return m.start()
    names = set(_SHARED_DECL.findall(code))
    if not names:
        return None
    view = re.compile(r"\bvolatile\b[^;{}]*=[^;{}]*\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    m = view.search(code)
    return m.start() if m else None


def _first_use(feature: Feature, masked) -> int | None:
    hits: list[int] = []
    if feature.code is not None:
        m = feature.code.search(masked.code)
        if m:
            hits.append(m.start())
    if feature.include is not None:
        hits += [inc.start for inc in masked.includes if feature.include.search(inc.text)]
    return min(hits) if hits else None


def scan(files: list[Path]) -> list[Refusal]:
    """Every refused feature in ``files`` (first use per feature and file)."""
    found: list[Refusal] = []
    for path in files:
        found += scan_text(path.read_text(encoding="utf-8", errors="replace"), str(path))
    return found
