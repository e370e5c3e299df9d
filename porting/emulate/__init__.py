"""`port emulate`: run a CUDA/HIP program on the CPU at 32- and 64-lane warps and compare.

Pipeline: refuse what is not emulated (refuse.py) -> rewrite launches and dynamic shared
memory (rewrite.py) -> compile once per warp width against the fiber runtime in runtime/
(build.py) -> run each width in its own directory and compare (run.py). `emulate()` takes a
Request and returns a Result record; porting.commands.emulate is the thin CLI over it.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, PortError, UsageError
from ..paths import OutputDir
from . import build, modules, refuse, run, sandbox

SCHEMA = 1
WARPS = (32, 64)  # the widths the runtime models: CUDA warps and CDNA wavefronts


class Unsupported(InputError):
    """The program uses something the emulator does not model (exit 2, the feature named)."""


class Inconclusive(PortError):
    """A run hit the timeout: neither same nor diverged (exit 3; the JSON keeps the partial output)."""

    exit_code = 3


@dataclass
class Request:
    sources: list[Path]
    out_dir: Path
    include_dirs: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    warps: list[int] = field(default_factory=lambda: list(WARPS))
    compare: list[str] = field(default_factory=lambda: ["stdout", "exit"])
    masks: list[str] = field(default_factory=list)
    program_args: list[str] = field(default_factory=list)
    stdin: Path | None = None
    cwd: Path | None = None
    timeout: float = 600.0
    cxx: str = "g++"
    std: str = "c++17"
    cache_dir: Path | None = None  # compiled runtime and programs (default: OUT/cache)
    default_masks: bool = True     # run.DEFAULT_MASKS (timings, rates) besides ``masks``
    sandbox: bool = True           # run the program in bwrap (porting.emulate.sandbox)
    mask_faults: str = "stop"      # "report": a 32-bit mask at 64 lanes is a finding, widened, and the run goes on
    strict_sync: bool = False      # a mask naming a lane waiting elsewhere faults (default: finding, go on)


@dataclass
class Result:
    request: Request
    runs: list[run.Run]
    differences: list[run.Difference]
    launches: int
    files: list[Path]
    language: str
    seconds: float

    @property
    def verdict(self) -> str:
        if self.differences:  # after a timeout, only differences that are already certain (run._partial_diff)
            return "diverged"
        return "inconclusive" if any(r.status == "timeout" for r in self.runs) else "same"

    def to_json(self) -> dict:
        r = self.request
        return {"schema": SCHEMA, "verdict": self.verdict,
                "sources": [str(s) for s in r.sources], "files": [str(f) for f in self.files],
                "launch_sites": self.launches,
                "language": self.language, "warps": r.warps, "compare": r.compare, "masks": r.masks,
                "default_masks": list(run.DEFAULT_MASKS) if r.default_masks else [],
                "column_mask": r.default_masks,
                "sandbox": "bwrap" if r.sandbox else "none",
                "mask_faults": r.mask_faults, "sync": "strict" if r.strict_sync else "hardware",
                "program_args": r.program_args,
                "seconds": round(self.seconds, 3),
                "runs": [x.to_json() for x in self.runs],
                "differences": [d.to_json() for d in self.differences],
                "executed": "on the host CPU by the port emulate fiber runtime (no GPU involved)"}


def check_request(req: Request) -> list[re.Pattern[str]]:
    for s in req.sources:
        if not s.is_file():
            raise UsageError(f"{s}: source file does not exist")
    for d in req.include_dirs:
        if not d.is_dir():
            raise UsageError(f"-I {d}: not a directory")
    bad = [w for w in req.warps if w not in WARPS]
    if bad or not req.warps:
        raise UsageError(f"--warp: widths must be among {', '.join(map(str, WARPS))}, got {req.warps}")
    if req.stdin is not None and not req.stdin.is_file():
        raise UsageError(f"--stdin {req.stdin}: not a file")
    if req.cwd is not None and not req.cwd.is_dir():
        raise UsageError(f"--cwd {req.cwd}: not a directory")
    if req.mask_faults not in ("stop", "report"):
        raise UsageError(f"--mask-faults: stop or report, got {req.mask_faults}")
    if req.timeout <= 0:
        raise UsageError(f"--timeout: must be positive, got {req.timeout}")
    try:
        return [re.compile(m) for m in [*req.masks, *(run.DEFAULT_MASKS if req.default_masks else ())]]
    except re.error as exc:
        raise UsageError(f"--mask: not a regular expression: {exc}") from None


def emulate(req: Request) -> Result:
    """Build and run ``req``'s program at each width; raises Unsupported / InputError (exit 2)."""
    began = time.monotonic()
    masks = check_request(req)
    tool_bwrap = sandbox.bwrap() if req.sandbox else None
    tool = build.Toolchain(cxx=req.cxx, std=req.std)
    scanned = scan_program(req.sources, req.include_dirs, req.defines, tool)
    if scanned.refusals:  # before anything is copied into OUT
        more = f" (and {len(scanned.refusals) - 1} more)" if len(scanned.refusals) > 1 else ""
        raise Unsupported(scanned.refusals[0].message() + more)
    _refuse_links(req.out_dir, req.warps, req.cache_dir)
    program = build.prepare(scanned.files, scanned.sources, req.include_dirs, req.defines, tool,
                            req.out_dir / "src", register=bool(scanned.loaded))
    compiled = build.compile_all(program, tool, req.warps, req.cache_dir or req.out_dir / "cache")
    # one epoch for every width: a program seeding from time() gets the same inputs at each
    env = {"EMU_MASK_FAULTS": req.mask_faults, "EMU_SYNC": "strict" if req.strict_sync else "hardware",
           "EMU_EPOCH": str(int(time.time())), "EMU_NVRTC_SOURCES": modules.nvrtc_env(scanned.loaded)}
    launch = run.Launch(req.program_args, "./" + req.sources[0].stem, tool_bwrap, env)
    runs = [_run_width(req, compiled[w], str(req.out_dir / "src"), launch, scanned.loaded) for w in req.warps]
    _raise_if_unrunnable(runs)
    diffs = run.compare(runs, req.compare, masks, tables=req.default_masks)
    return Result(req, runs, diffs, program.launches, program.files, program.language, time.monotonic() - began)


@dataclass
class Scanned:
    sources: list[Path]              # the request's, then each module's .cu that is not one of them
    files: list[Path]                # every file the preprocessor reads for them (build.read_files)
    loaded: list[modules.Module]     # the driver-API modules the program loads
    refusals: list[refuse.Refusal]


def scan_program(sources: list[Path], include_dirs: list[Path], defines: list[str],
                 tool: build.Toolchain) -> Scanned:
    """The files a program is built from and what in them is refused: its sources' files, and,
    when it loads driver-API modules, the .cu each is built from (porting.emulate.modules) with
    the files that one reads, under the same containment rules."""
    files = build.read_files(sources, include_dirs, defines, tool)
    roots = list(dict.fromkeys([s.resolve().parent for s in sources] + [d.resolve() for d in include_dirs]))
    found, refusals = modules.find(files, roots)
    extra = list(dict.fromkeys(m.source for m in found if m.source not in files))
    if extra:
        sources = [*sources, *extra]
        files = build.read_files(sources, include_dirs, defines, tool)
    found = [modules.unit_of(m, sources) for m in found]
    return Scanned(sources, files, found, refusals + refuse.scan(files))


def _refuse_links(out: Path, warps: list[int], cache: Path | None) -> None:
    """The paths port emulate writes below OUT must not be symbolic links (a link at OUT/cache
    would put the built binaries wherever it points)."""
    names = [f"run-w{w}{suffix}" for w in warps for suffix in ("", ".stdout", ".stderr")]
    names += ["src"] + (["cache"] if cache is None else [])
    for name in names:
        if (out / name).is_symlink():
            raise InputError(f"{out / name}: a symbolic link; port emulate writes only inside {out}, "
                             "remove it or choose another --out")


def _run_width(req: Request, compiled: build.Compiled, mirror: str, launch: run.Launch,
               loaded: list[modules.Module]) -> run.Run:
    if compiled.binary is None:
        fault = compiled.error.replace(mirror, "")
        return run.Run(compiled.warp, "build-failed", None, "", compiled.stderr.replace(mirror, ""),
                       0.0, compiled.seconds, False, fault)
    workdir = req.out_dir / f"run-w{compiled.warp}"
    run.prepare_workdir(workdir, req.cwd)
    out = OutputDir(workdir)
    for module in loaded:  # what cuModuleLoad* reads in place of the image (modules.MARKER)
        if not module.nvrtc:
            out.write_bytes(module.path, module.marker(), mode=0o644, durable=False)
        elif not os.path.lexists(workdir / module.path):  # the source NVRTC is given, read at run time
            out.write_bytes(module.path, module.source.read_bytes(), mode=0o644, durable=False)
    files = [c for c in req.compare if c not in ("stdout", "exit")]
    result = run.run_binary(compiled.binary, compiled.warp, launch, workdir, req.stdin, req.timeout, files)
    result.compile_seconds, result.compile_cached = compiled.seconds, compiled.cached
    for site in [*result.sites, *result.reached]:  # a binary built before -fmacro-prefix-map named the copy
        if site.file.startswith(mirror + os.sep):
            site.file = site.file[len(mirror):]
    return result


def _raise_if_unrunnable(runs: list[run.Run]) -> None:
    for r in runs:
        if r.status == "unsupported":
            raise Unsupported(f"warp {r.warp}: {r.fault}")
    statuses = {r.status for r in runs}
    if statuses == {"build-failed"}:
        if "port emulate" in runs[0].fault:  # build.explain_compile_error named a missing API/header
            raise Unsupported(runs[0].fault)
        raise InputError(f"does not compile: {runs[0].fault}")
    if len(runs) > 1 and all(r.status == "ran" and (r.fault or (r.exit or 0) < 0) for r in runs):
        # crashed or faulted at every width: nothing width-dependent to compare
        first = runs[0]
        why = first.fault or f"killed by signal {-(first.exit or 0)}"
        raise InputError(f"the program fails at every width, so the widths cannot be compared: "
                         f"warp {first.warp}: {why}")
