"""Every repair is verified before it is offered; one that fails a step is withdrawn alone.

The steps, each against the original file as the baseline (a step the original already fails
does not judge the repairs: it is recorded as skipped, with the reason):

1. ``nvcc``: the repaired CUDA compiles with nvcc for an sm arch (when nvcc is present);
2. ``check``: `port check` (hipify, then clang for gfx942 and gfx950 against the ROCm 7 headers)
   reports no error the original did not have;
3. ``emulate``: where the file is a program (it has ``main``) that `port emulate` runs, the
   repaired program at 32 lanes gives the original's result at 32 lanes (stdout and exit).
   Whether the repaired program then agrees at 64 lanes with 32 is recorded per file
   (``FileFix.emulation``: before/after verdicts), not required of each repair: a subset of the
   repairs may leave another hazard in place.

A file's repairs are verified together; when the set fails, it is split in halves and each half
verified alone (bisection), down to single repairs, so a failing repair withdraws only itself; the
surviving halves are verified together once more (a conflict between them withdraws the later).
The repaired file is compiled from a scratch copy at the same relative path, with the original's
directory and root on the include path, so its own includes resolve.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import process_group
from ..errors import PortError
from ..paths import OutputDir
from . import plan
from .model import FileFix, Repair

HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".cuh", ".hxx", ".inl")
_MAIN = re.compile(r"\bint\s+main\s*\(")
_MASK_ERROR = re.compile(r"64-bit|mask|ballot", re.IGNORECASE)


@dataclass
class Options:
    work: Path  # scratch directory (compiles, hipified trees, emulator builds)
    nvcc: str | None = field(default_factory=lambda: shutil.which("nvcc"))
    sm: str = "sm_80"
    check: bool = True
    emulate: bool = True
    timeout: float = 300.0  # nvcc and each port check compile
    emulate_timeout: float = 120.0  # each emulated run
    includes: list[str] = field(default_factory=list)  # -I for every step, after the file's own dirs


@dataclass
class Step:
    ok: bool
    detail: str  # "pass (...)" / "fail: ..." / "skipped: ..."


@dataclass
class Baseline:
    nvcc: str = ""  # "" = the original compiles; else why the step is skipped
    check_errors: set[str] | None = None  # None: check skipped (reason in check_skip)
    check_skip: str = ""
    mask_errors: int = 0
    emu32: tuple[int | None, str] | None = None  # the original's (exit, stdout) at 32 lanes
    emu_skip: str = ""
    emu_verdict: str = ""


class Verifier:
    def __init__(self, options: Options) -> None:
        self.opt = options
        self._count = 0
        self._toolchain_facts: tuple[Any, Any] | None = None  # (plan, machine), probed once
        self.out = OutputDir(options.work)
        self._memo: dict[str, dict[str, Step]] = {}  # repaired text -> its steps (a set is tried once)

    # -- the whole file ---------------------------------------------------------------------
    def verify(self, ff: FileFix) -> None:
        real = [r for r in ff.repairs if r.kind != "header"]
        if not real:
            return
        base = self._baseline(ff)
        kept = self._accept(ff, base, real)
        for r in real:
            if r in kept:
                r.status = "offered"
        for r in ff.repairs:
            if r.kind == "header":
                r.status = "offered" if any(k.needs_header for k in kept) else "withdrawn"
                r.reason = "" if r.status == "offered" else "no offered repair names GPU_FULL_MASK"
        final = self._steps(ff, base, plan.with_header(ff.repairs, kept)) if kept else {}
        for r in ff.repairs:
            if r.status == "offered":
                r.verifications = {k: v.detail for k, v in final.items() if k != "emulate64"}
        if base.emu32 is not None:
            after = final.get("emulate64")
            ff.emulation = {"before": base.emu_verdict,
                            "after": (after.detail if after else "not run (no repair offered)"),
                            "executed": "on the host CPU by the port emulate fiber runtime (no GPU involved)"}

    def _accept(self, ff: FileFix, base: Baseline, cands: list[Repair]) -> list[Repair]:
        steps = self._steps(ff, base, plan.with_header(ff.repairs, cands))
        failed = next((s for k, s in steps.items() if not s.ok), None)
        if failed is None:
            return cands
        if len(cands) == 1:
            r = cands[0]
            r.status, r.reason = "withdrawn", failed.detail
            r.verifications = {k: v.detail for k, v in steps.items() if k != "emulate64"}
            return []
        half = len(cands) // 2
        left = self._accept(ff, base, cands[:half])
        right = self._accept(ff, base, cands[half:])
        if not left or not right:
            return left + right
        both = self._steps(ff, base, plan.with_header(ff.repairs, left + right))
        clash = next((s for s in both.values() if not s.ok), None)
        if clash is None:
            return left + right
        for r in right:
            r.status, r.reason = "withdrawn", f"conflicts with other repairs of the file: {clash.detail}"
        return left

    # -- steps ------------------------------------------------------------------------------
    def _steps(self, ff: FileFix, base: Baseline, chosen: list[Repair]) -> dict[str, Step]:
        text = plan.apply(ff.original, chosen)
        key = f"{ff.root}\0{ff.path}\0{text}"
        if key not in self._memo:
            self._memo[key] = self._run_steps(ff, base, text)
        return self._memo[key]

    def _run_steps(self, ff: FileFix, base: Baseline, text: str) -> dict[str, Step]:
        scratch = self._scratch(ff, text)
        out: dict[str, Step] = {"nvcc": self._nvcc_step(ff, scratch, base)}
        if out["nvcc"].ok:
            out["check"] = self._check_step(ff, scratch, base)
        if out["nvcc"].ok and out["check"].ok:
            out["emulate"], e64 = self._emulate_step(ff, scratch, base)
            if e64 is not None:
                out["emulate64"] = e64
        return out

    def _scratch(self, ff: FileFix, text: str) -> Path:
        self._count += 1
        root = Path(self.opt.work) / f"v{self._count}"
        self.out.write_bytes(f"v{self._count}/src/{ff.path}", text.encode("utf-8", "surrogateescape"), durable=False)
        return root / "src" / ff.path

    def _includes(self, ff: FileFix) -> list[str]:
        dirs = [str(Path(ff.root, ff.path).parent), ff.root, *self.opt.includes]
        return list(dict.fromkeys(dirs))

    def _baseline(self, ff: FileFix) -> Baseline:
        base = Baseline()
        scratch = self._scratch(ff, ff.original)
        if self.opt.nvcc is None:
            base.nvcc = "nvcc not found"
        else:
            rc, err = self._nvcc(ff, scratch)
            base.nvcc = "" if rc == 0 else f"the original does not compile with nvcc: {_first_error(err)}"
        if not self.opt.check:
            base.check_skip = "not asked (--no-check)"
        else:
            try:
                errors = self._check(ff, scratch)
                base.check_errors = {e for e in errors}
                base.mask_errors = sum(bool(_MASK_ERROR.search(e)) for e in errors)
            except PortError as exc:
                base.check_skip = f"port check cannot run here: {exc}"
        if not self.opt.emulate:
            base.emu_skip = "not asked (--no-emulate)"
        elif not _MAIN.search(ff.original) or ff.path.endswith(HEADER_SUFFIXES):
            base.emu_skip = "not a program (no main in this file)"
        else:
            try:
                runs = self._emulate(scratch, ff, [32, 64])
                if runs[0][0] is None:  # a timeout at 32 lanes is no result to keep
                    base.emu_skip = f"the original's 32-lane run did not finish under port emulate ({runs[0][1]})"
                else:
                    base.emu32 = runs[0]
                    base.emu_verdict = "same" if runs[0] == runs[1] else "diverged"
            except PortError as exc:
                base.emu_skip = f"port emulate does not run it: {exc}"
        return base

    def _nvcc_step(self, ff: FileFix, scratch: Path, base: Baseline) -> Step:
        if base.nvcc:
            return Step(True, f"skipped: {base.nvcc}")
        rc, err = self._nvcc(ff, scratch)
        if rc == 0:
            return Step(True, f"pass (nvcc -arch={self.opt.sm})")
        return Step(False, f"fail: nvcc -arch={self.opt.sm}: {_first_error(err)}")

    def _check_step(self, ff: FileFix, scratch: Path, base: Baseline) -> Step:
        if base.check_errors is None:
            return Step(True, f"skipped: {base.check_skip}")
        errors = self._check(ff, scratch)
        new = sorted(set(errors) - base.check_errors)
        if new:
            return Step(False, f"fail: port check (gfx942, gfx950): new error: {new[0]}")
        masks = sum(bool(_MASK_ERROR.search(e)) for e in errors)
        return Step(True, f"pass (port check, gfx942 and gfx950 against ROCm 7 headers: no new error; "
                          f"mask/ballot errors {base.mask_errors} -> {masks}; errors {len(base.check_errors)} -> "
                          f"{len(set(errors))})")

    def _emulate_step(self, ff: FileFix, scratch: Path, base: Baseline) -> tuple[Step, Step | None]:
        """The 32-lane check, and the 64-lane verdict of the same runs (the file's record)."""
        if base.emu32 is None:
            return Step(True, f"skipped: {base.emu_skip}"), None
        try:
            runs = self._emulate(scratch, ff, [32, 64])
        except PortError as exc:
            return Step(False, f"fail: the repaired program no longer runs under port emulate: {exc}"), None
        if runs[0] != base.emu32:
            return Step(False, "fail: port emulate: at 32 lanes the repaired program's result differs from "
                               f"the original's ({_first_difference(base.emu32, runs[0])})"), None
        step = Step(True, "pass (port emulate: same result at 32 lanes as the original)")
        return step, Step(True, "same" if runs[1] == runs[0] else "diverged")

    # -- tools ------------------------------------------------------------------------------
    def _nvcc(self, ff: FileFix, scratch: Path) -> tuple[int, str]:
        unit = scratch
        if ff.path.endswith(HEADER_SUFFIXES):  # a header compiles through a unit that includes it
            unit = scratch.with_name(scratch.name + ".port-fix.cu")
            self.out.write_bytes(str(unit), f'#include "{scratch.name}"\n'.encode(), durable=False)
        # -rdc: a kernel that launches kernels (dynamic parallelism) compiles only in that mode
        argv = [str(self.opt.nvcc), f"-arch={self.opt.sm}", "-std=c++17", "-rdc=true", "-c", str(unit),
                "-o", os.devnull, *[f"-I{d}" for d in self._includes(ff)]]
        try:
            res = process_group.run(argv, timeout=self.opt.timeout, cwd=str(scratch.parent))
        except subprocess.TimeoutExpired:
            return 124, f"timed out after {self.opt.timeout:.0f} s"
        except OSError as exc:
            return 127, f"{self.opt.nvcc}: {exc.strerror or exc}"
        return res.returncode, res.stderr

    def _check(self, ff: FileFix, scratch: Path) -> list[str]:
        """The error messages of `port check` on the scratch copy (both arches), without places."""
        from ..check import CheckRequest, run_check

        src_root = Path(str(scratch)[:-len(ff.path)])
        if ff.path.endswith(HEADER_SUFFIXES):
            self.out.write_bytes(str(src_root / "port_fix_unit.cu"), f'#include "{ff.path}"\n'.encode(),
                                 durable=False)
        plan_, machine = self._toolchain()
        req = CheckRequest(src_root, src_root.parent / "check", ["gfx942", "gfx950"], includes=self._includes(ff),
                           jobs=1)
        result = run_check(req, plan_, machine)
        where = str(src_root.parent)  # scratch paths differ per try: not part of an error's identity
        return sorted({d.message.replace(where, "") for u in result.units for d in u.diagnostics
                       if d.severity == "error"})

    def _toolchain(self) -> tuple[Any, Any]:
        if self._toolchain_facts is None:
            from ..config import load_config
            from ..plan import make_plan
            from ..probe import probe_machine

            machine = probe_machine("/", os.environ)
            self._toolchain_facts = (make_plan(machine, load_config(cli={}, env=os.environ, config_file=None)), machine)
        return self._toolchain_facts

    def _emulate(self, scratch: Path, ff: FileFix, warps: list[int]) -> list[tuple[int | None, str]]:
        from ..emulate import Request, emulate

        out = scratch.parents[len(Path(ff.path).parts)] / "emulate"
        req = Request(sources=[scratch], out_dir=out, include_dirs=[Path(d) for d in self._includes(ff)],
                      warps=warps, timeout=self.opt.emulate_timeout, cache_dir=Path(self.opt.work) / "emu-cache")
        result = emulate(req)
        return [(r.exit if r.status == "ran" else None, r.stdout if r.status == "ran" else r.status)
                for r in result.runs]


def _first_difference(before: tuple[int | None, str], after: tuple[int | None, str]) -> str:
    if before[0] != after[0]:
        return f"exit {before[0]} -> {after[0]}"
    old, new = before[1].splitlines(), after[1].splitlines()
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else "<end of output>"
        b = new[i] if i < len(new) else "<end of output>"
        if a != b:
            return f"stdout line {i + 1}: {a[:120]!r} -> {b[:120]!r}"
    return "same text"


def _first_error(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    err = next((ln for ln in lines if "error" in ln), lines[0] if lines else "no output")
    return err[:300]
