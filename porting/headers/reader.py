"""``declared_names``: what a set of headers declares, as clang itself parses them.

Two compiler runs over one generated translation unit that includes the headers: an AST dump
(``-fsyntax-only -Xclang -ast-dump=json``) for functions, types, enum constants and variables
with their deprecated/unavailable/[[nodiscard]] attributes, and ``-E -dD`` for macros and the
list of files read. Generic over language, include dirs and defines, so the same reader serves
ROCm's HIP headers and the CUDA toolkit's.

The answer is cached under ``<cache>/headers/`` keyed by the compiler's version and the exact
invocation, and validated by the content hash of every file the preprocessor entered (a stat
match skips the rehash): parsing takes seconds, a cache hit milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import process_group
from ..atomic import write_json
from ..errors import InputError, ToolError
from ..paths import sha256_file
from ..probe.toolcache import cache_dir, cached_version
from . import astjson, macros
from .model import HeaderNames

DEFAULT_COMPILER = "clang++-22"
CACHE_SUBDIR = "headers"
_LANGUAGE_FLAGS = {
    "c": ["-x", "c"],
    "c++": ["-x", "c++", "-std=c++17"],
    # host side only: the names are the same on both sides and the device pass needs device libs
    "hip": ["-x", "hip", "-std=c++17", "--offload-host-only", "-nogpuinc", "-nogpulib"],
    "cuda": ["-x", "cuda", "-std=c++17", "--cuda-host-only", "-nocudainc", "-nocudalib"],
}
LANGUAGES = tuple(_LANGUAGE_FLAGS)
_TIMEOUT = 300


def _resource_dir(compiler: str) -> str | None:
    """clang's resource dir: ROCm's amd_hip_runtime.h includes <include/cuda_wrappers/...> from
    it, as hipcc puts it on the include path."""
    try:
        out = process_group.run([compiler, "-print-resource-dir"], timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _argv(compiler: str, language: str, include_dirs: Sequence[str], defines: Mapping[str, str | None],
          extra: Sequence[str]) -> list[str]:
    argv = [compiler, *_LANGUAGE_FLAGS[language], "-w"]
    if language == "hip":
        resource = _resource_dir(compiler)
        argv += ["-isystem", resource] if resource else []
    argv += [f"-isystem{d}" for d in include_dirs]
    argv += [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in sorted(defines.items())]
    return argv + list(extra)


def _fingerprints(files: Sequence[str]) -> dict[str, list]:
    out: dict[str, list] = {}
    for path in sorted(files):
        st = os.stat(path)
        out[path] = [st.st_size, st.st_mtime_ns, sha256_file(path)]
    return out


def _still_valid(fingerprints: Mapping[str, list]) -> bool:
    """Every file the answer came from still has the same content (stat match, else rehash)."""
    for path, (size, mtime, digest) in fingerprints.items():
        try:
            st = os.stat(path)
            if (st.st_size, st.st_mtime_ns) == (size, mtime):
                continue
            if st.st_size != size or sha256_file(path) != digest:
                return False
        except OSError:
            return False
    return True


def _run(argv: list[str]) -> subprocess.Popen[bytes]:
    return process_group.spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(proc: subprocess.Popen[bytes], what: str) -> str:
    try:
        out, err = proc.communicate(timeout=_TIMEOUT)
    except subprocess.TimeoutExpired:
        process_group.stop_group(proc, 2.0)  # the compiler and whatever it started
        raise ToolError(f"{what}: the compiler did not finish within {_TIMEOUT}s") from None
    if proc.returncode != 0:
        first = next((ln for ln in err.decode(errors="replace").splitlines() if "error" in ln), "")
        raise ToolError(f"{what}: exit {proc.returncode}: {first.strip() or 'no error message'}")
    return out.decode(errors="replace")


def _parse(argv: list[str], tu: str, roots: list[str], markers: list[str], what: str) -> tuple[dict, set[str]]:
    with tempfile.TemporaryDirectory(prefix="port-headers-") as tmp:
        source = Path(tmp) / "declared_names.cpp"
        source.write_text(tu)
        ast = _run([*argv, "-fsyntax-only", "-Xclang", "-ast-dump=json", str(source)])
        pre = _run([*argv, "-E", "-dD", str(source), "-o", "-"])
        try:
            ast_text, pre_text = _finish(ast, what), _finish(pre, what)
        finally:
            for proc in (ast, pre):
                process_group.stop_group(proc, 2.0)
    wanted = astjson.under_roots(roots)
    decls = astjson.collect(ast_text, wanted, tuple(roots) + tuple(markers))
    macro_decls, files = macros.collect(pre_text, wanted)
    for name, macro in macro_decls.items():
        if name in decls:
            decls[name].kinds.append("macro")
        else:
            decls[name] = macro
    return decls, {os.path.realpath(f) for f in files if os.path.isfile(f)}


def declared_names(headers: Sequence[str], *, include_dirs: Sequence[str | os.PathLike[str]],
                   language: str = "c++", defines: Mapping[str, str | None] | None = None,
                   roots: Sequence[str | os.PathLike[str]] | None = None, compiler: str | None = None,
                   extra_args: Sequence[str] = (), env: Mapping[str, str] | None = None,
                   use_cache: bool = True) -> HeaderNames:
    """The names declared by ``headers`` (as in ``#include <h>``), restricted to declarations
    whose file lies under ``roots`` (default: ``include_dirs``)."""
    if language not in _LANGUAGE_FLAGS:
        raise InputError(f"language: {language!r} is not one of {', '.join(LANGUAGES)}")
    if not headers:
        raise InputError("headers: give at least one header to read")
    dirs = [os.path.realpath(d) for d in include_dirs]
    for d in dirs:
        if not os.path.isdir(d):
            raise InputError(f"{d}: include directory does not exist")
    root_list = [os.path.realpath(r) for r in (roots if roots is not None else dirs)]
    env = dict(os.environ if env is None else env)
    tool = shutil.which(compiler or DEFAULT_COMPILER, path=env.get("PATH"))
    if tool is None:
        raise ToolError(f"{compiler or DEFAULT_COMPILER}: compiler not found on PATH")
    version = cached_version(tool, lambda: _clang_version(tool), env) or "unknown"
    argv = _argv(tool, language, dirs, dict(defines or {}), extra_args)
    tu = "".join(f"#include <{h}>\n" for h in headers)
    key = hashlib.sha256(json.dumps([version, argv, tu, root_list]).encode()).hexdigest()[:32]
    cache_file = Path(cache_dir(env)) / CACHE_SUBDIR / f"{key}.json"
    if use_cache:
        hit = _load(cache_file)
        if hit is not None:
            return hit
    what = f"reading {', '.join(headers)} with {tool}"
    decls, files = _parse(argv, tu, root_list, [str(r) for r in (roots or [])], what)
    result = HeaderNames(tool, version, language, list(headers), dirs, root_list, decls,
                         sorted(f for f in files if astjson.under_roots(root_list)(f)))
    if use_cache:
        _store(cache_file, result, files)
    return result


def _clang_version(tool: str) -> str | None:
    try:
        out = process_group.run([tool, "--version"], timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0].strip() if out.strip() else None


def _load(cache_file: Path) -> HeaderNames | None:
    try:
        data = json.loads(cache_file.read_text())
        if not _still_valid(data["fingerprints"]):
            return None
        names = HeaderNames.from_json(data["names"], str(cache_file))
    except (OSError, ValueError, KeyError, TypeError, InputError):
        return None  # a missing, stale or damaged cache entry is a miss, never an error
    names.cached = True
    return names


def _store(cache_file: Path, names: HeaderNames, files: set[str]) -> None:
    try:
        write_json(cache_file, {"names": names.to_json(), "fingerprints": _fingerprints(sorted(files))},
                   indent=None)
    except OSError:
        pass  # an unwritable cache only costs the next call a parse
