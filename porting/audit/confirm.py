"""`port audit --confirm`: run each program that holds wave64 findings under `port emulate` at 32
and 64 lanes and mark its findings (issue 26).

The attribution is per program, not per line: ``confirmed`` says the program's 64-lane run gives
other results than its 32-lane run (stdout, exit status), so its wave64 hazards are not only
theoretical; the divergence is not traced back to the finding's line. ``not-reproduced`` says both
widths gave the same results (for a ``warp32-logical`` note: its claim held on this run; for a
hazard: this input did not reach it, or it does not change the output). A ``warp-mask-32bit``
finding is confirmed when the emulator itself met a 32-bit mask leaving out lanes 32-63 (the run
goes on with the mask widened: ``mask_faults="report"``). ``inconclusive``: a run timed out;
``not-run``: no ``main()`` in the file, or port emulate refused or could not build it (the reason
is kept). Everything port emulate writes goes to a temporary directory removed afterwards.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..errors import PortError
from .evaluate import WAVE64_RULES
from .findings import Finding

CONFIRMABLE = WAVE64_RULES | {"warp32-logical"}
_MAIN = re.compile(r"\bint\s+main\s*\(")
_MASK_FINDING = "32-bit mask"  # how the emulator's runtime names a mask that leaves out lanes 32-63


def confirm(findings: Iterable[Finding], timeout: float = 60.0) -> int:
    """Mark the wave64 findings (``confirmation``, ``confirmation_detail``) of each file holding
    any; returns how many programs were emulated."""
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        if f.rule in CONFIRMABLE:
            by_file.setdefault(f.path, []).append(f)
    ran = 0
    with tempfile.TemporaryDirectory(prefix="port-audit-confirm-") as tmp:
        cache = Path(tmp) / "cache"  # the runtime is built once for all programs of the run
        for i, (path, found) in enumerate(sorted(by_file.items())):
            outcome = _emulate(Path(path), Path(tmp) / f"program-{i}", cache, timeout)
            ran += isinstance(outcome, tuple)
            for f in found:
                f.confirmation, f.confirmation_detail = _judge(f, outcome, Path(path))
    return ran


Outcome = tuple[str, str, bool] | str  # (verdict, first difference, mask finding) or why it did not run


def _emulate(path: Path, out: Path, cache: Path, timeout: float) -> Outcome:
    from .. import emulate
    from ..walk import read_regular, why_unreadable

    data = read_regular(path)  # the one bounded reader: a FIFO or a huge file is not opened/read whole
    if data is None:
        return f"{path}: {why_unreadable(path)}"
    if not _MAIN.search(data.decode("utf-8", "replace")):
        return "no main() in this file: not a program port emulate can run"
    out.mkdir(parents=True)
    req = emulate.Request(sources=[path], out_dir=out, include_dirs=[path.parent], timeout=timeout,
                          cache_dir=cache, mask_faults="report")
    try:
        result = emulate.emulate(req)
    except PortError as exc:  # refused (a feature it does not model), does not build, fails at every width
        return f"port emulate: {exc}"
    first = result.differences[0].line() if result.differences else ""
    masks = any(_MASK_FINDING in line for r in result.runs for line in r.findings)
    return result.verdict, first, masks


def _judge(f: Finding, outcome: Outcome, path: Path) -> tuple[str, str]:
    if isinstance(outcome, str):
        return "not-run", outcome
    verdict, first, masks = outcome
    if verdict == "inconclusive":
        return "inconclusive", "a run at 32 or 64 lanes hit the time limit (--confirm-timeout)"
    if f.rule == "warp-mask-32bit":
        if masks:
            return "confirmed", "the emulator met a 32-bit mask that leaves out lanes 32-63 of a 64-lane wavefront"
        return "not-reproduced", "the emulator met no 32-bit mask leaving out lanes (this input did not reach it)"
    if verdict == "diverged":
        return "confirmed", (f"the program's results differ at 32 and 64 lanes ({first}); per program, "
                             "not traced to this line")
    return "not-reproduced", "the same results at 32 and 64 lanes (stdout and exit status) on this run"
