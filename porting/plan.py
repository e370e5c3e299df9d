"""Plan: a pure function ``Machine + Config -> Plan`` that picks the build path and says why.

Paths: ``cuda`` (the reference), ``native-hip`` (sources already HIP or on our portable header),
``hipified-cuda`` (CUDA sources converted by hipify), ``cpu`` (no usable GPU toolchain).
``path`` is the path that both builds and runs here; compile-only toolchains are listed in
``toolchains`` with ``can_run: false``.
"""

from __future__ import annotations

import os

from . import registry
from .config import Config
from .errors import ConfigError, PlatformError
from .probe import Machine
from .probe.rocm_sdk import MIN_CLANG_MAJOR
from .records import Record, asdict
from .sources import SourceScan, scan_sources
from .versions import VersionRefused, compare, format_version, parse_release, parse_version

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from typing import Any

PLAN_SCHEMA = 1
PATHS = registry.PATH_NAMES


class Toolchain(Record):
    path: str = ""  # the build path it serves; "" while an assessor (ASSESS) has it, before _toolchains
    compiler: str | None
    version: str | None
    can_compile: bool
    can_run: bool
    reason: str
    toolchain: str = ""  # which declared toolchain serves the path (rocm, rocm7-sdk, nvcc, host)
    headers: str | None = None  # GPU paths: the headers it compiles against, and where they came from

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Plan(Record):
    path: str
    device: str  # "cuda" | "rocm" | "none"
    platform_request: str  # "auto" | "cuda" | "rocm" | "none"
    request_origin: str
    min_rocm: str
    rocm_gate_ok: bool  # a ROCm at or above min_rocm was found (it may still lack a device)
    toolchains: list[Toolchain]
    gpu_archs: list[str]
    sources: SourceScan
    reasons: list[str] = []
    warnings: list[str] = []
    schema: int = PLAN_SCHEMA

    def toolchain(self, path: str) -> Toolchain:
        return next(t for t in self.toolchains if t.path == path)

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "path": self.path, "device": self.device,
                "platform_request": self.platform_request, "request_origin": self.request_origin,
                "min_rocm": self.min_rocm, "rocm_gate_ok": self.rocm_gate_ok,
                "toolchains": [t.to_json() for t in self.toolchains],
                "gpu_archs": self.gpu_archs, "sources": self.sources.to_json(),
                "reasons": self.reasons, "warnings": self.warnings}


class _Platform(Record):
    """What one GPU platform can do on this machine."""

    compiles: bool
    runs: bool
    why_not: list[str]


def _rocm_where(m: Machine) -> str:
    return f"ROCm {m.rocm.version} at {m.rocm.home} (from {m.rocm.version_source})"


def rocm_gate(m: Machine, gate: tuple[int, ...]) -> tuple[bool, str]:
    """Is the ROCm found at least the gate version? Returns (ok, sentence)."""
    g = format_version(gate)
    if not m.rocm.found:
        return False, "no ROCm installation found"
    version = parse_version(m.rocm.version)
    if version is None:
        return False, f"ROCm at {m.rocm.home} has no readable version; {g}+ cannot be confirmed"
    if not compare(version, ">=", gate):
        return False, f"{_rocm_where(m)} is below the required {g}"
    return True, f"{_rocm_where(m)} meets the required {g}"


def assess_rocm(m: Machine, ok: bool, sentence: str) -> _Platform:
    """What ROCm can do here, given the gate's answer (``rocm_gate``). Whatever stops it from
    running is in ``why_not`` (as in ``assess_cuda``): empty exactly when it runs."""
    why: list[str] = [] if ok else [sentence]
    # a ROCm below the gate compiles nothing: its headers are not the ones the target ships
    compiles = ok and m.rocm.hipcc is not None
    if m.rocm.found and m.rocm.hipcc is None:
        why.append("no hipcc")
    amd = m.devices.of("amd")
    if not amd:
        why.append("no AMD GPU in the KFD topology")
    elif not m.devices.amd_device_node:
        why.append("/dev/kfd missing")
    if m.rocm.found and m.rocm.runtime_library is None:
        why.append("no libamdhip64")
    runs = ok and compiles and bool(amd) and m.devices.amd_device_node and m.rocm.runtime_library is not None
    return _Platform(compiles, runs, why)


def assess_cuda(m: Machine) -> _Platform:
    why: list[str] = []
    compiles = m.cuda.found and m.cuda.nvcc is not None
    if not m.cuda.found:
        why.append("no CUDA toolkit found")
    elif m.cuda.nvcc is None:  # a toolkit's headers without its compiler (as ROCm's "no hipcc")
        why.append("no nvcc")
    if m.cuda.driver is None:
        why.append("no libcuda driver")
    if not m.devices.of("nvidia"):
        why.append("no NVIDIA device")
    runs = compiles and m.cuda.driver is not None and bool(m.devices.of("nvidia"))
    return _Platform(compiles, runs, why)


# The assessors (ASSESS): one Toolchain per declared toolchain, serving no path yet (the default
# path ""): _toolchains builds each path's record from it.
def _nvcc(m: Machine, rocm: _Platform, cuda: _Platform) -> Toolchain:
    reason = "builds and runs" if cuda.runs else ("compile-only: " if cuda.compiles else "") + \
        "; ".join(cuda.why_not)
    headers = f"{m.cuda.home}/include (CUDA {m.cuda.version})" if cuda.compiles else None
    return Toolchain(compiler=m.cuda.nvcc, version=m.cuda.version, can_compile=cuda.compiles, can_run=cuda.runs,
                     reason=reason, toolchain="nvcc", headers=headers)


def _rocm(m: Machine, rocm: _Platform, cuda: _Platform) -> Toolchain:
    reason = "builds and runs" if rocm.runs else "; ".join(rocm.why_not)
    if rocm.compiles and not rocm.runs:
        reason = "compile-only: " + reason
    if not rocm.compiles:
        return Toolchain(compiler=None, version=None, can_compile=False, can_run=False, reason=reason,
                         toolchain="rocm")
    return Toolchain(compiler=m.rocm.hipcc, version=m.rocm.version, can_compile=True, can_run=rocm.runs,
                     reason=reason, toolchain="rocm", headers=f"{m.rocm.home}/include (ROCm {m.rocm.version})")


def _rocm7_sdk(m: Machine, rocm: _Platform, cuda: _Platform) -> Toolchain:
    """Compile-only by construction: the SDK has headers and device libraries, no runtime."""
    sdk = m.rocm_sdk
    if not sdk.found:
        missing = "the SDK is missing" if sdk.clang else f"no clang++ new enough for gfx950 ({MIN_CLANG_MAJOR}+)"
        return Toolchain(compiler=None, version=None, can_compile=False, can_run=False,
                         reason=f"no compile-only ROCm 7 SDK toolchain: {missing} (`port sdk fetch`)",
                         toolchain="rocm7-sdk")
    reason = (f"compile-only: clang++-{sdk.clang_major} with the ROCm {sdk.hip_version} SDK headers "
              "(no ROCm runtime, nothing built with it runs)")
    return Toolchain(compiler=sdk.clang, version=sdk.hip_version, can_compile=True, can_run=False, reason=reason,
                     toolchain="rocm7-sdk", headers=sdk.headers_from)


def _host(m: Machine, rocm: _Platform, cuda: _Platform) -> Toolchain:
    ok = m.host_compiler.path is not None
    return Toolchain(compiler=m.host_compiler.path, version=m.host_compiler.version, can_compile=ok, can_run=ok,
                     reason="host C++ compiler" if ok else "no host C++ compiler found", toolchain="host")


# How each declared toolchain (porting.registry.TOOLCHAINS) is assessed on a machine.
ASSESS = {"nvcc": _nvcc, "rocm": _rocm, "rocm7-sdk": _rocm7_sdk, "host": _host}


def _toolchains(m: Machine, rocm: _Platform, cuda: _Platform) -> list[Toolchain]:
    """Per declared path, the first of its toolchains that can compile here (else the first, with
    every candidate's reason): a ROCm install at the gate wins over the compile-only SDK."""
    assessed = {name: ASSESS[name](m, rocm, cuda) for name in registry.TOOLCHAIN_NAMES}
    out: list[Toolchain] = []
    for bp in registry.PATHS:
        options = [assessed[name] for name in bp.toolchains]
        chosen = next((t for t in options if t.can_compile), options[0])
        reason = chosen.reason if chosen.can_compile else "; ".join(t.reason for t in options)
        out.append(Toolchain(bp.name, chosen.compiler, chosen.version, chosen.can_compile, chosen.can_run, reason,
                             chosen.toolchain, chosen.headers))
    return out


def _rocm_path(scan: SourceScan, reasons: list[str]) -> str:
    c = scan.to_json()["counts"]
    if c["cuda"]:
        reasons.append(f"sources: {c['cuda']} plain-CUDA file(s) need hipify -> hipified-cuda "
                       f"({c['hip']} HIP, {c['portable']} portable-header file(s) compile as they are)")
        return "hipified-cuda"
    reasons.append(f"sources: {c['hip']} HIP and {c['portable']} portable-header file(s), no plain CUDA "
                   "-> native-hip")
    return "native-hip"


def make_plan(machine: Machine, config: Config, project_dir: str | os.PathLike[str] | None = None) -> Plan:
    """Decide the build path. Raises PlatformError for contradictions the user must resolve."""
    try:  # the verdict's gate reads min_rocm with the same strict reader (porting.report.rules)
        gate = parse_release(config["min_rocm"])
    except VersionRefused:
        raise ConfigError(f"min_rocm: {config['min_rocm']!r} is not a version (from {config.origin['min_rocm']})") \
            from None
    request, origin = config["platform"], config.origin["platform"]  # load_config records every origin
    gate_ok, gate_msg = rocm_gate(machine, gate)
    rocm, cuda = assess_rocm(machine, gate_ok, gate_msg), assess_cuda(machine)
    scan = scan_sources(list(config["sources"]), project_dir or os.getcwd())
    reasons: list[str] = []
    warnings: list[str] = list(machine.rocm.problems) + list(machine.cuda.problems) + \
        list(machine.devices.problems)
    if machine.hip_platform.trap:
        warnings.append(machine.hip_platform.reason)
    if machine.rocm.found:
        reasons.append(gate_msg + ("" if gate_ok else "; GPU paths refused for ROCm"))
    if request != "auto":
        reasons.append(f"platform {request} requested ({origin})")

    if request == "none":
        path, device = "cpu", "none"
        reasons.append("GPU platforms disabled by the override -> cpu")
    elif request == "rocm" or (request == "auto" and rocm.runs and not cuda.runs):
        if not rocm.runs:
            raise PlatformError(f"platform rocm requested ({origin}) but ROCm cannot run here: "
                                f"{'; '.join(rocm.why_not)}")
        path, device = _rocm_path(scan, reasons), "rocm"
        reasons.insert(0, f"ROCm runs here: {len(machine.devices.of('amd'))} AMD GPU(s) "
                          f"({', '.join(sorted({g.arch for g in machine.devices.of('amd')}))})")
    elif request == "cuda" or (request == "auto" and cuda.runs and not rocm.runs):
        if not cuda.runs:
            raise PlatformError(f"platform cuda requested ({origin}) but CUDA cannot run here: "
                                f"{'; '.join(cuda.why_not)}")
        path, device = "cuda", "cuda"
        reasons.insert(0, f"CUDA {machine.cuda.version} runs here (driver {machine.cuda.driver}, "
                          f"{len(machine.devices.of('nvidia'))} NVIDIA GPU(s)) -> cuda, the reference path")
    elif rocm.runs:  # and so does CUDA: with "auto", one platform running alone took a branch above
        raise PlatformError("both CUDA and ROCm can run here; choose one with --platform cuda|rocm "
                            "or PORT_GPU_PLATFORM=cuda|rocm (or platform = \"...\" in [tool.port])")
    else:
        path, device = "cpu", "none"
        reasons.append("ROCm cannot run: " + "; ".join(rocm.why_not))
        reasons.append("CUDA cannot run: " + "; ".join(cuda.why_not))
        reasons.append("no GPU platform can build and run here -> cpu (the CPU fallback)")
    toolchains = _toolchains(machine, rocm, cuda)
    compile_only = [t.path for t in toolchains if t.can_compile and not t.can_run]
    if compile_only:
        reasons.append(f"compile-only toolchains: {', '.join(compile_only)} (`port build --path P` still uses them)")
    vendor = {"rocm": "amd", "cuda": "nvidia"}.get(device)
    # (`if vendor` keeps the types honest; dropping it would change nothing: no GPU's vendor is None,
    # so mutation testing's `vendor or True` survivor is equivalent)
    archs = list(config["gpu_archs"]) or sorted({g.arch for g in machine.devices.of(vendor)} if vendor else set())
    # gate parsed to at least one field above, so format_version gives a non-empty string: the
    # `or ""` only narrows the type, and its mutant ("XXXX") is equivalent
    return Plan(path=path, device=device, platform_request=request, request_origin=origin,
                min_rocm=format_version(gate) or "", rocm_gate_ok=gate_ok, toolchains=toolchains,
                gpu_archs=archs, sources=scan,
                reasons=reasons, warnings=warnings)
