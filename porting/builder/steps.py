"""Incremental, parallel execution of compile/link commands.

A step is up to date when its output exists and its stamp (``<output>.stamp``) holds the
SHA-256 of its command line, environment overrides and the bytes of its inputs (the source
plus every header it may include). Links write to a temporary file renamed into place, so a
process that has the library loaded never sees half a file.
"""

from __future__ import annotations

import hashlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .. import process_group
from ..atomic import write_bytes
from .record import Step

OUTPUT_TAIL = 8000


@dataclass
class Command:
    kind: str  # compile | link
    source: str  # shown in the record
    output: Path
    argv: list[str]
    inputs: list[Path]
    env: dict[str, str] = field(default_factory=dict)


class StepFailed(Exception):
    def __init__(self, step: Step, output: str) -> None:
        super().__init__(f"{step.kind} of {step.source} failed")
        self.step = step
        self.output = output


def digest(cmd: Command) -> str:
    h = hashlib.sha256()
    h.update("\0".join(cmd.argv).encode())
    for key in sorted(cmd.env):
        h.update(f"\0{key}={cmd.env[key]}".encode())
    for path in cmd.inputs:
        h.update(b"\0" + str(path).encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()


def _stamp(output: Path) -> Path:
    return output.with_name(output.name + ".stamp")


def up_to_date(cmd: Command, key: str) -> bool:
    try:
        return cmd.output.is_file() and _stamp(cmd.output).read_text().strip() == key
    except OSError:
        return False


def _run_one(cmd: Command) -> tuple[Step, str]:
    key = digest(cmd)
    step = Step(cmd.kind, cmd.source, str(cmd.output), list(cmd.argv))
    if up_to_date(cmd, key):
        step.cached = True
        return step, ""
    cmd.output.parent.mkdir(parents=True, exist_ok=True)
    _stamp(cmd.output).unlink(missing_ok=True)
    env = dict(os.environ, **cmd.env)
    argv = list(cmd.argv)
    tmp = None
    if cmd.kind == "link":  # link to a temp name, rename into place
        tmp = cmd.output.with_name(f".{cmd.output.name}.{os.getpid()}.tmp")
        argv = [str(tmp) if a == str(cmd.output) else a for a in argv]
    started = time.monotonic()
    try:
        proc = process_group.run(argv, env=env)
        code, text = proc.returncode, (proc.stdout or "") + (proc.stderr or "")
    except OSError as exc:
        code, text = 127, f"{argv[0]}: {exc.strerror or exc}"
    step.seconds = round(time.monotonic() - started, 3)
    step.returncode = code
    if code != 0:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        return step, text[-OUTPUT_TAIL:]
    if tmp is not None:
        os.replace(tmp, cmd.output)
    write_bytes(_stamp(cmd.output), (key + "\n").encode(), durable=False)  # replaces a symlink, never follows it
    return step, text[-OUTPUT_TAIL:]


def run_commands(commands: list[Command], jobs: int) -> list[Step]:
    """Run independent commands in parallel; raise StepFailed for the first failure (in order)."""
    workers = max(1, min(jobs or os.cpu_count() or 1, len(commands) or 1))
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        results = list(pool.map(_run_one, commands))
    finally:  # interrupted (a signal, an error): queued commands are not started
        pool.shutdown(wait=True, cancel_futures=True)
    for step, text in results:
        if step.returncode != 0:
            exc = StepFailed(step, text)
            exc.steps = [s for s, _ in results]  # type: ignore[attr-defined]
            raise exc
    return [s for s, _ in results]
