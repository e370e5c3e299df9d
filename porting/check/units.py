"""Translation units and their flags: from a ``compile_commands.json`` or from the tree.

A compile database (CMake's ``CMAKE_EXPORT_COMPILE_COMMANDS``, Bear, or a build system's
own) gives each unit's ``-D``, ``-I``/``-isystem`` and ``-std``; everything else in its
command (nvcc's ``-gencode``, ``-O``, output names) is CUDA-build detail that says nothing
about the ROCm compile and is dropped. Without one, every ``.cu`` file and every C++ file
that includes a CUDA header is a unit, with the tree's root and its ``include`` dirs.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..parsing import loads_json

CUDA_SUFFIXES = (".cu",)
CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++")
# a C++ file is a CUDA unit when it includes one of the CUDA runtime/driver/library headers
_CUDA_INCLUDE = re.compile(rb'^\s*#\s*include\s*[<"](cuda[_a-zA-Z0-9]*\.h|cu[a-z]+\.h|cub/|thrust/|nccl\.h)',
                           re.MULTILINE)
_SKIP_DIRS = {".git", ".hg", ".svn", "build", "__pycache__", "node_modules"}


@dataclass
class Unit:
    source: str  # relative to SRC, '/'-separated
    defines: list[str] = field(default_factory=list)  # NAME or NAME=VALUE
    includes: list[str] = field(default_factory=list)  # absolute dirs in SRC or outside it
    std: str | None = None  # e.g. c++17

    def to_json(self) -> dict:
        return {"source": self.source, "defines": self.defines, "includes": self.includes, "std": self.std}


def _flag_value(args: list[str], i: int, flag: str) -> tuple[str | None, int]:
    """The value of ``-DX``/``-D X``/``--define-macro=X`` at args[i]; (None, i) if not this flag."""
    a = args[i]
    if a == flag and i + 1 < len(args):
        return args[i + 1], i + 1
    if a.startswith(flag) and len(a) > len(flag):
        return a[len(flag):].lstrip("="), i
    return None, i


def _parse_args(args: list[str], directory: str, unit: Unit) -> None:
    i = 0
    while i < len(args):
        for flag, kind in (("-D", "D"), ("--define-macro", "D"), ("-I", "I"), ("--include-path", "I"),
                           ("-isystem", "I"), ("-std", "S"), ("--std", "S")):
            value, j = _flag_value(args, i, flag)
            if value is None:
                continue
            if kind == "D":
                unit.defines.append(value)
            elif kind == "I":
                unit.includes.append(os.path.normpath(os.path.join(directory, value)))
            else:
                unit.std = value
            i = j
            break
        i += 1


def from_compile_commands(path: Path, src: Path) -> tuple[list[Unit], list[str]]:
    """Units of ``path`` whose file is under SRC (others are named in the returned notes)."""
    try:
        data = loads_json(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        raise InputError(f"--compile-commands {path}: cannot read: {exc.strerror or exc}") from None
    if not isinstance(data, list):
        raise InputError(f"--compile-commands {path}: not a JSON array of compile commands")
    units: dict[str, Unit] = {}
    notes: list[str] = []
    host = 0
    for n, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) \
                or not isinstance(entry.get("directory", ""), str):
            raise InputError(f"--compile-commands {path}: entry {n} has no 'file' string")
        directory = entry.get("directory") or str(path.parent)
        args = entry.get("arguments")
        if args is None and isinstance(entry.get("command"), str):
            try:
                args = shlex.split(entry["command"])
            except ValueError as exc:
                raise InputError(f"--compile-commands {path}: entry {n}: bad command: {exc}") from None
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise InputError(f"--compile-commands {path}: entry {n} has neither 'arguments' nor 'command'")
        file = os.path.normpath(os.path.join(directory, entry["file"]))
        rel = os.path.relpath(os.path.realpath(file), os.path.realpath(src))
        if rel.startswith(".." + os.sep) or rel == "..":
            notes.append(f"{file}: outside {src}, not checked")
            continue
        if not (file.endswith(CUDA_SUFFIXES) or _includes_cuda(file)):
            host += 1  # plain host C++ (a CMake database lists every file): not a GPU unit
            continue
        unit = Unit(Path(rel).as_posix())
        _parse_args(args[1:], directory, unit)
        units.setdefault(unit.source, unit)  # the first command for a file wins (as clangd does)
    if host:
        notes.append(f"{host} host-only file(s) in {path} (no .cu, no CUDA include): not checked")
    return sorted(units.values(), key=lambda u: u.source), notes


def tree_files(src: Path, exclude: Path | None = None) -> list[str]:
    """Every file under SRC (sorted), skipping VCS/build dirs and ``exclude`` (the output
    directory, when the user put it inside SRC: its hipified copies are not the user's code)."""
    skip = os.path.realpath(exclude) if exclude is not None else None
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")
                             and os.path.realpath(os.path.join(dirpath, d)) != skip)
        found += [os.path.join(dirpath, name) for name in sorted(filenames)]
    return found


def from_tree(src: Path, exclude: Path | None = None) -> list[Unit]:
    """Every .cu file and every C++ file that includes a CUDA header; -I the root and include dirs."""
    files = tree_files(src, exclude)
    incs = [str(src)] + sorted({os.path.dirname(f) for f in files if os.path.basename(os.path.dirname(f)) == "include"})
    units = [Path(os.path.relpath(f, src)).as_posix() for f in files
             if f.endswith(CUDA_SUFFIXES) or (f.endswith(CPP_SUFFIXES) and _includes_cuda(f))]
    return [Unit(rel, includes=list(incs)) for rel in units]


def _includes_cuda(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return _CUDA_INCLUDE.search(fh.read(4 * 1024 * 1024)) is not None
    except OSError:
        return False
