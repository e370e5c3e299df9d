"""`port audit --confirm`: run each program that holds wave64 findings under `port emulate` at 32
and 64 lanes and mark each finding by what the runs showed at or from its line (issue 26).

At 64 lanes the emulator reports *sites*: the program lines where a warp collective behaved
otherwise than in a 32-lane warp (a 32-bit mask leaving out lanes 32-63, a shuffle whose lane read
another value than its 32-lane half gives it, a ballot or vote that counted the other half;
porting/emulate/runtime/emu_sites.cpp). A site is *tied* to a finding when it lies on one of the
finding's target lines (porting.audit.flow: its statement, the uses of a name it assigns, the
lines that set a name it uses, the bodies of the helpers of the same file those lines call). The
results compared are stdout and the exit status; a mask the 64-lane run widened is a site, not a
difference in results. Then:

``confirmed``       a tied site, and the program's results (stdout, exit status) differ at 32 and
                    64 lanes; or, for ``warp-mask-32bit``, a tied 32-bit mask site alone (HIP
                    traps on such a mask whatever the results). Correct wave64 code has sites too
                    (a 64-lane reduction reads across the halves by design), so a site without a
                    difference in results confirms nothing.
``not-reproduced``  the same results at both widths (for a ``warp32-logical`` note: its claim held);
                    or the results differ but the collectives on the target lines behaved as in a
                    32-lane warp (or were not reached), so the difference arises elsewhere.
``untraced``        the results differ and no target line holds a warp collective: a hazard in
                    lane arithmetic used for memory, a shared-array size or a launch configuration
                    shows only in the results, which the emulator cannot tie to a line.
``inconclusive``    a run timed out.
``not-run``         no ``main()`` in the file (nor in a program beside it that includes it), or
                    port emulate refused or could not build it (the reason is kept).

A header's findings are judged on the first program of its directory (in name order, at most
MAX_INCLUDERS tried) that includes it by name and runs; each program is emulated once per run.

Everything port emulate writes goes to a temporary directory removed afterwards.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..emulate.run import Site
from ..errors import PortError
from .evaluate import WAVE64_RULES
from .findings import Finding
from .flow import Flow

CONFIRMABLE = WAVE64_RULES | {"warp32-logical"}
_MAIN = re.compile(r"\bint\s+main\s*\(")


def confirm(findings: Iterable[Finding], timeout: float = 60.0, program_args: list[str] | None = None) -> int:
    """Mark the wave64 findings (``confirmation``, ``confirmation_detail``) of each file holding
    any; returns how many programs were emulated (each at most once)."""
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        if f.rule in CONFIRMABLE:
            by_file.setdefault(f.path, []).append(f)
    runs: dict[Path, Ran | str] = {}
    with tempfile.TemporaryDirectory(prefix="port-audit-confirm-") as tmp:
        cache = Path(tmp) / "cache"  # the runtime is built once for all programs of the run

        def run(program: Path) -> Ran | str:
            if program not in runs:
                runs[program] = _emulate(program, Path(tmp) / f"program-{len(runs)}", cache, timeout,
                                         program_args or [])
            return runs[program]

        for path, found in sorted(by_file.items()):
            outcome = _outcome(Path(path), run)
            for f in found:
                f.confirmation, f.confirmation_detail = _judge(f, outcome)
    return sum(isinstance(r, Ran) for r in runs.values())


@dataclass
class Ran:
    """One emulated program: its verdict and the 64-lane sites of every file it read."""
    program: Path
    verdict: str                   # same | diverged | inconclusive
    first: str                     # the first difference, as port emulate prints it
    sites: list[Site]
    reached: list[Site]            # lines whose collective completed at 64 lanes


@dataclass
class Emulated:
    """What one file's findings are judged on: the run of the program that holds or includes it."""
    ran: Ran
    sites: list[Site]              # the sites in this file
    reached: set[int]              # the lines of this file whose collective ran at 64 lanes (sites included)
    flow: Flow
    via: str                       # "" for the program itself, else " (emulated through NAME)"


Outcome = Emulated | str  # or why it did not run
MAX_INCLUDERS = 8  # programs beside a header tried for it, in name order
_PROGRAM_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".hip")


def _outcome(path: Path, run: Callable[[Path], Ran | str]) -> Outcome:
    """The file's own run when it holds main(); for a header, the first program beside it (same
    directory) that includes it by name and runs."""
    text = _read(path)
    if text is None:
        return f"{path}: {_why(path)}"
    if _MAIN.search(text):
        got = run(path)
        return _view(got, path, text, "") if isinstance(got, Ran) else got
    tried = []
    for program in _includers(path):
        got = run(program)
        if isinstance(got, Ran):
            return _view(got, path, text, f" (emulated through {program.name}, which includes it)")
        tried.append(f"{program.name}: {got}")
    if not tried:
        return "no main() in this file and no program beside it includes it: nothing port emulate can run"
    return "; ".join(tried)


def _view(ran: Ran, path: Path, text: str, via: str) -> Emulated:
    me = path.resolve()
    sites = [s for s in ran.sites if _same_file(s.file, me)]
    reached = {s.line for s in ran.reached if _same_file(s.file, me)} | {s.line for s in sites}
    return Emulated(ran, sites, reached, Flow.of(text), via)


def _includers(header: Path) -> list[Path]:
    include = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"(?:[^"\n]*/)?' + re.escape(header.name) + '"', re.M)
    found = []
    for candidate in sorted(header.parent.iterdir()):
        if candidate.suffix not in _PROGRAM_SUFFIXES or candidate == header or not candidate.is_file():
            continue
        text = _read(candidate)
        if text is not None and _MAIN.search(text) and include.search(text):
            found.append(candidate)
        if len(found) == MAX_INCLUDERS:
            break
    return found


def _read(path: Path) -> str | None:
    from ..walk import read_regular

    data = read_regular(path)  # the one bounded reader: a FIFO or a huge file is not opened/read whole
    return None if data is None else data.decode("utf-8", "replace")


def _why(path: Path) -> str:
    from ..walk import why_unreadable

    return why_unreadable(path)


def _emulate(program: Path, out: Path, cache: Path, timeout: float, argv: list[str]) -> Ran | str:
    from .. import emulate

    out.mkdir(parents=True)
    req = emulate.Request(sources=[program], out_dir=out, include_dirs=[program.parent], timeout=timeout,
                          cache_dir=cache, mask_faults="report", program_args=argv)
    try:
        result = emulate.emulate(req)
    except PortError as exc:  # refused (a feature it does not model), does not build, fails at every width
        return f"port emulate: {exc}"
    # a mask the 64-lane run reported and widened is a difference of port emulate's, not of the
    # program's results: it is a site of its own (mask-32bit), so only the results count here
    results = [d for d in result.differences if d.what != "finding"]
    verdict = "same" if result.verdict == "diverged" and not results else result.verdict
    first = results[0].line() if results else ""
    return Ran(program, verdict, first, [s for r in result.runs for s in r.sites],
               [s for r in result.runs for s in r.reached])


def _same_file(name: str, path: Path) -> bool:
    try:
        return Path(name).resolve() == path
    except (OSError, RuntimeError):  # a loop of links, a name the OS refuses
        return False


def _judge(f: Finding, outcome: Outcome) -> tuple[str, str]:
    if isinstance(outcome, str):
        return "not-run", outcome
    status, detail = _judge_run(f, outcome)
    return status, detail + outcome.via


def _judge_run(f: Finding, outcome: Emulated) -> tuple[str, str]:
    if outcome.ran.verdict == "inconclusive":
        return "inconclusive", "a run at 32 or 64 lanes hit the time limit (--confirm-timeout)"
    targets = outcome.flow.targets(f.line)
    tied = [(s, targets[s.line]) for s in outcome.sites if s.line in targets]
    diverged = outcome.ran.verdict == "diverged"
    masks = [t for t in tied if t[0].kind == "mask-32bit"]
    if f.rule == "warp-mask-32bit" and masks:
        return "confirmed", _site(*masks[0]) + " (HIP traps on such a mask whatever the results)"
    if tied and diverged:
        return "confirmed", f"{_site(*tied[0])}, and the results differ at 32 and 64 lanes ({outcome.ran.first})"
    if not diverged:
        if tied:
            return "not-reproduced", (f"{_site(*tied[0])}, but the results are the same at 32 and 64 lanes "
                                      "(stdout and exit status) on this run")
        return "not-reproduced", "the same results at 32 and 64 lanes (stdout and exit status) on this run; " + \
            _collectives(outcome, targets)
    if outcome.flow.has_collective(sorted(targets)):
        elsewhere = sorted({s.line for s in outcome.sites})
        where = f" (sites on line {', '.join(map(str, elsewhere))})" if elsewhere else ""
        return "not-reproduced", (f"the results differ at 32 and 64 lanes ({outcome.ran.first}), but "
                                  f"{_collectives(outcome, targets)}: the difference arises elsewhere{where}")
    return "untraced", (f"the results differ at 32 and 64 lanes ({outcome.ran.first}), but no warp collective is "
                        "at or flows from this line, so the emulator cannot tie the difference to it")


def _collectives(outcome: Emulated, targets: dict[int, str]) -> str:
    """What the warp collectives at or from a finding's line did at 64 lanes, when none is a site."""
    ran = sorted(n for n in targets if n in outcome.reached)
    if ran:
        return f"the warp collectives on line {', '.join(map(str, ran))} ran at 64 lanes as in a 32-lane warp"
    if outcome.flow.has_collective(sorted(targets)):
        return "no warp collective at or from this line ran at 64 lanes (this input did not reach it)"
    return "no warp collective is at or flows from this line"


def _site(site: Site, how: str) -> str:
    place = f"line {site.line}" + ("" if how == "this line" else f" ({how})")
    return f"at 64 lanes {site.kind} on {place}: {site.detail}"
