"""Running a built program once per warp width and comparing what the runs produced.

Each width runs in its own working directory under the output directory (a copy of
``--cwd DIR`` when given), with the same arguments and standard input, in its own process
group; a run that outlives the timeout is stopped with its whole group. The comparison looks
at the exit status, standard output (after masking volatile text) and the named output files,
and reports the first difference of each.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..process_group import spawn, stop_group

EXIT_FAULT = 3          # emu_runtime.cpp: a kernel trapped (bad warp mask, __trap, ...)
EXIT_UNSUPPORTED = 4    # emu_runtime.cpp: the program needs something not emulated
_EMU_LINE = re.compile(r"^emu: (error|unsupported): (.*)$", re.M)


@dataclass
class Run:
    warp: int
    status: str                    # "ran" | "timeout" | "build-failed" | "unsupported"
    exit: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    compile_seconds: float = 0.0
    compile_cached: bool = False
    fault: str = ""                # the runtime's own error line (a trap, a bad mask)
    files: dict[str, bytes | None] = field(default_factory=dict)
    workdir: Path | None = None

    def to_json(self) -> dict:
        return {"warp": self.warp, "status": self.status, "exit": self.exit,
                "seconds": round(self.seconds, 4), "compile_seconds": round(self.compile_seconds, 3),
                "compile_cached": self.compile_cached, "stdout_lines": len(self.stdout.splitlines()),
                "stdout": self.stdout, "stderr_tail": self.stderr[-2000:], "fault": self.fault or None}


def prepare_workdir(workdir: Path, seed: Path | None) -> None:
    if workdir.exists():
        shutil.rmtree(workdir)
    if seed is not None:
        shutil.copytree(seed, workdir, symlinks=True)
    else:
        workdir.mkdir(parents=True)


def run_binary(binary: Path, warp: int, args: list[str], workdir: Path, stdin: Path | None,
               timeout: float, files: list[str]) -> Run:
    began = time.monotonic()
    with open(stdin if stdin is not None else "/dev/null", "rb") as feed:
        # registered with the command's owner: a signal to `port emulate` ends the program's group
        proc = spawn([str(binary), *args], cwd=workdir, stdin=feed, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_group(proc, grace_s=2.0)
            out, err = proc.communicate()
            return Run(warp, "timeout", None, _text(out), _text(err), time.monotonic() - began, workdir=workdir)
        finally:  # also after a normal exit: whatever the program forked into its group goes too
            stop_group(proc, grace_s=2.0)
    stderr = _text(err)
    run = Run(warp, "ran", proc.returncode, _text(out), stderr, time.monotonic() - began, workdir=workdir)
    emu = _EMU_LINE.findall(stderr)
    if emu:
        kind, message = emu[-1]
        run.fault = message
        if kind == "unsupported" and proc.returncode == EXIT_UNSUPPORTED:
            run.status = "unsupported"
    run.files = {name: _read(workdir / name) for name in files}
    return run


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


@dataclass
class Difference:
    what: str                  # "status" | "exit" | "stdout" | "file NAME"
    where: str                 # "line 3" / "byte 120" / ""
    values: dict[int, str]     # warp -> the differing text (one line, shortened)

    def to_json(self) -> dict:
        return {"what": self.what, "where": self.where, "values": {str(w): v for w, v in self.values.items()}}

    def line(self) -> str:
        shown = " | ".join(f"warp {w}: {v}" for w, v in self.values.items())
        return f"{self.what}{' ' + self.where if self.where else ''}: {shown}"


def compare(runs: list[Run], what: list[str], masks: list[re.Pattern[str]]) -> list[Difference]:
    """The first difference of each compared item between the first run and every other."""
    diffs: list[Difference] = []
    base = runs[0]
    for other in runs[1:]:
        pair = (base, other)
        if base.status != other.status:
            diffs.append(Difference("status", "", {r.warp: _status(r) for r in pair}))
            continue
        if "exit" in what and base.exit != other.exit:
            diffs.append(Difference("exit", "", {r.warp: _status(r) for r in pair}))
        if "stdout" in what:
            diffs += _text_diff("stdout", base, other, _masked(base.stdout, masks), _masked(other.stdout, masks))
        for name in (w for w in what if w not in ("stdout", "exit")):
            diffs += _file_diff(name, base, other)
    return diffs


def _status(run: Run) -> str:
    if run.status != "ran":
        return run.status + (f" ({run.fault})" if run.fault else "")
    return f"exit {run.exit}" + (f" ({run.fault})" if run.fault else "")


def _masked(text: str, masks: list[re.Pattern[str]]) -> list[str]:
    lines = text.splitlines()
    for pattern in masks:
        lines = [pattern.sub("<masked>", line) for line in lines]
    return lines


def _text_diff(what: str, a: Run, b: Run, left: list[str], right: list[str]) -> list[Difference]:
    for i in range(max(len(left), len(right))):
        x = left[i] if i < len(left) else "<end of output>"
        y = right[i] if i < len(right) else "<end of output>"
        if x != y:
            return [Difference(what, f"line {i + 1}", {a.warp: _short(x), b.warp: _short(y)})]
    return []


def _file_diff(name: str, a: Run, b: Run) -> list[Difference]:
    x, y = a.files.get(name), b.files.get(name)
    if x == y:
        return []
    if x is None or y is None:
        return [Difference(f"file {name}", "", {a.warp: "missing" if x is None else f"{len(x)} bytes",
                                                 b.warp: "missing" if y is None else f"{len(y)} bytes"})]
    try:
        return _text_diff(f"file {name}", a, b, x.decode("utf-8").splitlines(), y.decode("utf-8").splitlines()) \
            or [Difference(f"file {name}", "line endings", {a.warp: f"{len(x)} bytes", b.warp: f"{len(y)} bytes"})]
    except UnicodeDecodeError:
        at = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
        return [Difference(f"file {name}", f"byte {at}",
                           {a.warp: _byte(x, at), b.warp: _byte(y, at)})]


def _byte(data: bytes, at: int) -> str:
    return f"0x{data[at]:02x}" if at < len(data) else "<end of file>"


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."
