"""The verdict rules, one small function each (the list a reviewer audits: docs/report.md).

Every rule reads the ``Context`` (the matrix, the admitted ROCm columns, the reference columns,
the gate, the exemptions) and returns ``Finding``s; it may also record the tests it judged on
the ``Verdict`` (blocking, exempted, never compared, not executed). ``porting.report.verdict``
folds ``RULES`` into one status: any *blocking* finding -> NOT CERTIFIED, else any *incomplete*
one -> INCOMPLETE, else CERTIFIED. A rule never decides alone that a run is certified.

docs/report.md names each rule (its ``__name__``) beside the test that holds it, and
``tests/report/test_rules_doc.py`` keeps the two in step.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..matrix.exemptions import Exemption
from ..registry import platform_of_path
from ..versions import VersionRefused, compare, parse_release
from .exemptions import exemption_json, matches
from .model import ERROR, FAILED, MISSING, PASSED, RAN, SKIPPED, XFAILED, XPASSED, Column, Matrix, RunInfo

if TYPE_CHECKING:
    from .verdict import Verdict

BLOCKING = "blocking"
INCOMPLETE = "incomplete"
NONE_ON_ROCM = "no evidence"

# Outcomes on the candidate platform that are failures: an xfail marker is no exemption (it has
# no reason on record and no expiry), so it blocks like a failure unless the registry covers it.
FAILING = (FAILED, ERROR, XFAILED, XPASSED)
NOT_EXECUTED = (SKIPPED, MISSING)

# What each component's tests exercise on the run, beyond the ROCm runtime itself: a component
# is certifiable only when each of these is a ROCm build there. Components not listed run
# through torch. ("path": the native code was built for a ROCm path.) The needs are transitive:
# torchmonarch is built against torch and loads it in every process (its ROCm wheel is compiled
# against a ROCm torch), so a Monarch component exercises the torch build too; a run claiming a
# ROCm torchmonarch over a CUDA torch exercised no ROCm build of Monarch as users install it.
COMPONENT_NEEDS: dict[str, tuple[str, ...]] = {
    "actor": ("monarch", "torch"),
    "supervision": ("monarch", "torch"),
    "rdma": ("monarch", "torch"),
    "tensor_engine": ("monarch", "torch"),
    "sharding": ("torch",),
    "native": ("path",),
}
DEFAULT_NEEDS: tuple[str, ...] = ("torch",)


@dataclass
class Finding:
    rule: str
    level: str  # BLOCKING / INCOMPLETE / NONE_ON_ROCM
    reason: str


@dataclass
class Context:
    matrix: Matrix
    reference_name: str
    refs: list[Column]
    rocm_all: list[Column]
    gate: tuple[int, ...]
    min_rocm: str
    exemptions: list[Exemption]
    today: dt.date
    min_executed: float = 1.0  # share of applicable tests that must have executed on ROCm
    judged: list[Column] = field(default_factory=list)  # filled by admit_rocm_runs
    blocked_cells: set[tuple[str, str]] = field(default_factory=set)  # (test, column) blocking
    exempted_cells: set[tuple[str, str]] = field(default_factory=set)  # (test, column) exempted


def find_exemption(ctx: Context, test_id: str, col: Column, named: str) -> Exemption | str:
    """The live exemption covering this cell, else the blocker's note: why none applies ("" when
    none matched and the plugin named none)."""
    note = ""
    for ex in ctx.exemptions:
        if matches(ex, test_id, col.platform) or (named and ex.id == named and ex.applies_to(col.platform)):
            if ex.expired(ctx.today):
                note = f"exemption {ex.id} expired {ex.expires}"
                continue
            return ex
    if named and not note:
        note = f"exemption {named!r} is not in the registry"
    return note


# --- admission: which ROCm runs are ROCm GPU evidence at all ---------------------------------

def run_refusal(info: RunInfo, gate: tuple[int, ...], min_rocm: str) -> str:
    """Why one run filed under ROCm is not ROCm GPU evidence ("" when it is): its properties
    must agree with each other (platform, path, version, usable, GPU arch)."""
    try:
        version = parse_release(info.rocm_version)
    except VersionRefused as exc:
        return f"ROCm version refused: {exc}"
    if compare(version, "<", gate):
        return f"ROCm {info.rocm_version} is below {min_rocm}"
    if info.rocm_usable.lower() == "false":
        return "run says ROCm was not usable (port.rocm_usable=false)"
    archs = [a for a in info.gpu_arch.split(",") if a]
    if not archs:
        return "no GPU arch recorded: not evidence of execution on an AMD GPU"
    if any(not (a.startswith("gfx") and a[3:].isascii() and a[3:].isalnum()) for a in archs):
        return f"GPU arch {info.gpu_arch!r} is not an AMD gfx target"
    if info.path and platform_of_path(info.path) != "rocm":
        return f"path {info.path!r} is not a ROCm path: the tests ran on {platform_of_path(info.path)}"
    if not info.path and info.source != "label":
        return "no port.path recorded: what was under test is unknown"
    return ""


def admit_rocm_runs(ctx: Context, verdict: Verdict) -> list[Finding]:
    """A ROCm column is judged only when every run in it is consistent ROCm GPU evidence on a
    released ROCm >= min_rocm (``run_refusal``); the others are refused with the reason."""
    findings: list[Finding] = []
    for col in ctx.rocm_all:
        refused = [f"{r.file}: {w}" for r in col.runs if (w := run_refusal(r, ctx.gate, ctx.min_rocm))]
        if refused:  # the first bad run names the reason
            findings.append(Finding("admit_rocm_runs", BLOCKING, f"{col.key}: refused as ROCm evidence: {refused[0]}"))
        else:
            ctx.judged.append(col)
    verdict.rocm = [c.key for c in ctx.judged]
    if ctx.rocm_all and not ctx.judged:
        findings.append(Finding("admit_rocm_runs", BLOCKING, f"no usable run on ROCm >= {ctx.min_rocm}"))
    return findings


# --- the rules ------------------------------------------------------------------------------

def rocm_run_present(ctx: Context, verdict: Verdict) -> list[Finding]:
    """No run filed under ROCm at all: nothing to certify (NO EVIDENCE)."""
    return [] if ctx.rocm_all else [Finding("rocm_run_present", NONE_ON_ROCM, "no run on ROCm")]


def reference_present(ctx: Context, verdict: Verdict) -> list[Finding]:
    """Parity needs a run on the reference platform."""
    if ctx.refs:
        return []
    return [Finding("reference_present", BLOCKING, f"no run on the reference platform ({ctx.reference_name})")]


def _reference_passed(ctx: Context, row: dict) -> str | None:
    return next((c.key for c in ctx.refs if (cell := row.get(c.key)) is not None and cell.status == PASSED), None)


def _label(ctx: Context, row: dict) -> str:
    """The reference decides the label of a ROCm failure, never whether it blocks."""
    statuses = [cell.status for c in ctx.refs if (cell := row.get(c.key)) is not None]
    if PASSED in statuses:
        return "regression"
    if any(s in (FAILED, ERROR) for s in statuses):
        return f"fails on {ctx.reference_name} too"
    return f"ROCm only (never ran on {ctx.reference_name})" if not any(s in RAN for s in statuses) \
        else f"not passed on {ctx.reference_name}"


def _block(ctx: Context, verdict: Verdict, test_id: str, col: Column, label: str, passed_on: str) -> None:
    from .verdict import Blocker, Exempted

    cell = ctx.matrix.cell(test_id, col.key)
    found = find_exemption(ctx, test_id, col, cell.exemption)
    if isinstance(found, Exemption):
        verdict.exempted.append(Exempted(test_id, col.key, cell.status, exemption_json(found)))
        ctx.exempted_cells.add((test_id, col.key))
    else:
        verdict.blocking.append(Blocker(test_id, col.key, cell.status, passed_on, cell.message, found, label))
        ctx.blocked_cells.add((test_id, col.key))


def rocm_failures_block(ctx: Context, verdict: Verdict) -> list[Finding]:
    """Every failure, error, xfail or xpass on a judged ROCm column blocks unless a live
    exemption (reason + expiry) covers it, whatever the reference did."""
    before = len(verdict.blocking)
    for test_id in ctx.matrix.test_ids:
        row = ctx.matrix.cells[test_id]
        for col in ctx.judged:
            cell = row.get(col.key)
            if cell is not None and cell.status in FAILING:
                _block(ctx, verdict, test_id, col, _label(ctx, row), _reference_passed(ctx, row) or "")
    n = len(verdict.blocking) - before
    return [Finding("rocm_failures_block", BLOCKING, f"{n} test(s) fail on ROCm")] if n else []


def reference_passes_run_on_rocm(ctx: Context, verdict: Verdict) -> list[Finding]:
    """A test that passes on the reference and was skipped or is missing on ROCm blocks
    (parity was lost, not merely unmeasured), unless exempted. Missing from a ROCm column whose
    evidence is incomplete (a shard that never reported) is unknown, not lost: executed_on_rocm
    counts it (INCOMPLETE)."""
    before = len(verdict.blocking)
    for test_id in ctx.matrix.test_ids:
        row = ctx.matrix.cells[test_id]
        passed_on = _reference_passed(ctx, row)
        if passed_on is None:
            continue
        for col in ctx.judged:
            status = ctx.matrix.cell(test_id, col.key).status
            if status == SKIPPED or (status == MISSING and col.complete):
                _block(ctx, verdict, test_id, col, "regression", passed_on)
    n = len(verdict.blocking) - before
    return [Finding("reference_passes_run_on_rocm", BLOCKING,
                    f"{n} test(s) pass on {ctx.reference_name} but did not run on ROCm")] if n else []


def executed_on_rocm(ctx: Context, verdict: Verdict) -> list[Finding]:
    """CERTIFIED needs execution: of the tests known to the matrix and not exempted, at least
    ``min_executed`` (default all) must have executed on every judged ROCm column; tests skipped
    there or absent (deselected, a shard that never reported) make the verdict INCOMPLETE."""
    from .verdict import NeverCompared, NotExecuted

    findings: list[Finding] = []
    for col in ctx.judged:
        applicable = executed = 0
        for test_id in ctx.matrix.test_ids:
            cell = ctx.matrix.cell(test_id, col.key)
            judged = (test_id, col.key) in ctx.blocked_cells
            if (test_id, col.key) in ctx.exempted_cells or (
                    not judged and cell.status in NOT_EXECUTED
                    and isinstance(find_exemption(ctx, test_id, col, cell.exemption), Exemption)):
                continue
            applicable += 1
            row = ctx.matrix.cells[test_id]
            if cell.status in RAN:
                executed += 1
                if _reference_passed(ctx, row) is None:
                    ref = next((c.status for k in ctx.refs if (c := row.get(k.key)) is not None), MISSING)
                    verdict.never_compared.append(NeverCompared(test_id, col.key, cell.status, ref))
            elif not judged:
                verdict.not_executed.append(NotExecuted(test_id, col.key, cell.status, cell.message))
        if applicable and executed < ctx.min_executed * applicable:
            findings.append(Finding("executed_on_rocm", INCOMPLETE,
                                    f"{col.key}: {applicable - executed} of {applicable} applicable test(s) "
                                    f"never ran on ROCm (skipped or absent)"))
    return findings


def _flavour_problem(need: str, info: RunInfo) -> str:
    if need == "path":
        return "" if platform_of_path(info.path or None) == "rocm" or (not info.path and info.source == "label") \
            else f"native code was built for path {info.path or '?'}"
    name, flavour = ("torchmonarch", info.monarch_flavour) if need == "monarch" else ("torch", info.torch_flavour)
    if flavour == "rocm":
        return ""
    return f"{name} is {'a ' + flavour + ' build' if flavour else 'of an unrecorded build'} on {info.file}"


def components_built_for_rocm(ctx: Context, verdict: Verdict) -> list[Finding]:
    """A component is certifiable only when what its tests exercise on the judged ROCm runs is
    a ROCm build (torchmonarch, torch, the native path: ``COMPONENT_NEEDS``); otherwise it reads
    "not certifiable: <why>" and the verdict cannot be CERTIFIED."""
    components = sorted(set(ctx.matrix.components.values()))
    runs = [r for col in ctx.judged for r in col.runs]
    findings: list[Finding] = []
    for comp in components:
        problems = [p for need in COMPONENT_NEEDS.get(comp, DEFAULT_NEEDS) for r in runs
                    if (p := _flavour_problem(need, r))]
        if not runs:
            verdict.components[comp] = "not certifiable: no admitted ROCm run"
        elif problems:  # the first need of the first run that lacks it
            why = problems[0]
            verdict.components[comp] = f"not certifiable: {why}"
            findings.append(Finding("components_built_for_rocm", BLOCKING, f"component {comp} not certifiable: {why}"))
        else:
            verdict.components[comp] = "certifiable"
    return findings


def evidence_complete(ctx: Context, verdict: Verdict) -> list[Finding]:
    """Any incomplete input (unreadable or truncated file, port.complete=false, crashed worker,
    missing shard, a certify stage skipped or broken, ...) makes the verdict INCOMPLETE."""
    if not ctx.matrix.partial:
        return []
    partial = ctx.matrix.partial_reasons()
    return [Finding("evidence_complete", INCOMPLETE, "incomplete evidence: " + "; ".join(partial[:5])
                    + (f" (+{len(partial) - 5} more)" if len(partial) > 5 else ""))]


Rule = Callable[[Context, "Verdict"], list[Finding]]
# In order: admission first (the later rules read ctx.judged), then the per-test rules.
RULES: tuple[Rule, ...] = (
    rocm_run_present,
    evidence_complete,
    admit_rocm_runs,
    reference_present,
    rocm_failures_block,
    reference_passes_run_on_rocm,
    executed_on_rocm,
    components_built_for_rocm,
)
