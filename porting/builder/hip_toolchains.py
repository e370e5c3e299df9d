"""How each HIP toolchain compiles and links (the HipBackend asks the one the plan chose).

``HIPCC``: a ROCm install at or above the gate; hipcc finds its own headers and device
libraries. ``ROCM7_SDK``: clang++-N with the compile-only ROCm 7 SDK (`port sdk fetch`),
driven the way hipcc drives clang, plus what hipcc would have found in a ROCm install:

* headers: ``-nogpuinc``, then the SDK's include dir, clang's cuda_wrappers and resource dir,
  and ``-include __clang_hip_runtime_wrapper.h`` (what clang adds itself for a ROCm install).
  A guard dir comes first: one ``#error`` header for every ``hip/`` header that a system
  include dir (Debian's HIP 5.2 in /usr/include/hip) has and the SDK lacks, so an old header can
  never silently stand in for a missing 7.x one (the SDK has no hip_fp16.h, for example);
* device code: relocatable (``-fgpu-rdc``), device-linked at the library link with ocml/ockl
  as lazy members (``--start-lib``) and a generated unit defining the ``__oclc_*`` control
  variables per arch (the device libraries read them; ROCm ships them as oclc_*.bc files the
  SDK does not carry). The link leaves no undefined device symbol; the host side links against
  nothing from ROCm, so the library cannot load here (no libamdhip64): compile-only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .. import process_group
from ..atomic import write_text
from .sources import Unit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .backends import BuildContext

COMMON = ["-O3", "-std=c++17", "-DNDEBUG", "-fPIC", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror"]
SYSTEM_INCLUDE_DIRS = ("/usr/local/include", "/usr/include")  # where an older HIP can shadow the SDK
OCLC_UNIT = Unit("oclc_control.hip", "device-lib")

# ISA version per arch (major*1000 + minor*100 + stepping, as oclc_isa_version_*.bc encode it);
# an arch missing here is refused before anything compiles.
ISA_VERSIONS = {"gfx942": 9402, "gfx950": 9500, "gfx90a": 9010, "gfx1100": 11000, "gfx1201": 12001}
WAVE64_ARCHS = {"gfx942", "gfx950", "gfx90a"}  # CDNA: wave64 only; RDNA defaults to wave32
CODE_OBJECT_VERSION = 5  # pinned, so that the __oclc_ABI_version below matches it by construction
OCLC_ABI_VERSION = CODE_OBJECT_VERSION * 100


class _Hipcc:
    def compile_head(self, ctx: BuildContext) -> tuple[list[str], dict[str, str]]:
        return [ctx.compiler, *COMMON, *[f"--offload-arch={a}" for a in ctx.gpu_archs], "-x", "hip"], \
            {"HIP_PLATFORM": "amd"}  # hipcc would otherwise pick nvcc when CUDA is installed

    def generated_units(self, ctx: BuildContext) -> list[tuple[Unit, Path, list[str], list[Path]]]:
        return []

    def link_head(self, ctx: BuildContext) -> list[str]:
        return [ctx.compiler, "-shared", *[f"--offload-arch={a}" for a in ctx.gpu_archs]]

    def link_tail(self, ctx: BuildContext) -> list[str]:
        return ["-lpthread", "-lrt"]


class _Rocm7Sdk:
    def compile_head(self, ctx: BuildContext) -> tuple[list[str], dict[str, str]]:
        sdk = ctx.sdk
        assert sdk is not None and sdk.include_dir is not None  # build() refuses the toolchain otherwise
        includes = sdk_includes(ctx.compiler, Path(sdk.include_dir), ctx.out_dir / "rocm7-guard")
        return [ctx.compiler, "-x", "hip", *[f"--offload-arch={a}" for a in ctx.gpu_archs], "-fgpu-rdc",
                f"-mcode-object-version={CODE_OBJECT_VERSION}", "-nogpuinc", "-nogpulib", *includes, *COMMON], {}

    def generated_units(self, ctx: BuildContext) -> list[tuple[Unit, Path, list[str], list[Path]]]:
        source = ctx.out_dir / "gen" / OCLC_UNIT.source
        text = oclc_control_source(ctx.gpu_archs)
        if not source.is_file() or source.read_text() != text:
            write_text(source, text)
        return [(OCLC_UNIT, source, [], [])]

    def link_head(self, ctx: BuildContext) -> list[str]:
        return [ctx.compiler, "--hip-link", "-fgpu-rdc", *[f"--offload-arch={a}" for a in ctx.gpu_archs],
                f"-mcode-object-version={CODE_OBJECT_VERSION}", "-shared"]

    def link_tail(self, ctx: BuildContext) -> list[str]:
        sdk = ctx.sdk
        assert sdk is not None and sdk.device_lib_dir is not None
        libs = [f"{sdk.device_lib_dir}/{name}" for name in ("ocml.bc", "ockl.bc")]
        device = ["--start-lib", *libs, "--end-lib"]  # lazy: only what the kernels call is linked
        return [arg for item in device for arg in ("-Xoffload-linker", item)] + ["-lpthread", "-lrt"]


def sdk_includes(compiler: str, sdk_include: Path, guard: Path) -> list[str]:
    """The include flags that stand in for a ROCm install's (see the module docstring); also
    `port check`'s, so a unit checked there sees exactly the headers `port build` gives it."""
    resource = _resource_dir(compiler)
    write_guard(guard, sdk_include)
    return ["-isystem", str(guard), "-isystem", f"{resource}/include/cuda_wrappers",
            "-isystem", str(sdk_include), "-isystem", resource, "-include", "__clang_hip_runtime_wrapper.h"]


def _resource_dir(compiler: str) -> str:
    out = process_group.run([compiler, "-print-resource-dir"], timeout=60)
    if out.returncode != 0 or not out.stdout.strip():
        raise RuntimeError(f"{compiler} -print-resource-dir failed (exit {out.returncode})")
    return out.stdout.strip()


def oclc_control_source(archs: list[str]) -> str:
    """A HIP unit defining the device libraries' control variables for each arch it compiles for
    (the values ROCm's oclc_*.bc files give: ISA version, ABI, wave size, IEEE-exact math)."""
    unknown = [a for a in archs if a not in ISA_VERSIONS]
    if unknown:
        raise ValueError(f"no oclc ISA version known for {', '.join(unknown)} (known: {', '.join(ISA_VERSIONS)})")
    lines = ["// Generated by porting.builder.hip_toolchains: the __oclc_* control variables that ROCm's",
             "// oclc_*.bc device libraries define (the compile-only SDK ships ocml/ockl without them).",
             "#if defined(__HIP_DEVICE_COMPILE__)"]
    for i, arch in enumerate(archs):
        lines += [f"#{'if' if i == 0 else 'elif'} defined(__{arch}__)",
                  f"#define PN_OCLC_ISA {ISA_VERSIONS[arch]}",
                  f"#define PN_OCLC_WAVE64 {1 if arch in WAVE64_ARCHS else 0}"]
    lines += ["#else", '#error "oclc control variables: an arch this unit was not generated for"', "#endif",
              '#define PN_OCLC(type, name, value) \\',
              '  extern "C" __attribute__((visibility("hidden"))) __constant__ const type name = value;',
              "PN_OCLC(int, __oclc_ISA_version, PN_OCLC_ISA)",
              f"PN_OCLC(int, __oclc_ABI_version, {OCLC_ABI_VERSION})",
              "PN_OCLC(unsigned char, __oclc_wavefrontsize64, PN_OCLC_WAVE64)",
              "PN_OCLC(int, __oclc_wavefrontsize_log2, PN_OCLC_WAVE64 ? 6 : 5)",
              "PN_OCLC(unsigned char, __oclc_daz_opt, 0)",
              "PN_OCLC(unsigned char, __oclc_finite_only_opt, 0)",
              "PN_OCLC(unsigned char, __oclc_unsafe_math_opt, 0)",
              "PN_OCLC(unsigned char, __oclc_correctly_rounded_sqrt32, 1)",
              "#endif", ""]
    return "\n".join(lines)


# the guard's #error text (write_guard), read back by `port check` to name the header the SDK lacks
GUARD_ERROR = re.compile(r"(?P<name>\S+) is not in the ROCm SDK at ")


def write_guard(guard: Path, sdk_include: Path) -> Path:
    """One ``#error`` header per ``hip/`` header a system include dir has and the SDK lacks."""
    for system in SYSTEM_INCLUDE_DIRS:
        hip = Path(system) / "hip"
        if not hip.is_dir():
            continue
        for header in sorted(p for p in hip.rglob("*") if p.is_file()):
            rel = header.relative_to(system)
            if (sdk_include / rel).exists():
                continue
            text = (f'#error "{rel} is not in the ROCm SDK at {sdk_include}; {header} (an older HIP) is '
                    'deliberately not used in its place"\n')
            target = guard / rel
            if not target.is_file() or target.read_text() != text:
                write_text(target, text)
    os.makedirs(guard, exist_ok=True)
    return guard


HIPCC = _Hipcc()
ROCM7_SDK = _Rocm7Sdk()
