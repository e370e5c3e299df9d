"""Driver-API modules for `port emulate`: the `.ptx`/`.cubin`/`.fatbin` a program loads, found as
the `.cu` of its own source tree that nvcc would have built it from.

A program that calls ``cuModuleLoad*`` names its module file in a string literal (cuda-samples:
``#define FATBIN_FILE "vectorAdd_kernel64.fatbin"``; ``cuModuleLoad(&m, "kernel.ptx")``). Each
such literal is resolved, before anything is compiled, to a ``.cu`` in the program's directories
(the sources' directories and the ``-I`` directories, and the literal's own subdirectory of
them) whose stem is the module's stem, or the module's stem less a ``32``/``64`` suffix (the
samples' ``vectorAdd_kernel64.fatbin`` is built from ``vectorAdd_kernel.cu``). That ``.cu`` is
compiled into the program with the emulator, as another translation unit (if it is not one
already), and its ``extern "C"`` kernels and file-scope device variables are registered by name
(rewrite.registrations); each run's working directory gets a small marker file at the module's
path (MARKER, the ``.cu``'s stem), which cuModuleLoad/cuModuleLoadData take in place of the
image and cuModuleGetFunction/cuModuleGetGlobal resolve names against (runtime/emu_driver.h).

A module literal that matches no ``.cu`` of the tree, or names a path outside the run directory
(absolute, or through ``..``), is refused by name. An image the runs did not get from a marker
(PTX embedded in the program, a name computed at run time) stops the run as unsupported, named.

NVRTC is the same mechanism ahead of time: a program that includes ``<nvrtc.h>`` names the
kernel source it reads and compiles at run time in a literal (``"vectorAdd_kernel.cu"``, a
``.cu``/``.cuh``); that file of the tree is compiled into the program, copied into each run
directory where the program reads it (unless ``--cwd`` put it there), and its content hash is
given to the runs (``EMU_NVRTC_SOURCES``, nvrtc_env): nvrtcCompileProgram succeeds for a source
string whose bytes are one of those files and hands back a marker as its PTX/CUBIN, so what runs
is exactly what was compiled. A source string that is none of them (built in memory) stops the
run as unsupported, named; an NVRTC program that names no ``.cu`` of its tree is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from ..audit.mask import mask
from .refuse import Refusal

MARKER = b"EMU-MODULE\t"  # the first bytes of every marker file; then the .cu's stem and a newline
_LOADS = re.compile(r"\bcuModuleLoad(?:Data(?:Ex)?|FatBinary)?\s*\(")
_MODULE_LITERAL = re.compile(r'^"([^"\\\n]+\.(?:ptx|cubin|fatbin))"$')
_NVRTC_LITERAL = re.compile(r'^"([^"\\\n]+\.(?:cu|cuh))"$')
UNRESOLVED = "a driver-API module that no .cu of the source tree builds"
NVRTC_UNRESOLVED = "NVRTC on a source that is not a .cu file of the tree (port emulate compiles those ahead)"


@dataclass(frozen=True)
class Module:
    path: str            # as the program names it, relative to its working directory
    source: Path         # the .cu it is built from
    nvrtc: bool = False  # a source NVRTC compiles at run time, not a module file
    unit: str = "*"      # the translation unit its kernels are registered from ("*": any, set by unit_of)

    def marker(self) -> bytes:
        return MARKER + self.unit.encode() + b"\n"


def unit_of(module: Module, sources: list[Path]) -> Module:
    """The module's kernels are registered with the translation unit they are compiled in: its
    own .cu when that is a source; when a source #includes it, any unit ("*")."""
    own = any(s.resolve() == module.source for s in sources)
    return replace(module, unit=module.source.stem if own else "*")


def fnv1a(data: bytes) -> int:
    """64-bit FNV-1a, as emu_nvrtc.h computes it over a source string."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def nvrtc_env(loaded: list[Module]) -> str:
    """``hash:unit`` of each NVRTC source, comma-separated (EMU_NVRTC_SOURCES)."""
    return ",".join(f"{fnv1a(m.source.read_bytes()):016x}:{m.unit}" for m in loaded if m.nvrtc)


def find(files: list[Path], roots: list[Path]) -> tuple[list[Module], list[Refusal]]:
    """The modules the program loads (when any file calls cuModuleLoad*), each resolved to a .cu
    of ``roots``; a literal that resolves to none is a Refusal naming it."""
    texts = {f: f.read_text(encoding="utf-8", errors="replace") for f in files}
    if not any("cuModuleLoad" in t or "nvrtc" in t for t in texts.values()):
        return [], []  # the common case, without masking every file a second time
    masks = {f: mask(t) for f, t in texts.items()}
    nvrtc = [(f, inc) for f, m in masks.items() for inc in m.includes if inc.text.startswith("nvrtc")]
    if nvrtc:
        return _nvrtc_sources(masks, roots, nvrtc[0])
    if not any(_LOADS.search(m.code) for m in masks.values()):
        return [], []
    modules: dict[str, Module] = {}
    refusals: list[Refusal] = []
    for path, masked in masks.items():
        for lit in masked.strings:
            m = _MODULE_LITERAL.match(lit.text)
            if m is None or m.group(1) in modules:
                continue
            where = f"{path}:{masked.position(lit.start)[0]}"
            name = PurePosixPath(m.group(1))
            if name.is_absolute() or ".." in name.parts:
                refusals.append(Refusal(f"{UNRESOLVED} ('{name}': a path outside the run directory)", where))
                continue
            source = _resolve(name, roots)
            if source is None:
                refusals.append(Refusal(f"{UNRESOLVED} ('{name}': no .cu named {_stems(name)} in the program's "
                                        "directories)", where))
                continue
            modules[str(name)] = Module(str(name), source)
    return list(modules.values()), refusals


def _stems(name: PurePosixPath) -> str:
    return " or ".join(f"{s}.cu" for s in _candidate_stems(name.stem))


def _candidate_stems(stem: str) -> list[str]:
    """The module's stem, then less an architecture (``kernel.sm_10``, the CUDA 2 SDK's cubins)
    and less a bitness (``vectorAdd_kernel64``, the samples' fatbins)."""
    stems = [stem]
    for suffix in (r"[._](?:sm|compute)_?\d+$", r"_?(?:32|64)$"):
        base = re.sub(suffix, "", stems[-1])
        if base and base != stems[-1]:
            stems.append(base)
    return stems


def _resolve(name: PurePosixPath, roots: list[Path]) -> Path | None:
    stems = _candidate_stems(name.stem)
    for root in roots:
        for directory in dict.fromkeys((root / name.parent, root)):
            for stem in stems:
                candidate = directory / f"{stem}.cu"
                if candidate.is_file() and any(candidate.resolve().is_relative_to(r.resolve()) for r in roots):
                    return candidate.resolve()
    return None


def _nvrtc_sources(masks: dict, roots: list[Path], first: tuple) -> tuple[list[Module], list[Refusal]]:
    """The .cu/.cuh files of ``roots`` that a literal of the program names: what its NVRTC calls
    compile (read at run time from the working directory)."""
    found: dict[str, Module] = {}
    for masked in masks.values():
        for lit in masked.strings:
            m = _NVRTC_LITERAL.match(lit.text)
            if m is None or m.group(1) in found:
                continue
            name = PurePosixPath(m.group(1))
            if name.is_absolute() or ".." in name.parts:
                continue
            source = next((r / name for r in roots if (r / name).is_file()
                           and (r / name).resolve().is_relative_to(r.resolve())), None)
            if source is not None:
                found[str(name)] = Module(str(name), source.resolve(), nvrtc=True)
    if found:
        return list(found.values()), []
    path, inc = first
    return [], [Refusal(NVRTC_UNRESOLVED, f"{path}:{masks[path].position(inc.start)[0]}")]
