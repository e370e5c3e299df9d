"""Building a program for `port emulate`: rewrite, compile once per warp width, cache by hash.

The program's sources and the local headers the preprocessor reads for them (``g++ -MM`` at each
width, so an include in a dead ``#if`` branch is not followed; only files in the source tree) are
rewritten (porting.emulate.rewrite) into a mirror under
the output directory, at the same relative layout, so relative includes still resolve. Each
width compiles with ``g++ -include emu_runtime.h -DEMU_WARP=W`` against the runtime object (the
runtime's .cpp files partially linked into one, ``-r``), which is compiled once per (runtime
content, compiler, flags, width) and cached by that hash;
a program binary is cached the same way, so an unchanged program is not recompiled. The two
widths compile in parallel, each compiler in its own process group.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import assets, process_group
from ..errors import InputError
from ..paths import OutputDir
from ..sources import classify
from ..walk import read_regular, why_unreadable
from .rewrite import kernel_names, rewrite

MAX_FILES = 2000


@dataclass
class Toolchain:
    cxx: str = "g++"
    std: str = "c++17"
    # -O3: a kernel runs as one loop over a block's threads (the kernel inlined into it), which
    # -O3's loop passes (unrolling, vectorising across threads) speed up where -O2 does not
    # (HeCBench's kalman: 1.9x). Floating-point results are those of -O2: no -ffast-math, and
    # without -march no FMA to contract into.
    opt: str = "-O3"
    extra: tuple[str, ...] = ()  # more flags for runtime and program (-DEMU_UCONTEXT: the portable switch)

    def base_flags(self, warp: int) -> list[str]:
        return [f"-std={self.std}", self.opt, f"-DEMU_WARP={warp}", "-pthread", "-w", *self.extra]


@dataclass
class Program:
    """The rewritten sources of one program, ready to compile at any width."""
    sources: list[Path]            # the rewritten translation units
    include_dirs: list[Path]       # mirrored -I dirs first, then the user's
    defines: list[str]
    digest: str                    # hash of every rewritten file and flag
    launches: int = 0
    files: list[Path] = field(default_factory=list)  # the originals that were rewritten
    language: str = "cuda"         # "hip" when a source is HIP (porting.sources.classify)
    openmp: bool = False           # a file uses OpenMP: compiled and linked with -fopenmp
    mirror: Path | None = None     # where the rewritten copies lie (OUT/src)
    cccl: Path | None = None       # a file includes <thrust/...> or <cuda/...>: CCCL's include directory
    thrust: bool = False           # a file includes <thrust/...> (emu_thrust.h)
    libcudacxx: bool = False       # a file includes <cuda/...> (emu_libcudacxx.h)
    host_only: list[Path] = field(default_factory=list)  # of sources: plain C++, compiled without the runtime

    def flags(self) -> list[str]:
        # __FILE__ and __builtin_FILE() (the emulator's sites) name the user's file, not the copy
        # under this run's OUT: the cache is keyed by content, and a binary built for another OUT
        # (a shared --cache-dir) must report the same paths
        remap = [f"-fmacro-prefix-map={self.mirror}="] if self.mirror else []
        return [*remap, *feature_flags(self.openmp, self.cccl)]

    def force_includes(self) -> list[str]:
        return ["-include", "emu_runtime.h", *(["-include", "emu_thrust.h"] if self.thrust else []),
                *(["-include", "emu_libcudacxx.h"] if self.libcudacxx else [])]


# Thrust is header-only and ships in CCCL (nvcc's include/cccl); port emulate compiles it with its
# CPP device system, so its algorithms run on the host over host memory, which is what cudaMalloc
# and the emulated kernels use here. CCCL's fp16/bf16 support is off: the program's half types are
# the runtime's (emu_fp16.h), not the toolkit's cuda_fp16.h that CCCL would expect.
THRUST_DEFINES = ("THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP", "CCCL_DISABLE_FP16_SUPPORT",
                  "CCCL_DISABLE_BF16_SUPPORT")
_THRUST_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]thrust/', re.M)
# libcu++ (cuda::std, cuda::atomic) is compiled from the same CCCL headers, in host mode (emu_libcudacxx.h)
_LIBCUDACXX_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*<cuda/', re.M)


def feature_flags(openmp: bool, cccl: Path | None) -> list[str]:
    """The flags a program's features add, spelled once: the build uses them and the digest hashes them."""
    return [*(["-fopenmp"] if openmp else []), *thrust_flags(cccl)]


def thrust_flags(cccl: Path | None) -> list[str]:
    if cccl is None:
        return []
    return ["-isystem", str(cccl), *(f"-D{d}" for d in THRUST_DEFINES)]


def cccl_dir() -> Path | None:
    """CCCL's include directory (the one holding thrust/), from PORT_EMULATE_CCCL, else beside the
    nvcc on PATH, else the newest /usr/local/cuda*/include/cccl; None when there is none."""
    named = os.environ.get("PORT_EMULATE_CCCL")
    if named:
        return Path(named) if (Path(named) / "thrust" / "version.h").is_file() else None
    candidates: list[Path] = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(nvcc).resolve().parent.parent / "include" / "cccl")
    candidates += sorted(Path("/usr/local").glob("cuda*/include/cccl"), reverse=True)
    return next((c for c in candidates if (c / "thrust" / "version.h").is_file()), None)


class NoThrust(InputError):
    """The program includes Thrust and no CCCL headers were found (exit 2, named)."""


# OpenMP host code (cuda-samples' cudaOpenMP, HeCBench's host reductions): nvcc passes
# -Xcompiler -fopenmp; here the program is host code already, so the flag is added when a file
# read has an omp pragma or includes omp.h (comments are not told apart: a false hit only links libgomp)
_OPENMP = re.compile(r'^[ \t]*#[ \t]*(?:pragma[ \t]+omp\b|include[ \t]*[<"]omp\.h[>"])', re.M)
PREPROCESS_TIMEOUT = 120.0  # seconds for the dependency scan (an #include of a FIFO would block it)
COMPILE_TIMEOUT = 1800.0    # seconds for one width's compile


class OutsideTree(InputError):
    """A file the program includes lies outside its source tree (exit 2, the file named)."""


def read_files(sources: list[Path], include_dirs: list[Path], defines: list[str], tool: Toolchain) -> list[Path]:
    """The files the preprocessor actually reads for ``sources`` at either width (``g++ -MM``:
    an ``#include`` inside ``#if 0`` is not read), other than system headers and the emulator's
    own. Each must lie in the source tree, the sources' directories and the ``-I`` directories:
    what is copied into OUT and compiled is then what the user pointed at."""
    _refuse_special_includes(sources, include_dirs)
    roots = sorted({s.resolve().parent for s in sources} | {d.resolve() for d in include_dirs})
    runtime = assets.emulate_runtime_dir().resolve()
    found: dict[Path, None] = {s.resolve(): None for s in sources}
    for warp in (32, 64):
        cmd = [tool.cxx, f"-std={tool.std}", f"-DEMU_WARP={warp}", *_include_flags(include_dirs),
               *[f"-D{d}" for d in defines], "-include", "emu_runtime.h", "-x", "c++", "-MM", "-MG",
               *map(str, sources)]
        try:
            done = process_group.run(cmd, timeout=PREPROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise InputError(f"{sources[0]}: the preprocessor did not finish in {PREPROCESS_TIMEOUT:.0f} s "
                             "(an #include of a FIFO or device file?)") from None
        for name in _make_deps(done.stdout):
            path = Path(name)
            if not path.is_file():
                continue  # a header that does not exist: the compile names it
            real = path.resolve()
            if real.is_relative_to(runtime):
                continue
            if not any(real.is_relative_to(r) for r in roots):
                raise OutsideTree(f"{path}: included by the program but outside its source tree (the sources' "
                                  "directories and -I directories); pass -I DIR to include that directory")
            found[real] = None
        if len(found) > MAX_FILES:
            raise InputError(f"{sources[0]}: includes more than {MAX_FILES} local files")
    return list(found)


_INCLUDE_LINE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">\n]+)[">]', re.M)


def _refuse_special_includes(sources: list[Path], include_dirs: list[Path]) -> None:
    """Refuse, before the preprocessor runs, an ``#include`` naming a FIFO, socket or device in
    the program's own directories: the preprocessor would open it and block until the time-out.
    The includes are followed textually (every branch, the sources' and -I directories), each
    file read through the one bounded reader; a FIFO reached another way (a macro include) still
    ends at the preprocessing time-out."""
    todo = [s.resolve() for s in sources]
    seen: set[Path] = set()
    while todo and len(seen) <= MAX_FILES:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        data = read_regular(path)
        if data is None:
            raise InputError(f"{path}: {why_unreadable(path)}")
        for name in _INCLUDE_LINE.findall(data.decode("utf-8", errors="replace")):
            for d in (path.parent, *include_dirs):
                candidate = d / name
                if not os.path.exists(candidate) or candidate.is_dir():
                    continue
                if not candidate.is_file():
                    raise InputError(f"{candidate}: included by {path.name} but not a regular file "
                                     "(a FIFO, socket or device): not read")
                todo.append(candidate.resolve())
                break


def _make_deps(text: str) -> list[str]:
    """The prerequisites of ``g++ -MM`` rules (``target: a b \\`` continued, spaces escaped)."""
    names: list[str] = []
    for rule in text.replace("\\\n", " ").splitlines():
        if ":" not in rule:
            continue
        body = rule.split(":", 1)[1].replace("\\ ", "\0")
        names += [n.replace("\0", " ") for n in body.split()]
    return names


def prepare(files: list[Path], sources: list[Path], include_dirs: list[Path], defines: list[str],
            tool: Toolchain, mirror: Path, register: bool = False) -> Program:
    """Rewrite ``files`` (read_files) into ``mirror`` (same absolute layout below it), each with
    its own permission bits at most (a 0600 header stays 0600); ``register``: the program loads
    driver-API modules, so its C-linkage kernels and device variables are registered by name."""
    dirs = [d.resolve() for d in include_dirs]
    language = "hip" if any(classify(s) == "hip" for s in sources) else "cuda"
    defines = [*defines, "EMU_HIP=1"] if language == "hip" else list(defines)
    h = hashlib.sha256()
    launches = 0
    openmp = thrust = libcudacxx = False
    out = OutputDir(mirror)  # writes stay inside the mirror, whatever symlinks appear in it
    texts = {path: _read_text(path) for path in sorted(files)}
    kernels = set().union(*map(kernel_names, texts.values()))  # a kernel cast to void* in another file
    host_only = []
    own = {s.resolve() for s in sources}
    for path, text in texts.items():
        openmp = openmp or bool(_OPENMP.search(text))
        thrust = thrust or bool(_THRUST_INCLUDE.search(text))
        libcudacxx = libcudacxx or bool(_LIBCUDACXX_INCLUDE.search(text))
        result = rewrite(text, str(path), kernels, register)
        launches += result.launches
        if path.resolve() in own and is_host_only(path, text, result.launches):
            host_only.append(_mirrored(mirror, path.resolve()))
            h.update(b"host-only\0")
        data = result.text.encode("utf-8")
        target = _mirrored(mirror, path)
        mode = path.stat().st_mode & 0o666
        if not target.is_file() or target.read_bytes() != data or target.stat().st_mode & 0o777 != mode:
            out.write_bytes(str(target.relative_to(mirror)), data, mode=mode, durable=False)
        h.update(str(path).encode() + b"\0" + data + b"\0")
    cccl = _thrust_headers(files[0]) if thrust or libcudacxx else None
    if cccl is not None:  # another CCCL release is another program
        h.update((cccl / "thrust" / "version.h").read_bytes())
        h.update(f"thrust={thrust} libcudacxx={libcudacxx}".encode())
    for flag in [*map(str, dirs), *defines, tool.cxx, *tool.base_flags(0), *feature_flags(openmp, cccl)]:
        h.update(flag.encode() + b"\0")
    mirrored_dirs = [_mirrored(mirror, d) for d in dirs]
    return Program(sources=[_mirrored(mirror, s.resolve()) for s in sources],
                   include_dirs=[*mirrored_dirs, *dirs], defines=defines,
                   digest=h.hexdigest()[:20], launches=launches, files=files, language=language,
                   openmp=openmp, mirror=mirror, cccl=cccl, thrust=thrust, libcudacxx=libcudacxx,
                   host_only=host_only)


# nvcc compiles a .cpp/.cc/.c file as plain C++, without CUDA's headers: a book's helper header may
# then give it a CPU-only stand-in for CUDA (the CUDA Handbook's chCUDA.h under NO_CUDA: `typedef int
# cudaError_t`), which would meet the runtime's own definitions if the runtime were force-included.
# Such a file is compiled as nvcc does; it still gets the runtime by including <cuda_runtime.h>. A
# .cpp with a launch or a __global__ function was meant for `nvcc -x cu` and gets the runtime.
_HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".C")


def is_host_only(path: Path, text: str, launches: int) -> bool:
    return path.suffix in _HOST_SUFFIXES and launches == 0 and not kernel_names(text)


def _thrust_headers(first: Path) -> Path:
    cccl = cccl_dir()
    if cccl is None:
        raise NoThrust(f"{first}: uses Thrust, which port emulate compiles from CCCL's headers (the CUDA "
                       "toolkit's include/cccl); none found: set PORT_EMULATE_CCCL=DIR (the directory holding thrust/)")
    return cccl


def _read_text(path: Path) -> str:
    raw = read_regular(path)  # the one bounded reader: a file swapped for a FIFO cannot hang it
    if raw is None:
        raise InputError(f"{path}: {why_unreadable(path)}")
    return raw.decode("utf-8", errors="replace")


def _mirrored(mirror: Path, path: Path) -> Path:
    return mirror / str(path).lstrip(os.sep)


def runtime_digest(tool: Toolchain, warp: int) -> str:
    h = hashlib.sha256()
    runtime = assets.emulate_runtime_dir()
    for path in sorted(runtime.rglob("*")):
        if path.is_file() and path.suffix in (".h", ".cpp"):
            h.update(path.relative_to(runtime).as_posix().encode() + b"\0" + path.read_bytes())
    h.update(" ".join([compiler_version(tool.cxx), *tool.base_flags(warp)]).encode())
    return h.hexdigest()[:20]


def compiler_version(cxx: str) -> str:
    try:
        done = process_group.run([cxx, "--version"], timeout=60)  # a hang takes its whole tree
    except FileNotFoundError:
        raise InputError(f"C++ compiler '{cxx}' not found (port emulate compiles with the host g++)") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"C++ compiler '{cxx}' did not answer --version") from None
    return done.stdout.splitlines()[0] if done.stdout else cxx


def _include_flags(extra: list[Path]) -> list[str]:
    runtime = assets.emulate_runtime_dir()
    flags = ["-I", str(runtime / "include"), "-I", str(runtime)]
    for d in extra:
        flags += ["-I", str(d)]
    # the CUDA samples' helper headers, searched last: a program's own copy (cuda-samples' Common) wins
    return [*flags, "-idirafter", str(runtime / "samples_common")]


@dataclass
class Compiled:
    warp: int
    binary: Path | None
    seconds: float
    cached: bool
    error: str = ""          # the compiler's first error, when it failed
    stderr: str = ""


def compile_all(program: Program, tool: Toolchain, warps: list[int], cache: Path) -> dict[int, Compiled]:
    """Compile the runtime (if not cached) and the program at every width, in parallel."""
    objects = _start_all(cache, warps, lambda w: _runtime_job(tool, w, cache))
    failed = {w: c for w, c in objects.items() if c.binary is None}
    if failed:
        first = next(iter(failed.values()))
        raise InputError(f"the emulator runtime does not compile with {tool.cxx}: {first.error}")
    return _start_all(cache, warps, lambda w: _program_job(program, tool, w, cache, objects[w].binary))


@dataclass
class _Job:
    warp: int
    output: Path
    cmd: list[str] | None  # None: already cached


def _runtime_job(tool: Toolchain, warp: int, cache: Path) -> _Job:
    out = cache / f"runtime-{runtime_digest(tool, warp)}-w{warp}.o"
    runtime = assets.emulate_runtime_dir()
    sources = [runtime / name for name in assets.EMULATE_RUNTIME_SOURCES]
    # one object however many files the runtime has: -r links them into a relocatable object
    # (no start files, no libraries: the program's link adds those)
    cmd = [tool.cxx, *tool.base_flags(warp), *_include_flags([]), "-r", "-nostdlib", *map(str, sources)]
    return _Job(warp, out, None if out.is_file() else cmd + ["-o"])


def _program_job(program: Program, tool: Toolchain, warp: int, cache: Path, runtime_obj: Path | None) -> _Job:
    out = cache / f"program-{program.digest}-{runtime_obj.stem if runtime_obj else ''}"
    common = [tool.cxx, *tool.base_flags(warp), *program.flags(), *_include_flags(program.include_dirs),
              *[f"-D{d}" for d in program.defines]]
    cuda = [s for s in program.sources if s not in program.host_only]
    objects = [out.with_name(f"{out.name}.host{i}.o") for i in range(len(program.host_only))]
    cmd = [*common, *program.force_includes(), "-x", "c++", *map(str, cuda),
           "-x", "none", *map(str, objects), str(runtime_obj)]
    if program.host_only:  # host files first, each without the runtime (is_host_only), then the link
        steps = [shlex.join([*common, "-x", "c++", "-c", str(src), "-o", str(obj)])
                 for src, obj in zip(program.host_only, objects)]
        cmd = ["/bin/sh", "-c", " && ".join([*steps, '"$@"']), "sh", *cmd]
    return _Job(warp, out, None if out.is_file() else cmd + ["-o"])


def _start_all(cache: Path, warps: list[int], make) -> dict[int, Compiled]:
    cache.mkdir(parents=True, exist_ok=True)
    jobs = [make(w) for w in warps]
    procs: dict[int, tuple[_Job, subprocess.Popen | None, Path, float]] = {}
    try:
        for job in jobs:
            if job.cmd is None:
                procs[job.warp] = (job, None, job.output, time.monotonic())
                continue
            tmp = job.output.with_name(f".{job.output.name}.{os.getpid()}.tmp")
            child = process_group.spawn([*job.cmd, str(tmp)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, errors="replace")
            procs[job.warp] = (job, child, tmp, time.monotonic())
        return {w: _finish(*entry) for w, entry in procs.items()}
    finally:
        for _, proc, tmp, _ in procs.values():
            if proc is not None:  # registered with the owner until its group is gone
                process_group.stop_group(proc, grace_s=2.0)
            if proc is not None and tmp.exists():
                tmp.unlink()


def _finish(job: _Job, proc: subprocess.Popen | None, tmp: Path, began: float) -> Compiled:
    if proc is None:
        return Compiled(job.warp, job.output, 0.0, True)
    try:
        _, err = proc.communicate(timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return Compiled(job.warp, None, time.monotonic() - began, False,
                        f"the compiler did not finish in {COMPILE_TIMEOUT:.0f} s")
    seconds = time.monotonic() - began
    if proc.returncode != 0:
        return Compiled(job.warp, None, seconds, False, explain_compile_error(err), err)
    os.replace(tmp, job.output)
    return Compiled(job.warp, job.output, seconds, False, "", err)


_NOT_DECLARED = re.compile(r"[‘'](\w+)[’'] (?:was not declared in this scope|has not been declared"
                           r"|is not a member of|does not name a type)")
_NOT_IN_CUB = re.compile(r"[‘'](\w+)[’'] (?:is not a member of|in namespace) [‘'](cub|hipcub)[’']")
_NO_HEADER = re.compile(r"fatal error: ([^:]+): No such file or directory")
_GPU_NAME = re.compile(r"^(?:cuda|hip|cu|CU|nv|__)\w*")
# a program's own CPU-only stand-in for CUDA (the CUDA Handbook's chCUDA.h under NO_CUDA: `typedef
# int cudaError_t`, `static inline cudaError_t cudaMalloc(...)`) meeting the runtime's definitions
_OWN_DEFINITION = re.compile(r"(?:conflicting declaration (?:of )?[‘'](?:typedef )?[^’']*?\b(\w+)(?:\(|[’'])"
                             r"|redefinition of [‘'][^’'(]*?\b(\w+)(?:\(|[’'])"
                             r"|[‘'](\w+)[’'] conflicts with a previous declaration)")
OWN_STAND_IN = ("declares {name} itself, a CPU-only stand-in for CUDA (a book's helper header with a fallback "
                "path for host files, as the CUDA Handbook's chCUDA.h under NO_CUDA; nvcc compiles a .cpp file "
                "without CUDA's headers, port emulate compiles every file with its runtime, whose {name} it "
                "meets): not emulated; docs/emulate.md")


def explain_compile_error(stderr: str) -> str:
    """One line: an unsupported API or header by name, else the compiler's first error."""
    for line in stderr.splitlines():
        m = _NO_HEADER.search(line)
        if m:
            return f"includes <{m.group(1).strip()}>, which port emulate does not provide"
        m = _NOT_IN_CUB.search(line)
        if m:
            return f"{_location(line)}uses {m.group(2)}::{m.group(1)}, which port emulate's runtime does not provide"
        m = _NOT_DECLARED.search(line)
        if m and _GPU_NAME.match(m.group(1)):
            return f"{_location(line)}uses {m.group(1)}, which port emulate's runtime does not provide"
        m = _OWN_DEFINITION.search(line)
        name = next((g for g in m.groups() if g), "") if m else ""
        if name and _GPU_NAME.match(name):
            return _location(line) + OWN_STAND_IN.format(name=name)
    for line in stderr.splitlines():
        if " error: " in line or line.startswith("error:"):
            return line.strip()
    tail = [line for line in stderr.splitlines() if line.strip()]
    return tail[-1].strip() if tail else "the compiler failed without a message"


def _location(line: str) -> str:
    m = re.match(r"^([^:\s]+:\d+):", line)
    return f"{m.group(1)}: " if m else ""

