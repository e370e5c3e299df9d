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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..audit.mask import mask
from .refuse import Refusal

MARKER = b"EMU-MODULE\t"  # the first bytes of every marker file; then the .cu's stem and a newline
_LOADS = re.compile(r"\bcuModuleLoad(?:Data(?:Ex)?|FatBinary)?\s*\(")
_MODULE_LITERAL = re.compile(r'^"([^"\\\n]+\.(?:ptx|cubin|fatbin))"$')
UNRESOLVED = "a driver-API module that no .cu of the source tree builds"


@dataclass(frozen=True)
class Module:
    path: str     # as the program names it, relative to its working directory
    source: Path  # the .cu it is built from

    def marker(self) -> bytes:
        return MARKER + self.source.stem.encode() + b"\n"


def find(files: list[Path], roots: list[Path]) -> tuple[list[Module], list[Refusal]]:
    """The modules the program loads (when any file calls cuModuleLoad*), each resolved to a .cu
    of ``roots``; a literal that resolves to none is a Refusal naming it."""
    texts = {f: f.read_text(encoding="utf-8", errors="replace") for f in files}
    if not any(_LOADS.search(mask(t).code) for t in texts.values()):
        return [], []
    modules: dict[str, Module] = {}
    refusals: list[Refusal] = []
    for path, text in texts.items():
        masked = mask(text)
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
    base = re.sub(r"_?(?:32|64)$", "", stem)
    return [stem] if base in ("", stem) else [stem, base]


def _resolve(name: PurePosixPath, roots: list[Path]) -> Path | None:
    stems = _candidate_stems(name.stem)
    for root in roots:
        for directory in dict.fromkeys((root / name.parent, root)):
            for stem in stems:
                candidate = directory / f"{stem}.cu"
                if candidate.is_file() and any(candidate.resolve().is_relative_to(r.resolve()) for r in roots):
                    return candidate.resolve()
    return None
