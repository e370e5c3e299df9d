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


@dataclass
class Unit:
    source: str  # relative to SRC, '/'-separated
    defines: list[str] = field(default_factory=list)  # NAME or NAME=VALUE
    includes: list[str] = field(default_factory=list)  # absolute dirs in SRC or outside it
    std: str | None = None  # e.g. c++17

    def to_json(self) -> dict:
        return {"source": self.source, "defines": self.defines, "includes": self.includes, "std": self.std}


def _flag_value(args: list[str], i: int, flag: str) -> tuple[str | None, int]:
    """The value of ``-DX``/``-D X``/``--define-macro=X`` at args[i]; (None, i) if not this flag.
    A long flag (``--include-path``, ``-std``) takes its value only after ``=`` or as the next
    argument: ``-stdlib=libc++`` is not ``-std`` with the value ``lib=libc++``."""
    a = args[i]
    if a == flag and i + 1 < len(args):
        return args[i + 1], i + 1
    if len(flag) == 2 and a.startswith(flag) and len(a) > 2:  # -DX, -IX
        return a[2:], i
    if a.startswith(flag + "="):
        return a[len(flag) + 1:], i
    return None, i


_CXX_STD = re.compile(r"(?:c|gnu)\+\+\w+")
_RESPONSE_DEPTH = 8  # @file inside @file ...: deeper is a loop, not a build
_RESPONSE_MAX = 1 << 20  # a response file is a list of flags; a bigger one is not read


def expand_response_files(args: list[str], directory: str, depth: int = 0) -> list[str]:
    """``@file`` (clang, gcc, nvcc) and nvcc's ``--options-file F``/``-optf F`` replaced by the
    flags in the file (relative to the entry's directory), as the compiler itself would read them."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        name = None
        if a.startswith("@") and len(a) > 1:
            name = a[1:]
        elif a in ("--options-file", "-optf") and i + 1 < len(args):
            name, i = args[i + 1], i + 1
        elif a.startswith("--options-file="):
            name = a.split("=", 1)[1]
        if name is None:
            out.append(a)
        else:
            out += _response_file(os.path.join(directory, name), directory, depth)
        i += 1
    return out


def _response_file(path: str, directory: str, depth: int) -> list[str]:
    if depth >= _RESPONSE_DEPTH:
        raise InputError(f"{path}: response files nested more than {_RESPONSE_DEPTH} deep")
    from ..walk import read_regular

    data = read_regular(path, _RESPONSE_MAX)
    if data is None:
        raise InputError(f"{path}: response file named in the compile database: not a readable regular file "
                         f"of at most {_RESPONSE_MAX} bytes")
    try:
        words = shlex.split(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: response file: cannot parse: {exc}") from None
    return expand_response_files(words, directory, depth + 1)


def _parse_args(args: list[str], directory: str, unit: Unit, notes: list[str]) -> None:
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
            elif _CXX_STD.fullmatch(value):
                unit.std = value
            else:  # a C standard (a .c rule's flags on a .cu file) or nvcc's own: HIP is C++, keep the default
                notes.append(f"{unit.source}: -std={value} is not a C++ standard: compiled as the default C++")
            i = j
            break
        i += 1


def _check_entry_text(path: Path, n: int, entry: dict, args: list[str]) -> None:
    """A NUL byte cannot be in a path or an argument of a real compile: a one-line refusal."""
    for what, value in (("file", entry["file"]), ("directory", entry.get("directory") or ""), *(
            ("argument", a) for a in args)):
        if "\0" in value:
            raise InputError(f"--compile-commands {path}: entry {n}: a NUL byte in its {what}")


def from_compile_commands(path: Path, src: Path) -> tuple[list[Unit], list[str]]:
    """Every unit of ``path`` whose file is under SRC (others are named in the returned notes).
    A unit the database lists is checked whether or not its own text names a CUDA header (it
    may reach CUDA through a project header): the build compiles it, so `port check` does.
    Only C sources are left out: HIP is C++, and a C file compiled as C++ fails for nothing."""
    try:
        data = loads_json(path.read_text(encoding="utf-8"), str(path))
    except UnicodeDecodeError:
        raise InputError(f"--compile-commands {path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"--compile-commands {path}: cannot read: {exc.strerror or exc}") from None
    if not isinstance(data, list):
        raise InputError(f"--compile-commands {path}: not a JSON array of compile commands")
    units: dict[str, Unit] = {}
    notes: list[str] = []
    c_files = 0
    for n, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) \
                or not isinstance(entry.get("directory", ""), str):
            raise InputError(f"--compile-commands {path}: entry {n} has no 'file' string")
        directory = entry.get("directory") or str(path.parent)
        args = _entry_args(path, n, entry)
        _check_entry_text(path, n, entry, args)
        file = os.path.normpath(os.path.join(directory, entry["file"]))
        rel = os.path.relpath(os.path.realpath(file), os.path.realpath(src))
        if rel.startswith(".." + os.sep) or rel == "..":
            notes.append(f"{file}: outside {src}, not checked")
            continue
        if file.endswith(".c"):
            c_files += 1
            continue
        unit = Unit(Path(rel).as_posix())
        _parse_args(expand_response_files(args[1:], directory), directory, unit, notes)
        units.setdefault(unit.source, unit)  # the first command for a file wins (as clangd does)
    if c_files:
        notes.append(f"{c_files} C file(s) in {path}: not checked (HIP compiles C++)")
    return sorted(units.values(), key=lambda u: u.source), notes


def _entry_args(path: Path, n: int, entry: dict) -> list[str]:
    args = entry.get("arguments")
    if args is None and isinstance(entry.get("command"), str):
        try:
            args = shlex.split(entry["command"])
        except ValueError as exc:
            raise InputError(f"--compile-commands {path}: entry {n}: bad command: {exc}") from None
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise InputError(f"--compile-commands {path}: entry {n} has neither 'arguments' nor 'command'")
    return args


def tree_files(src: Path, exclude: Path | None = None) -> list[str]:
    """Every regular file under SRC (sorted) through the one walker (``porting.walk``): VCS and
    build dirs skipped, no symlink out of SRC, no FIFO, and not ``exclude`` (the output
    directory, when the user put it inside SRC: its hipified copies are not the user's code)."""
    from ..walk import source_files

    return source_files([src], exclude=exclude)[0]


def from_tree(src: Path, exclude: Path | None = None) -> list[Unit]:
    """Without a database, the units a build would compile: every .cu file and every C++ file
    that reaches a CUDA header, directly or through the project's own headers (``a.cpp`` ->
    ``driver_api.h`` -> ``cuda.h``); a source file another source ``#include``s is part of that
    unit, not a unit of its own. -I the root and the tree's ``include`` dirs."""
    files = tree_files(src, exclude)
    incs = [str(src)] + sorted({os.path.dirname(f) for f in files if os.path.basename(os.path.dirname(f)) == "include"})
    graph = _IncludeGraph(set(files), incs)
    sources = [f for f in files if f.endswith(CUDA_SUFFIXES + CPP_SUFFIXES)]
    included = {dep for f in sources for dep in graph.local(f)}
    units = [Path(os.path.relpath(f, src)).as_posix() for f in sources
             if f not in included and (f.endswith(CUDA_SUFFIXES) or graph.reaches_cuda(f))]
    return [Unit(rel, includes=list(incs)) for rel in units]


_INCLUDE = re.compile(rb'^\s*#\s*include\s*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_HEAD = 4 * 1024 * 1024


class _IncludeGraph:
    """The tree's own #include edges (resolved as the compiler would: a quoted name beside the
    including file first, then the -I dirs), and which files reach a CUDA header through them."""

    def __init__(self, files: set[str], incs: list[str]) -> None:
        self.files, self.incs = files, incs
        self._local: dict[str, list[str]] = {}
        self._cuda: dict[str, bool] = {}

    def _read(self, path: str) -> bytes:
        from ..walk import read_head

        return read_head(path, _HEAD) or b""

    def local(self, path: str) -> list[str]:
        if path not in self._local:
            found = []
            for quote, name in _INCLUDE.findall(self._read(path)):
                rel = name.decode("utf-8", "surrogateescape").strip()
                dirs = ([os.path.dirname(path)] if quote == b'"' else []) + self.incs
                hit = next((c for c in (os.path.normpath(os.path.join(d, rel)) for d in dirs) if c in self.files), None)
                if hit is not None and hit != path:
                    found.append(hit)
            self._local[path] = found
        return self._local[path]

    def reaches_cuda(self, path: str) -> bool:
        todo, seen = [path], set()
        while todo:  # iterative: include cycles and deep chains are fine
            cur = todo.pop()
            if cur in seen:
                continue
            seen.add(cur)
            if self._cuda.get(cur) or _CUDA_INCLUDE.search(self._read(cur)):
                self._cuda[path] = True
                return True
            todo += self.local(cur)
        self._cuda[path] = False
        return False


def _includes_cuda(path: str) -> bool:
    from ..walk import read_head

    head = read_head(path, 4 * 1024 * 1024)
    return head is not None and _CUDA_INCLUDE.search(head) is not None
