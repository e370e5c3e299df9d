"""The parity verdict: the fold of ``porting.report.rules.RULES`` (the list in docs/report.md).

Any *blocking* finding -> NOT CERTIFIED (exit 1); else any *incomplete* one -> INCOMPLETE (exit
4: evidence is missing, e.g. N of M tests never ran on ROCm, or a shard never reported); no ROCm
run at all -> NO EVIDENCE (exit 3); else CERTIFIED (exit 0), or CERTIFIED ON EXTERNAL EVIDENCE
(exit 5) when every admitted ROCm run came from elsewhere (``port certify --reference``).
CPU-only evidence can never certify.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..matrix.exemptions import Exemption
from ..versions import VersionRefused, parse_release
from .model import Column, Matrix
from .rules import BLOCKING, INCOMPLETE, NONE_ON_ROCM, RULES, Context, Finding

CERTIFIED = "certified"
NOT_CERTIFIED = "not certified"
NO_EVIDENCE = "no evidence"
INCOMPLETE_STATUS = "incomplete"
CERTIFIED_EXTERNAL = "certified on external evidence"
EXIT_CODES = {CERTIFIED: 0, NOT_CERTIFIED: 1, NO_EVIDENCE: 3, INCOMPLETE_STATUS: 4, CERTIFIED_EXTERNAL: 5}


@dataclass
class Blocker:
    test_id: str
    column: str
    status: str
    reference: str  # reference column where the test passed
    message: str = ""
    note: str = ""  # e.g. "exemption X expired 2026-01-01"
    label: str = ""  # regression / fails on the reference too / ROCm only: the reference's say

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Exempted:
    test_id: str
    column: str
    status: str
    exemption: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class NeverCompared:
    """A test no reference run passed (skipped, xfailed, failed or absent there) while a
    judged ROCm run has it: parity was never measured for it."""

    test_id: str
    column: str  # the ROCm column
    status: str  # its status on ROCm
    reference_status: str  # the best status it had on the reference columns

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class NotExecuted:
    """A test applicable on ROCm that did not execute on a judged ROCm column (skipped, absent)."""

    test_id: str
    column: str
    status: str
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Verdict:
    status: str
    reference: list[str] = field(default_factory=list)  # reference column keys
    rocm: list[str] = field(default_factory=list)  # ROCm columns that were judged
    reasons: list[str] = field(default_factory=list)
    blocking: list[Blocker] = field(default_factory=list)
    exempted: list[Exempted] = field(default_factory=list)
    never_compared: list[NeverCompared] = field(default_factory=list)
    not_executed: list[NotExecuted] = field(default_factory=list)
    components: dict[str, str] = field(default_factory=dict)  # component -> certifiable / not certifiable: why
    evidence: list[dict[str, str]] = field(default_factory=list)  # per column: level, where it was made
    findings: list[Finding] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "exit_code": self.exit_code, "reference": self.reference,
                "rocm": self.rocm, "reasons": self.reasons,
                "blocking": [b.to_json() for b in self.blocking],
                "exempted": [e.to_json() for e in self.exempted],
                "never_compared": [n.to_json() for n in self.never_compared],
                "not_executed": [n.to_json() for n in self.not_executed],
                "components": dict(self.components), "evidence": list(self.evidence),
                "rules": [dict(f.__dict__) for f in self.findings]}


def reference_columns(matrix: Matrix, reference: str) -> tuple[str, list[Column]]:
    """Resolve ``auto``: CUDA when any CUDA run is present, else CPU."""
    if reference == "auto":
        reference = "cuda" if any(c.platform == "cuda" for c in matrix.columns) else "cpu"
    return reference, [c for c in matrix.columns if c.platform == reference]


def evidence_level(col: Column, judged: bool) -> dict[str, str]:
    """What a column is evidence of: executed on an AMD GPU (arch recorded), or CPU only; and
    where it was made (this run, or elsewhere: signed or not)."""
    if col.platform == "rocm":
        level = f"executed on an AMD GPU ({col.gpu_arch})" if judged else "refused as ROCm GPU evidence"
    elif col.platform == "cuda":
        level = f"executed on an NVIDIA GPU ({col.gpu_arch or 'arch?'})"
    else:
        level = "CPU only"
    origins = sorted({f"{'made elsewhere' if r.external else 'given'}: {r.provenance or 'not checked'}"
                      for r in col.runs})
    return {"column": col.key, "level": level, "provenance": ", ".join(origins)}


def decide(matrix: Matrix, reference: str = "auto", min_rocm: str = "7.0",
           exemptions: list[Exemption] | None = None, today: dt.date | None = None,
           min_executed: float = 1.0) -> Verdict:
    try:  # the same strict reader `port detect` gates with (porting.plan)
        gate = parse_release(min_rocm)
    except VersionRefused as exc:
        raise ConfigError(f"min_rocm: {exc}") from None
    ref_name, refs = reference_columns(matrix, reference)
    ctx = Context(matrix, ref_name, refs, [c for c in matrix.columns if c.platform == "rocm"], gate, min_rocm,
                  exemptions or [], today or dt.date.today(), min_executed)
    # The status is decided after the rules ran (below); NOT_CERTIFIED until then is not
    # observable (mutmut's `Verdict(None, ...)` survives as an equivalent mutant).
    verdict = Verdict(NOT_CERTIFIED, reference=[c.key for c in refs])
    for rule in RULES:
        verdict.findings.extend(rule(ctx, verdict))
    verdict.reasons = [f.reason for f in verdict.findings]
    levels = {f.level for f in verdict.findings}
    if NONE_ON_ROCM in levels:
        verdict.status = NO_EVIDENCE
    elif BLOCKING in levels:
        verdict.status = NOT_CERTIFIED
    elif INCOMPLETE in levels:
        verdict.status = INCOMPLETE_STATUS
    elif ctx.judged and all(r.external for c in ctx.judged for r in c.runs):
        verdict.status = CERTIFIED_EXTERNAL
        verdict.reasons.append("every admitted ROCm run was made elsewhere: "
                               + ", ".join(sorted({r.provenance or "unverified" for c in ctx.judged for r in c.runs})))
    else:
        verdict.status = CERTIFIED
    judged = {c.key for c in ctx.judged}
    verdict.evidence = [evidence_level(c, c.key in judged) for c in matrix.columns]
    return verdict
