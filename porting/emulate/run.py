"""Running a built program once per warp width and comparing what the runs produced.

Each width runs in its own working directory under the output directory (a copy of
``--cwd DIR`` when given), with the same arguments and standard input, in its own process
group; a run that outlives the timeout is stopped with its whole group. The comparison looks
at the exit status, standard output (after masking volatile text) and the named output files,
and reports the first difference of each.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..process_group import spawn, stop_group
from . import columns, sandbox

EXIT_FAULT = 3          # emu_internal.h: a kernel trapped (bad warp mask, __trap, ...)
EXIT_UNSUPPORTED = 4    # emu_internal.h: the program needs something not emulated
MAX_MASKED_SHOWN = 50
# Run-to-run volatile text masked by default (--no-default-mask turns it off; docs/emulate.md
# lists them): a number with a time unit, a rate (GB/s, GFLOP/s, items/s), and the number after
# a timing word ("Time = 1.23", "elapsed: 4"). Two runs of one program differ there at any width.
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# one word may stand between the number and the unit: "6.3 logical GB/s" (CUB's test utilities,
# HeCBench's rle), "0.64 avg ms"
_RATE = (r"(?:(?:thousand|million|billion|trillion)\s+)?(?:[A-Za-z]+\s+)?(?:[A-Za-z]+)?\s*(?:/\s*|\bper\s+)"
         r"s(?:ec|econd)?\b")
_TIMING_WORD = (r"(?i)\b(?:time|timing|elapsed|duration|throughput|bandwidth|[kmgt]?flops|speed ?up|latency|runtime"
                r"|perf|clocks?|cycles?|ticks)")
_TIME_WORD = r"(?:(?:avg|average|mean|median|total|wall|cpu|gpu|kernel)\s+)?"
DEFAULT_MASKS: tuple[str, ...] = (
    _NUM + r"\s*\(?\s*" + _TIME_WORD + r"(?:ns|nsec|nanoseconds?|us|usec|µs|microseconds?|ms|msec|milliseconds?|s|sec"
    r"|secs|seconds?|min|minutes?|cycles|clocks)\b\)?",
    # a rate: "12 GB/s", "39460.76 kB/s" (kilo is lower case), "100 items/sec", "3.26 million keys/second",
    # "2.27 Mtexlookups/sec" (cuda-samples' simpleLayeredTexture): any unit word, prefixed or not, per second
    # "0.41 (Gop/s)" (HeCBench's norm2): the unit may stand in parentheses, as time units may
    _NUM + r"\s*(?:\(\s*" + _RATE + r"\s*\)|" + _RATE + ")",
    _NUM + r"\s*[kKMGTP](?:FLOPS|[Ff]lops|IPS|B/s)\b",
    # a timing word's label may hold digits ("Speedup (CPU vs GPU 1D): 0.48x", the fifth suite's
    # eval half): when a ':' or '=' ends the label, the number after it is the value
    _TIMING_WORD + r"\b[^\n<;:=]{0,40}?[:=]\s*" + _NUM,
    _TIMING_WORD + r"\b[^0-9\n<,;]{0,40}?" + _NUM,
    # a ratio of two timings needs no timing word: a decimal number with an `x` suffix ("Overhead
    # factor: 1.11x", the sixth suite's tune half); "4x4" and integer "2x" stay compared
    r"(?<![\w.])[-+]?\d+\.\d+\s?[x\u00d7](?!\w)",
)
_EMU_LINE = re.compile(r"^emu: (error|unsupported): (.*)$", re.M)
_FINDING = re.compile(r"^emu: finding: (.*?)(?: \[warp \d+[^\]]*\])?$", re.M)
# emu_sites.cpp: a warp collective that behaves otherwise at 64 lanes than in a 32-lane warp
_SITE = re.compile(r"^emu: site: ([a-z0-9-]+)\t(\d+)\t([^\t\n]+)\t(.*)$", re.M)


@dataclass
class Site:
    """Where a 64-lane run met a warp collective that a 32-lane warp completes otherwise."""
    kind: str                      # mask-32bit | shuffle-other-half | ballot-64bit | vote-other-half | match-other-half
    file: str                      # the user's file (the mirror prefix removed by the caller)
    line: int
    detail: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "file": self.file, "line": self.line, "detail": self.detail}


def parse_sites(stderr: str) -> list[Site]:
    return [Site(k, f, int(n), d) for k, n, f, d in _SITE.findall(stderr)]


_REACHED = re.compile(r"^emu: reached:\t(\d+)\t([^\t\n]+)$", re.M)


def parse_reached(stderr: str) -> list[Site]:
    """The lines whose warp collective completed at 64 lanes (kind "reached", no detail)."""
    return [Site("reached", f, int(n), "") for n, f in _REACHED.findall(stderr)]


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
    masked: list[tuple[int, str]] = field(default_factory=list)  # (line, original) of masked stdout lines
    findings: list[str] = field(default_factory=list)  # the runtime's "emu: finding:" lines (the run went on)
    sites: list[Site] = field(default_factory=list)  # the runtime's "emu: site:" lines (emu_sites.cpp)
    reached: list[Site] = field(default_factory=list)  # its "emu: reached:" lines: collectives that ran

    def to_json(self) -> dict:
        return {"warp": self.warp, "status": self.status, "exit": self.exit,
                "seconds": round(self.seconds, 4), "compile_seconds": round(self.compile_seconds, 3),
                "compile_cached": self.compile_cached, "stdout_lines": len(self.stdout.splitlines()),
                "stdout": self.stdout, "stderr_tail": self.stderr[-2000:], "fault": self.fault or None,
                "masked_lines": [{"line": n, "text": t} for n, t in self.masked[:MAX_MASKED_SHOWN]],
                "masked_count": len(self.masked), "findings": self.findings,
                "sites": [x.to_json() for x in self.sites],
                "reached": [{"file": x.file, "line": x.line} for x in self.reached]}


def prepare_workdir(workdir: Path, seed: Path | None) -> None:
    if workdir.exists():
        shutil.rmtree(workdir)
    if seed is not None:
        shutil.copytree(seed, workdir, symlinks=True)
    else:
        workdir.mkdir(parents=True)


MAX_OUTPUT = 16 << 20   # bytes of stdout/stderr kept per run; the rest is cut (a program can print GBs)
MAX_FILE_SIZE = 1 << 30  # RLIMIT_FSIZE of the run: no file (its stdout capture included) grows past 1 GiB


@dataclass
class Launch:
    """How one width's binary is started: argv[0], arguments, sandbox."""
    args: list[str]
    argv0: str                     # the same at every width (not the per-width binary's path)
    sandbox: str | None            # the bwrap executable, None for --no-sandbox
    env: dict[str, str] = field(default_factory=dict)  # EMU_MASK_FAULTS / EMU_SYNC (emu_warp.cpp)


def run_binary(binary: Path, warp: int, launch: Launch, workdir: Path, stdin: Path | None,
               timeout: float, files: list[str]) -> Run:
    """Run once; stdout and stderr go to files beside ``workdir`` (not pipes: a daemon that
    keeps a pipe open cannot hold the run, and the output is read back bounded)."""
    command = sandbox.argv0_exec(binary, launch.argv0, launch.args)
    if launch.sandbox is not None:
        command = sandbox.wrap(command, workdir, [binary], launch.sandbox)
    out_path, err_path = (workdir.with_name(f"{workdir.name}.{k}") for k in ("stdout", "stderr"))
    began = time.monotonic()
    with open(stdin if stdin is not None else "/dev/null", "rb") as feed, \
            open(out_path, "wb", opener=_no_follow) as out, open(err_path, "wb", opener=_no_follow) as err:
        # registered with the command's owner: a signal to `port emulate` ends the program's group
        proc = spawn(command, cwd=workdir, stdin=feed, stdout=out, stderr=err, preexec_fn=_limit_files,
                     env={**os.environ, **launch.env})
        try:
            proc.wait(timeout=timeout)
            status = "ran"
        except subprocess.TimeoutExpired:
            status = "timeout"
        finally:  # also after a normal exit: whatever the program forked into its group goes too
            stop_group(proc, grace_s=2.0)
    seconds = time.monotonic() - began
    stdout, stderr = _read_capped(out_path), _read_capped(err_path)
    if status == "timeout":  # the partial output is kept: it shows how far the run got
        return Run(warp, "timeout", None, stdout, stderr, seconds, workdir=workdir, findings=_FINDING.findall(stderr),
                   sites=parse_sites(stderr), reached=parse_reached(stderr))
    run = Run(warp, "ran", _exit_status(proc.returncode, launch, stderr), stdout, stderr, seconds, workdir=workdir,
              findings=_FINDING.findall(stderr), sites=parse_sites(stderr),
              reached=parse_reached(stderr))
    emu = _EMU_LINE.findall(stderr)
    if emu:
        kind, message = emu[-1]
        run.fault = message
        if kind == "unsupported" and proc.returncode == EXIT_UNSUPPORTED:
            run.status = "unsupported"
    run.files = {name: _read(workdir / name) for name in files}
    return run


def _exit_status(code: int, launch: Launch, stderr: str) -> int:
    """The program's exit status as Popen reports it without the sandbox: a death by signal N is
    -N. bwrap reports a child killed by signal N as its own exit status 128 + N, which would make
    a program that aborts at every width look like one that exits 134 at every width ("same");
    the runtime names the signal on stderr first (emu_launch.cpp), which tells it from a program
    that returns 128 + N itself."""
    if launch.sandbox is not None and 128 < code < 128 + 65 and f"emu: signal: {code - 128}\n" in stderr:
        return -(code - 128)
    return code


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW, 0o600)  # a link planted at OUT/run-wN.stdout is refused


def _limit_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_SIZE, MAX_FILE_SIZE))


def _read_capped(path: Path) -> str:
    with open(path, "rb") as f:
        data = f.read(MAX_OUTPUT + 1)
    if len(data) > MAX_OUTPUT:
        return _text(data[:MAX_OUTPUT]) + f"\n<port emulate: output cut at {MAX_OUTPUT} bytes>\n"
    return _text(data)


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


def compare(runs: list[Run], what: list[str], masks: list[re.Pattern[str]],
            tables: bool = False) -> list[Difference]:
    """The first difference of each compared item between the first run and every other; the
    masked stdout lines are recorded on each run (``tables``: the column-aware timing mask,
    porting.emulate.columns, before ``masks``). A run that timed out is compared only on
    what is already certain (_partial_diff); with no such difference the caller calls the
    verdict inconclusive."""
    texts = {id(r): _masked(r, masks, tables) for r in runs}
    diffs: list[Difference] = []
    base = runs[0]
    for other in runs[1:]:
        pair = (base, other)
        if "timeout" in (base.status, other.status):
            diffs += _partial_diff(base, other, texts[id(base)], texts[id(other)])
            continue
        if base.status != other.status:
            diffs.append(Difference("status", "", {r.warp: _status(r) for r in pair}))
            continue
        if base.findings != other.findings:  # a mask reported and widened at one width only
            diffs.append(Difference("finding", "", {r.warp: _short(r.findings[0]) if r.findings else "none"
                                                    for r in pair}))
        if "exit" in what and base.exit != other.exit:
            diffs.append(Difference("exit", "", {r.warp: _status(r) for r in pair}))
        if "stdout" in what:
            diffs += _text_diff("stdout", base, other, texts[id(base)], texts[id(other)])
        for name in (w for w in what if w not in ("stdout", "exit")):
            diffs += _file_diff(name, base, other)
    return diffs


def _partial_diff(a: Run, b: Run, left: list[str], right: list[str]) -> list[Difference]:
    """Differences that no longer run time can undo, between runs one or both of which timed
    out: a build that failed at one width only, or a stdout line both runs printed in full
    that differs (a finished run's end of output counts as printed). A timed-out run's last
    line may be cut off, so only its complete lines are compared."""
    if "build-failed" in (a.status, b.status):
        return [Difference("status", "", {r.warp: _status(r) for r in (a, b)})]
    if a.status not in ("ran", "timeout") or b.status not in ("ran", "timeout"):
        return []
    left, right = _complete(a, left), _complete(b, right)
    if a.status == "timeout" and b.status == "timeout":
        n = min(len(left), len(right))
    else:  # the finished run's output is all there is: the other's complete lines must match it
        n = len(left) if a.status == "timeout" else len(right)
    return _text_diff("stdout", a, b, left[:n], right[:n]) if n else []


def _complete(run: Run, lines: list[str]) -> list[str]:
    if run.status == "timeout" and lines and not run.stdout.endswith("\n"):
        return lines[:-1]
    return lines


def _status(run: Run) -> str:
    if run.status != "ran":
        return run.status + (f" ({run.fault})" if run.fault else "")
    return f"exit {run.exit}" + (f" ({run.fault})" if run.fault else "")


def _masked(run: Run, masks: list[re.Pattern[str]], tables: bool = False) -> list[str]:
    original = run.stdout.splitlines()
    lines = columns.mask_tables(original) if tables else list(original)
    for pattern in masks:
        lines = [pattern.sub("<masked>", line) for line in lines]
    run.masked = [(i + 1, o) for i, (o, m) in enumerate(zip(original, lines)) if o != m]
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
