"""`port fix`: repair the mechanical wave64 hazards in the CUDA source, each repair verified.

Pipeline: collect the sources (one tree walker, porting.hipify.tree; nothing through a symlink)
-> per file, the repair classes (mask.py, ballot.py, shift.py, lanemath.py, arrays.py, width.py; each
function classified first by source.py) propose edits, hazards they are not sure of become notes
-> verify.py compiles (nvcc, `port check` for gfx942/gfx950) and runs (`port emulate` at 32 and 64
lanes) the repaired file, withdrawing a failing repair alone (bisection) -> output.py prints a
diff, JSON or SARIF with fixes; ``apply`` writes the offered repairs in place (atomically, only
files of the trees that were read), ``out`` a repaired copy.

Python API::

    from porting.fix import FixRequest, run_fix
    result = run_fix(FixRequest(paths=["src/"], work=Path("build/fix")))
    result.to_json()   # schema rocm-port/fix/1 (porting/schemas/fix-1.schema.json)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..paths import OutputDir, is_within
from . import output, plan
from .model import FixResult
from .verify import Options, Verifier


@dataclass
class FixRequest:
    paths: list[str]
    work: Path  # scratch directory for the verifications
    rules: list[str] = field(default_factory=list)
    verify: bool = True
    check: bool = True
    emulate: bool = True
    nvcc: str | None = "auto"  # "auto": nvcc on PATH; None: skip the step
    sm: str = "sm_80"
    apply: bool = False
    out: Path | None = None
    includes: list[str] = field(default_factory=list)
    emulate_timeout: float = 120.0


def run_fix(req: FixRequest) -> FixResult:
    classes = plan.select(req.rules)
    _check_work(req)
    files, problems = plan.plan_paths(req.paths, classes)
    result = FixResult(files, problems)
    if req.verify:
        opts = Options(req.work, sm=req.sm, check=req.check, emulate=req.emulate,
                       includes=[os.path.abspath(i) for i in req.includes], emulate_timeout=req.emulate_timeout)
        if req.nvcc != "auto":
            opts.nvcc = req.nvcc
        verifier = Verifier(opts)
        for ff in files:
            verifier.verify(ff)
    else:
        for ff in files:
            for r in ff.repairs:
                r.status = "offered"
                r.verifications = {"nvcc": "skipped: --no-verify", "check": "skipped: --no-verify",
                                   "emulate": "skipped: --no-verify"}
    if req.apply:
        result.applied = _write_in_place(result)
    if req.out is not None:
        result.written = _write_copy(result, req.out)
    return result


def _check_work(req: FixRequest) -> None:
    work = os.path.realpath(req.work)
    for p in req.paths:
        if os.path.isdir(p) and is_within(work, os.path.realpath(p)):
            raise UsageError(f"--work {req.work}: inside the tree {p} that is repaired; give a directory outside it")
    if req.out is not None:
        out = os.path.realpath(req.out)
        for p in req.paths:
            real = os.path.realpath(p)
            if is_within(out, real) or is_within(real, out):
                raise UsageError(f"--out {req.out}: overlaps {p}; give a directory of its own")


def _write_in_place(result: FixResult) -> list[str]:
    """Each repaired file, atomically, through the OutputDir of the tree it was read from: a path
    that leaves that tree or goes through a symlink is refused (and nothing else is written)."""
    by_root: dict[str, dict[str, bytes]] = {}
    for ff in result.files:
        if ff.offered():
            by_root.setdefault(ff.root, {})[ff.path] = output.repaired_text(ff).encode("utf-8", "surrogateescape")
    written: list[str] = []
    for root, files in by_root.items():
        written += OutputDir(root).publish(files).values()
    return written


def _write_copy(result: FixResult, out: Path) -> list[str]:
    """The repaired files (and only those) under OUT, at their paths relative to their tree."""
    files = {ff.path: output.repaired_text(ff).encode("utf-8", "surrogateescape")
             for ff in result.files if ff.offered()}
    return list(OutputDir(out).publish(files).values()) if files else []
