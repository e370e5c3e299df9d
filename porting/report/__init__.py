"""`port report`: JUnit XML -> Matrix -> Verdict -> parity.json / parity.md / index.html / chart.svg.

Public API::

    from porting.report import build_report, write_artifacts
    report = build_report(["run.xml"], labels={}, reference="auto", min_rocm="7.0")
    paths = write_artifacts(report, "port-out")
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from .baseline import BaselineDiff, diff_against
from .exemptions import load_exemptions
from .junit_reader import read_run
from .matrix_builder import build_matrix
from .model import Matrix, Run
from .parity_json import load_parity
from .verdict import Verdict, decide, reference_columns


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The report allocates ~10 objects per test case and makes no reference cycles;
    pausing the cyclic collector meanwhile saves ~25% of the run time on large inputs."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class Report:
    matrix: Matrix
    verdict: Verdict
    reference: str
    min_rocm: str
    generated: str
    tool: str = f"rocm-port {__version__}"
    baseline: BaselineDiff | None = None
    warnings: list[str] = field(default_factory=list)
    exemptions_file: str | None = None


def build_report(
    inputs: Sequence[str | os.PathLike[str]],
    labels: Mapping[str, str] | None = None,
    reference: str = "auto",
    min_rocm: str = "7.0",
    baseline: str | os.PathLike[str] | None = None,
    exemptions: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    extra_reasons: Sequence[str] = (),
    today: dt.date | None = None,
    run_id: str | None = None,
    external: Sequence[str | os.PathLike[str]] = (),
    trusted_keys: Sequence[str] = (),
    require_signed: bool = False,
    min_executed: float = 1.0,
) -> Report:
    """Read every input (bad ones become recorded problems), decide, diff. Pure but for reads.

    ``run_id``: only inputs of this run (``port.run_id``) are evidence; the others are named as
    problems and left out. ``external``: inputs made elsewhere (never filtered by run id): marked
    so in the verdict, and certification resting on them alone says so. Each input's evidence
    manifest is checked (porting.provenance): a file that no longer matches its manifest is
    refused, and with ``require_signed`` so is every file not signed by one of ``trusted_keys``."""
    from ..provenance import load_trusted

    trusted = load_trusted(trusted_keys)
    with _gc_paused():
        return _build_report(inputs, labels, reference, min_rocm, baseline, exemptions, extra_reasons, today,
                             run_id, external, (trusted, require_signed), min_executed)


def _provenance(runs: list[Run], trusted: Mapping[str, object], require_signed: bool) -> tuple[list[Run], list[str]]:
    """Label each run with what its manifest says; refuse the runs it contradicts (and, with
    ``require_signed``, every run not signed by a trusted key)."""
    from ..provenance import SIGNED, check

    kept: list[Run] = []
    refused: list[str] = []
    for run in runs:
        checked = check(run.info.file, trusted)
        run.info.provenance = checked.label
        why = checked.problem or ("" if checked.status == SIGNED or not require_signed
                                  else f"{checked.label}, and --require-signed asks for a trusted signature")
        if why:
            refused.append(f"{Path(run.info.file).name}: evidence refused: {why}")
        else:
            kept.append(run)
    return kept, refused


def _build_report(inputs, labels, reference, min_rocm, baseline, exemptions, extra_reasons, today,
                  run_id=None, external=(), signing=({}, False), min_executed=1.0) -> Report:
    labels = dict(labels or {})
    outside = {str(p) for p in external}
    runs = [read_run(path, labels.get(str(path))) for path in inputs]
    foreign: list[str] = []
    for run in runs:
        run.info.external = run.info.file in outside
    if run_id is not None:
        foreign = [f"{Path(r.info.file).name}: from run {r.info.run_id[:40] or '(none)'}, not this run "
                   f"{run_id[:40]}: ignored" for r in runs if not r.info.external and r.info.run_id != run_id]
        runs = [r for r in runs if r.info.external or r.info.run_id == run_id]
    runs, refused = _provenance(runs, *signing)
    matrix = build_matrix(runs)
    matrix.problems.extend([*foreign, *refused])
    matrix.problems.extend(f"certify: {r}" for r in extra_reasons)
    registries = [exemptions] if isinstance(exemptions, (str, os.PathLike)) else list(exemptions or [])
    verdict = decide(matrix, reference, min_rocm, load_exemptions(registries), today, min_executed)
    warnings = [f"{Path(run.file).name}: {w}" for col in matrix.columns for run in col.runs for w in run.warnings]
    ref_name, _ = reference_columns(matrix, reference)
    report = Report(matrix=matrix, verdict=verdict, reference=ref_name, min_rocm=min_rocm,
                    generated=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    warnings=warnings,
                    exemptions_file=", ".join(str(p) for p in registries if Path(p).is_file()) or None)
    if baseline is not None:
        report.baseline = diff_against(matrix, load_parity(baseline), str(baseline))
    return report


# The files `port report` writes into its output directory (certify lists the ones that exist).
ARTIFACTS = ("parity.json", "parity.md", "chart.svg", "index.html")


def write_artifacts(report: Report, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write parity.json, parity.md, index.html and chart.svg into out_dir, all or none: every
    artifact is rendered, then staged, before any replaces its previous version."""
    from ..paths import OutputDir
    from .parity_json import report_to_text
    from .render_html import render_html
    from .render_md import render_md
    from .render_svg import render_chart

    with _gc_paused():
        chart = render_chart(report)
        rendered = {
            "parity.json": report_to_text(report),
            "parity.md": render_md(report),
            "chart.svg": chart,
            "index.html": render_html(report, chart),
        }
    assert tuple(sorted(rendered)) == tuple(sorted(ARTIFACTS))
    written = OutputDir(out_dir).publish({name: text.encode("utf-8") for name, text in rendered.items()})
    return {name: Path(path) for name, path in written.items()}


__all__ = ["ARTIFACTS", "Report", "build_report", "write_artifacts", "load_parity"]
