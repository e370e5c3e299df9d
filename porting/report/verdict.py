"""The parity verdict: certified / not certified / no evidence (rules in docs/report.md).

ROCm parity is *certified* only if

1. a run on ROCm >= ``min_rocm`` (7.0) is present and says ROCm was usable,
2. a reference run is present (CUDA when any CUDA run is present, else CPU; or as asked),
3. every test that passes on a reference platform also passes on every such ROCm platform,
   except tests covered by an unexpired registered exemption, and
4. no input is incomplete (unreadable/truncated file, port.complete=false, crashed worker,
   missing shard, zero tests, duplicate ids, fewer results than collected).

Otherwise it is *not certified* (with reasons and the blocking tests), or *no evidence*
when there is no ROCm run at all. CPU-only evidence can never certify.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..matrix.exemptions import Exemption
from ..versions import compare, parse_version
from .exemptions import exemption_json, matches
from .model import PASSED, Column, Matrix

CERTIFIED = "certified"
NOT_CERTIFIED = "not certified"
NO_EVIDENCE = "no evidence"
EXIT_CODES = {CERTIFIED: 0, NOT_CERTIFIED: 1, NO_EVIDENCE: 3}


@dataclass
class Blocker:
    test_id: str
    column: str
    status: str
    reference: str  # reference column where the test passed
    message: str = ""
    note: str = ""  # e.g. "exemption X expired 2026-01-01"

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
class Verdict:
    status: str
    reference: list[str] = field(default_factory=list)  # reference column keys
    rocm: list[str] = field(default_factory=list)  # ROCm columns that were judged
    reasons: list[str] = field(default_factory=list)
    blocking: list[Blocker] = field(default_factory=list)
    exempted: list[Exempted] = field(default_factory=list)
    never_compared: list[NeverCompared] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "exit_code": self.exit_code, "reference": self.reference,
                "rocm": self.rocm, "reasons": self.reasons,
                "blocking": [b.to_json() for b in self.blocking],
                "exempted": [e.to_json() for e in self.exempted],
                "never_compared": [n.to_json() for n in self.never_compared]}


def reference_columns(matrix: Matrix, reference: str) -> tuple[str, list[Column]]:
    """Resolve ``auto``: CUDA when any CUDA run is present, else CPU."""
    if reference == "auto":
        reference = "cuda" if any(c.platform == "cuda" for c in matrix.columns) else "cpu"
    return reference, [c for c in matrix.columns if c.platform == reference]


def _find_exemption(exemptions: list[Exemption], test_id: str, col: Column, named: str,
                    today: dt.date) -> Exemption | str:
    """The live exemption covering this cell, else the blocker's note: why none applies ("" when
    none matched and the plugin named none). One value, not a pair: a note beside a found
    exemption would be read by nobody."""
    note = ""
    for ex in exemptions:
        if matches(ex, test_id, col.platform) or (named and ex.id == named and ex.applies_to(col.platform)):
            if ex.expired(today):
                note = f"exemption {ex.id} expired {ex.expires}"
                continue
            return ex
    if named and not note:
        note = f"exemption {named!r} is not in the registry"
    return note


def decide(matrix: Matrix, reference: str = "auto", min_rocm: str = "7.0",
           exemptions: list[Exemption] | None = None, today: dt.date | None = None) -> Verdict:
    gate = parse_version(min_rocm)  # read as `port detect` reads it
    if gate is None:
        raise ConfigError(f"min_rocm: {min_rocm!r} is not a version")
    exemptions = exemptions or []
    today = today or dt.date.today()
    ref_name, refs = reference_columns(matrix, reference)
    rocm_all = [c for c in matrix.columns if c.platform == "rocm"]
    verdict = Verdict(NOT_CERTIFIED, reference=[c.key for c in refs])
    reasons = verdict.reasons
    if matrix.partial:
        partial = matrix.partial_reasons()
        reasons.append("incomplete evidence: " + "; ".join(partial[:5])
                       + (f" (+{len(partial) - 5} more)" if len(partial) > 5 else ""))
    if not rocm_all:
        verdict.status = NO_EVIDENCE
        reasons.insert(0, "no run on ROCm")
        return verdict
    judged: list[Column] = []
    for col in rocm_all:
        v = parse_version(col.version, anchored=True)
        if v is None:
            reasons.append(f"{col.key}: ROCm version unknown (need >= {min_rocm})")
        elif compare(v, "<", gate):
            reasons.append(f"{col.key}: ROCm {col.version} is below {min_rocm}")
        elif any(r.rocm_usable.lower() == "false" for r in col.runs):
            reasons.append(f"{col.key}: run says ROCm was not usable (port.rocm_usable=false)")
        else:
            judged.append(col)
    verdict.rocm = [c.key for c in judged]
    if not judged:
        reasons.append(f"no usable run on ROCm >= {min_rocm}")
    if not refs:
        reasons.append(f"no run on the reference platform ({ref_name})")

    ref_keys = [c.key for c in refs]
    for test_id in sorted(matrix.cells):
        row = matrix.cells[test_id]
        passed_on = next((k for k in ref_keys if (c := row.get(k)) is not None and c.status == PASSED), None)
        if passed_on is None:
            _not_compared(verdict, matrix, test_id, row, ref_keys, judged)
            continue
        for col in judged:
            cell = matrix.cell(test_id, col.key)
            if cell.status == PASSED:
                continue
            found = _find_exemption(exemptions, test_id, col, cell.exemption, today)
            if isinstance(found, Exemption):
                verdict.exempted.append(Exempted(test_id, col.key, cell.status, exemption_json(found)))
            else:
                verdict.blocking.append(Blocker(test_id, col.key, cell.status, passed_on, cell.message, found))
    if verdict.blocking:
        reasons.append(f"{len(verdict.blocking)} test(s) pass on {ref_name} but not on ROCm")
    if not reasons:
        verdict.status = CERTIFIED
    return verdict


def _not_compared(verdict: Verdict, matrix: Matrix, test_id: str, row: dict[str, Any], ref_keys: list[str],
                  judged: list[Column]) -> None:
    """A test the reference never passed is listed for every judged ROCm column, whatever
    ROCm did with it: a reference run that skipped cases must not make them vanish from the
    verdict. (A test that failed on the reference too is a known failure on both.)"""
    ref_statuses = [c.status for k in ref_keys if (c := row.get(k)) is not None]
    if any(s in ("failed", "error") for s in ref_statuses):
        return
    shown = ref_statuses[0] if ref_statuses else "missing"
    for col in judged:
        verdict.never_compared.append(NeverCompared(test_id, col.key, matrix.cell(test_id, col.key).status, shown))
