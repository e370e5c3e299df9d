"""`port certify`: run every stage as a subprocess, show progress, end with the verdict.

detect -> audit + hipify the sources -> build for the chosen path -> test matrix (JUnit)
-> report; audit and hipify run on a thread beside build and matrix (porting.overlap), their
results recorded in this order all the same, each with when it started and how long it took.
Each stage is ``python -m porting <stage> ...`` so that a crash is contained: a stage that is
missing, crashes or times out is recorded, and the report is marked partial with the reason
(so it can never be certified). This module only orchestrates.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .cli import COMMANDS
from .overlap import Beside
from .process_group import spawn, stop_group
from .registry import platform_of_path

KIND = "rocm-port.certify"
SCHEMA = 1
# Exit codes a stage may return without the stage itself having broken: 1 means "ran and
# found problems" (audit findings, hipify failures, failing tests) and is reported as such.
OK_CODES = {0: "ok", 1: "problems"}
# The report's exit codes that are verdicts (porting.report.verdict.EXIT_CODES): certified, not
# certified, no evidence, incomplete, certified on external evidence only.
VERDICT_EXITS = (0, 1, 3, 4, 5)
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")


@dataclass
class StageResult:
    name: str
    command: list[str]
    status: str  # ok / problems / failed / timeout / missing / omitted (--skip) / skipped (nothing to do)
    rc: int | None = None
    started: float = 0.0  # seconds after certify started (stages beside the matrix overlap it)
    elapsed: float = 0.0
    log: str = ""
    summary: str = ""
    last_line: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @property
    def broken(self) -> bool:
        return self.status in ("failed", "timeout", "missing", "omitted")


@dataclass
class CertifyRecord:
    out_dir: str
    path: str | None = None
    stages: list[StageResult] = field(default_factory=list)
    verdict: dict[str, Any] | None = None
    exit_code: int = 1
    elapsed: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "schema": SCHEMA, "out_dir": self.out_dir, "path": self.path,
                "elapsed": round(self.elapsed, 3), "exit_code": self.exit_code, "verdict": self.verdict,
                "stages": [s.to_json() for s in self.stages]}


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m:02d}:{s:02d}"


class Progress:
    """Progress lines: ``[certify 01:23] stage: message``."""

    def __init__(self, stream: TextIO | None = None, interval: float = 10.0) -> None:
        self.stream = stream or sys.stdout
        self.interval = interval
        self.start = time.monotonic()
        self._lock = threading.Lock()  # stages beside the matrix report from their own thread

    def now(self) -> float:
        return round(time.monotonic() - self.start, 3)

    def say(self, stage: str, message: str) -> None:
        with self._lock:
            print(f"[certify {_clock(time.monotonic() - self.start)}] {stage}: {message}", file=self.stream,
                  flush=True)


def stage_available(name: str) -> bool:
    module = COMMANDS.get(name)
    if module is None:
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class _Pump:
    """Copies a stage's output into its log on a thread, keeping what progress lines and the
    verdict on the stage need: the line count, the last line, whether a traceback went by."""

    def __init__(self, stream: Any, log: TextIO) -> None:
        self.stream, self.log = stream, log
        self.lines = 0
        self.last = ""
        self.traceback = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        # Chunks, not lines: pytest's progress dots arrive without a newline.
        pending = ""
        while True:
            chunk = self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536)
            if not chunk:
                break
            text = chunk.decode("utf-8", errors="replace")
            self.log.write(text)
            self.lines += text.count("\n")
            pending = (pending + text)[-4096:]
            if "Traceback (most recent call last):" in pending:
                self.traceback = True
            tail = [ln.strip() for ln in pending.splitlines() if ln.strip()]
            if tail:
                self.last = tail[-1][-160:]


def run_stage(name: str, args: list[str], log_path: Path, progress: Progress, timeout: float,
              stdout_path: Path | None = None, summarize: Callable[[StageResult], str] | None = None,
              cwd: str | None = None, ok_codes: dict[int, str] | None = None,
              command: list[str] | None = None) -> StageResult:
    """Run ``python -m porting NAME ARGS`` (or ``command``); stderr (and stdout unless captured)
    go to the log; a progress line every ``progress.interval`` seconds while it runs."""
    explicit = command is not None
    if command is None:
        command = [sys.executable, "-m", "porting", name, *args]
    result = StageResult(name, command, "skipped", log=str(log_path), started=progress.now())
    if not explicit and not stage_available(name):
        result.status = "missing"
        result.summary = f"`port {name}` is not available in this installation"
        progress.say(name, f"MISSING: {result.summary}")
        return result
    log_path.parent.mkdir(parents=True, exist_ok=True)
    progress.say(name, "start: " + (" ".join(command) if explicit else f"port {name} " + " ".join(args)))
    start = time.monotonic()
    result.started = progress.now()
    rc, timed_out, pump = _supervise(name, command, log_path, stdout_path, cwd, progress, timeout)
    result.elapsed = round(time.monotonic() - start, 3)
    result.rc, result.last_line = rc, pump.last
    _judge(result, timed_out, pump, ok_codes or OK_CODES, summarize)
    what = {"timeout": f"TIMEOUT after {_clock(timeout)}", "failed": f"FAILED (exit {rc})",
            "problems": "finished with problems (exit 1)", "ok": "ok"}[result.status]
    progress.say(name, f"{what} in {_clock(result.elapsed)}" + (f"; {result.summary}" if result.summary else "")
                 + (f"; log {log_path}" if result.status in ("failed", "timeout", "problems") else ""))
    return result


def _supervise(name: str, command: list[str], log_path: Path, stdout_path: Path | None, cwd: str | None,
               progress: Progress, timeout: float) -> tuple[int | None, bool, _Pump]:
    """Run the stage in its own process group until it exits or ``timeout`` passes; whatever it
    started is ended with it (also when certify itself is interrupted)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    start = time.monotonic()
    timed_out = False
    with open(log_path, "w", encoding="utf-8", errors="replace") as log:
        out = open(stdout_path, "wb") if stdout_path else None
        try:
            proc = spawn(command, stdout=out or subprocess.PIPE, stderr=subprocess.PIPE if out else subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=env, cwd=cwd)
            pump = _Pump(proc.stderr if out else proc.stdout, log)
            try:
                while True:
                    try:
                        proc.wait(timeout=progress.interval)
                        break
                    except subprocess.TimeoutExpired:
                        elapsed = time.monotonic() - start
                        if elapsed > timeout:
                            timed_out = True
                            break
                        progress.say(name, f"running {_clock(elapsed)}, {pump.lines} lines of output; "
                                           f"last: {pump.last}")
            finally:  # done, timed out, or certify interrupted: nothing the stage started outlives it
                stop_group(proc)
            pump.thread.join(timeout=10)
        finally:
            if out:
                out.close()
    return proc.returncode, timed_out, pump


def _judge(result: StageResult, timed_out: bool, pump: _Pump, ok_codes: dict[int, str],
           summarize: Callable[[StageResult], str] | None) -> None:
    if timed_out:
        result.status = "timeout"
    else:
        result.status = ok_codes.get(result.rc, "failed") if result.rc is not None else "failed"
        # An uncaught exception also exits 1; the CLI turns every expected failure into one
        # line, so a traceback ending the output is a crash, not "found problems".
        if pump.traceback and _EXCEPTION_LINE.match(pump.last):
            result.status = "failed"
            result.summary = f"crashed: {pump.last}"
    if summarize is not None and not result.summary:
        try:
            result.summary = summarize(result)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            result.summary = f"(could not summarize: {exc})"
    if not result.summary:
        result.summary = pump.last


def _json_file(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _summarize_detect(result: StageResult, record_path: Path) -> str:
    data = _json_file(record_path)
    return f"path {data.get('path')}, device {data.get('device')}"


def _summarize_audit(result: StageResult, path: Path) -> str:
    data = _json_file(path)
    summary = data.get("summary") if isinstance(data, dict) else None
    if isinstance(summary, dict):
        return (f"{summary.get('files', '?')} files: {summary.get('error', 0)} errors, "
                f"{summary.get('warning', 0)} warnings, {summary.get('note', 0)} notes")
    findings = data.get("findings", data) if isinstance(data, dict) else data
    return f"{len(findings)} finding(s)" if isinstance(findings, list) else ""


def _summarize_report(result: StageResult, parity: Path) -> str:
    data = _json_file(parity)
    return f"verdict {data['verdict']['status']}, {len(data.get('tests', []))} tests"


def _junit_files(directory: Path) -> list[Path]:
    from .junit_contract import junit_files_under

    return junit_files_under(directory)


def _path_green(parity: dict[str, Any], path: str | None) -> str:
    """One phrase on the tests of the platform the machine ran (e.g. 'CPU path green')."""
    platform = platform_of_path(path)
    cols = [c for c in parity.get("columns", []) if c.get("platform") == platform]
    if not cols:
        return f"no {platform.upper()} run"
    bad = sum(parity["totals"][c["key"]]["*"].get(s, 0) for c in cols for s in ("failed", "error", "xpassed"))
    complete = all(c.get("complete") for c in cols)
    label = f"{platform.upper()} path"
    if bad == 0 and complete:
        return f"{label} green"
    return f"{label} red ({bad} failing{'' if complete else ', incomplete'})"


def _elsewhere(verdict: dict[str, Any]) -> str:
    """`` [evidence made elsewhere: COLUMN (signed (key K) | no manifest | ...)]`` for the verdict line."""
    shown = [f"{e['column']} ({e['provenance'].replace('made elsewhere: ', '')})"
             for e in verdict.get("evidence", []) if "made elsewhere" in e.get("provenance", "")]
    return f" [evidence made elsewhere: {', '.join(shown)}]" if shown else ""


def _reference_files(reference_dir: str | None, junit_dir: Path) -> list[Path]:
    """The JUnit files of ``--reference DIR``; a bad DIR is a UsageError before any stage runs."""
    from .errors import UsageError

    if reference_dir is None:
        return []
    ref = Path(reference_dir).resolve()
    if not ref.is_dir():
        raise UsageError(f"--reference {reference_dir}: not a directory")
    if ref == junit_dir or junit_dir in ref.parents or ref in junit_dir.parents:
        # certify clears its own JUnit directory before the matrix runs: it must not hold the reference
        raise UsageError(f"--reference {reference_dir}: must not overlap this run's JUnit directory {junit_dir}")
    files = _junit_files(ref)
    if not files:
        raise UsageError(f"--reference {reference_dir}: no *.xml JUnit files in it")
    return files


def _describe_reference(path: Path) -> str:
    """``name (cuda on host h, run r)``: what the reference file says about itself, at a glance."""
    from .report.junit_reader import read_run

    info = read_run(path).info
    where = f"{info.platform or 'platform?'} on {info.host or 'host?'}"
    if info.run_id:
        where += f", run {info.run_id[:12]}"
    return f"{path.name} ({where})"


def certify(out_dir: str | os.PathLike[str], sources: list[str], config_file: str | None = None,
            stage_timeout: float = 1200.0, progress: Progress | None = None,
            report_args: list[str] | None = None, cwd: str | None = None,
            skip: Collection[str] = (), reference_dir: str | None = None,
            matrix_args: list[str] | None = None, suites: list[str] | None = None) -> CertifyRecord:
    """Run the pipeline; return the record (also written to OUT/certify.json).

    ``skip``: stages not to run (``--skip``); an omitted stage makes the report partial, since
    certify can then not vouch for the evidence end to end. ``reference_dir``: JUnit of a
    reference run made elsewhere, read (never written) by the report next to this run's.
    ``matrix_args``: passed to `port matrix` (e.g. ``--matrix-dir``: other packs than the shipped ones).
    ``suites``: projects' own test suites run after the packs (`port matrix --suite NAME`), their
    JUnit beside the packs' so the report judges them with the same rules."""
    from .errors import UsageError

    progress = progress or Progress()
    out = Path(out_dir).resolve()
    reference = _reference_files(reference_dir, out / "junit")
    if reference:
        progress.say("reference", f"{len(reference)} JUnit file(s) from {reference_dir}: "
                                  + ", ".join(_describe_reference(p) for p in reference[:4])
                                  + (f" (+{len(reference) - 4} more)" if len(reference) > 4 else ""))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{out_dir}: cannot create the output directory ({exc.strerror or exc})") from None
    from .outlock import locked

    with locked(out, "port certify"):  # a second certify into OUT refuses instead of mixing evidence
        run = _Pipeline(out, Path(cwd or ".").resolve(), config_file, progress, stage_timeout, skip)
        start = time.monotonic()
        run.detect()
        side = run.sources_beside(sources)  # audit + hipify overlap build, matrix and suites
        try:
            run.build()
            side.check()  # a side stage that raised ends certify before the matrix, as in sequence
            run.matrix(matrix_args or [])
            run.suites(suites or [])
        except BaseException:
            run.join_beside(side, reraise=False)  # its children die with the command (process_group)
            raise
        run.join_beside(side)
        rep = run.report(reference, report_args or [])
        run.record.elapsed = time.monotonic() - start
        run.finish(rep)
    return run.record


class _Pipeline:
    """One certify run: where it writes (OUT, through OutputDir), how each stage is started, and
    the record the stages add to, in pipeline order."""

    def __init__(self, out: Path, base: Path, config_file: str | None, progress: Progress,
                 stage_timeout: float, skip: Collection[str]) -> None:
        from .paths import OutputDir

        self.out, self.base, self.progress, self.timeout, self.skip = out, base, progress, stage_timeout, skip
        self.outdir = OutputDir(out)
        self.common = ["--config", str(Path(config_file).resolve())] if config_file else []
        self.record = CertifyRecord(out_dir=str(out))
        self.run_id = uuid.uuid4().hex  # the report reads only this run's JUnit (and the reference)
        self.junit_dir = Path(self.outdir.path("junit/x.xml")).parent  # refuses a symlinked junit/
        self._beside_at, self._beside_sink = 0, list[StageResult]()  # sources_beside: where, what

    def fresh(self, rel: str) -> Path:
        """A file in OUT that a stage creates with a plain open(): no symlinked directory on the
        way (PathRefused), and no earlier file or symlink at its place (open would follow it)."""
        path = Path(self.outdir.path(rel))
        self.outdir.unlink(rel)
        return path

    def stage(self, name: str, args: list[str], log: str, sink: list[StageResult] | None = None,
              **kw: Any) -> StageResult:
        """Run one stage; its result goes to ``sink`` (a stage beside the matrix) or the record."""
        if name in self.skip:
            self.progress.say(name, "omitted (--skip)")
            result = StageResult(name, [], "omitted", started=self.progress.now(), summary="omitted by --skip")
        else:
            result = run_stage(name, args, self.fresh(f"logs/{log}"), self.progress, self.timeout,
                               cwd=str(self.base), **kw)
        (self.record.stages if sink is None else sink).append(result)
        return result

    def skipped(self, name: str, why: str, sink: list[StageResult] | None = None) -> None:
        result = StageResult(name, [], "skipped", started=self.progress.now(), summary=why)
        (self.record.stages if sink is None else sink).append(result)
        self.progress.say(name, f"skipped: {why}")

    def detect(self) -> None:
        detect_json = self.fresh("detect.json")
        det = self.stage("detect", [*self.common, "--json", "--out", str(detect_json)], "detect.log",
                         stdout_path=self.fresh("logs/detect.stdout.json"),
                         summarize=lambda r: _summarize_detect(r, detect_json))
        if det.status == "ok" and detect_json.is_file():
            try:
                self.record.path = _json_file(detect_json).get("path")
            except ValueError:
                self.record.path = None

    def sources(self, sources: list[str], sink: list[StageResult] | None = None) -> None:
        from .hipify import MANIFEST_NAME

        src_dirs = [s for s in sources if (self.base / s).is_dir()]
        if not src_dirs:
            for name in ("audit", "hipify"):
                self.skipped(name, f"no source dir ({', '.join(sources)})", sink)
        for src in src_dirs:
            tag = src.replace("/", "_").strip("_") or "src"
            audit_json = self.fresh(f"audit/{tag}.json")
            audit_json.parent.mkdir(parents=True, exist_ok=True)
            self.stage("audit", [*self.common, str(self.base / src), "--format", "json"], f"audit-{tag}.log",
                       sink, stdout_path=audit_json, summarize=lambda r, p=audit_json: _summarize_audit(r, p))
            hip_out = Path(self.outdir.path(f"hipified/{tag}/{MANIFEST_NAME}")).parent  # refuses symlinked dirs
            self.stage("hipify", [*self.common, str(self.base / src), "--out", str(hip_out)], f"hipify-{tag}.log",
                       sink)

    def sources_beside(self, sources: list[str]) -> Beside:
        """Audit and hipify on a thread beside build and matrix (neither reads what they write);
        ``join_beside`` puts their results where they stood when the stages ran in sequence."""
        self._beside_at, self._beside_sink = len(self.record.stages), []
        return Beside("certify-sources", lambda: self.sources(sources, self._beside_sink))

    def join_beside(self, side: Beside, reraise: bool = True) -> None:
        side.join(reraise)
        at = self._beside_at
        self.record.stages[at:at] = self._beside_sink

    def build(self) -> None:
        if self.record.path or "build" in self.skip:
            self.stage("build", [*self.common, "--path", str(self.record.path)], "build.log")
        else:
            self.record.stages.append(StageResult("build", [], "skipped", summary="no path: detect did not finish"))
            self.progress.say("build", "skipped: no path (detect did not finish)")

    def matrix(self, matrix_args: list[str]) -> None:
        from .provenance import SUFFIX

        stale = [*_junit_files(self.junit_dir), *(p for p in self.junit_dir.rglob("*" + SUFFIX) if p.is_file())]
        for old in stale:  # never report stale evidence (or its manifests) from an earlier certify
            self.outdir.unlink(str(old.relative_to(self.out)))
        if "--run-id" in matrix_args:
            self.run_id = matrix_args[matrix_args.index("--run-id") + 1]
        else:
            matrix_args = [*matrix_args, "--run-id", self.run_id]
        self.stage("matrix", [*self.common, "--junit", str(self.junit_dir), *matrix_args], "matrix.log",
                   summarize=lambda r: f"{len(_junit_files(self.junit_dir))} JUnit file(s)")

    def suites(self, names: list[str]) -> None:
        """Each upstream suite as its own stage (``suite NAME``); says so when none was asked for."""
        if not names:
            self.progress.say("suites", "not run (a project's own tests run with --suite monarch, torchft or DIR)")
            return
        if "matrix" in self.skip:
            self.skipped("suites", "omitted with the matrix (--skip matrix)")
            return
        for name in names:
            tag = Path(name).name or "suite"
            args = [*self.common, "--junit", str(self.junit_dir), "--suite", name]
            self.stage(f"suite {tag}", args, f"suite-{tag}.log",
                       command=[sys.executable, "-m", "porting", "matrix", *args])

    def incomplete_reasons(self) -> list[str]:
        stages = self.record.stages
        reasons = [f"stage {s.name} {s.status}" + (f" (exit {s.rc})" if s.rc is not None else "")
                   + (f": {s.summary}" if s.summary else "") for s in stages
                   if s.broken or s.status == "skipped"]  # a stage that did not run vouches for nothing
        if self.record.path is None and not any(s.name == "detect" and s.broken for s in stages):
            reasons.append("stage detect gave no path")
        return reasons

    def report(self, reference: list[Path], report_args: list[str]) -> StageResult:
        from .report import ARTIFACTS

        reasons = self.incomplete_reasons()
        self.junit_dir.mkdir(parents=True, exist_ok=True)
        for name in ARTIFACTS:  # a report that fails must not leave an earlier run's artifacts listed
            self.outdir.unlink(name)
        args = [*self.common, str(self.junit_dir), "--run-id", self.run_id, "--out", str(self.out), *report_args]
        for path in reference:
            args += ["--external", str(path)]
        for reason in reasons:
            args += ["--incomplete", reason]
        parity = self.out / "parity.json"
        rep = run_stage("report", args, self.fresh("logs/report.log"), self.progress, self.timeout,
                        cwd=str(self.base), summarize=lambda r: _summarize_report(r, parity),
                        ok_codes=dict.fromkeys(VERDICT_EXITS, "ok"))
        self.record.stages.append(rep)
        return rep

    def finish(self, rep: StageResult) -> None:
        from .report import ARTIFACTS

        record, say = self.record, self.progress.say
        parity = self.out / "parity.json"
        if parity.is_file() and rep.rc in (*VERDICT_EXITS, 2):
            data = _json_file(parity)
            record.verdict = data["verdict"]
            record.exit_code = rep.rc
            cols = ", ".join(f"{c['key']}: {data['totals'][c['key']]['*']['passed']} passed" for c in data["columns"])
            say("done", f"path {record.path or '?'}; {len(data['tests'])} tests ({cols or 'no runs'}); "
                f"verdict: {data['verdict']['status'].upper()}" + (" (PARTIAL)" if data.get("partial") else "")
                + _elsewhere(data["verdict"])
                + f" ({'; '.join(data['verdict']['reasons'][:3]) or 'all parity rules hold'}); "
                + _path_green(data, record.path))
        else:
            record.exit_code = 1
            say("done", f"path {record.path or '?'}; no report (stage report {rep.status}); verdict: NOT CERTIFIED")
        self.outdir.write_bytes("certify.json", (json.dumps(record.to_json(), indent=2) + "\n").encode())
        for line in self.outdir.report():
            say("done", line)
        written = [name for name in (*ARTIFACTS, "certify.json") if (self.out / name).is_file()]
        say("done", f"artifacts in {self.out}: {' '.join(written)} logs/")
