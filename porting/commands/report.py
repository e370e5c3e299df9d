"""`port report RUN.xml... [--out DIR] [--baseline parity.json] [--reference cuda|cpu]`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config import add_option_flag
from ..errors import InputError, UsageError
from ..junit_contract import junit_files_under

HELP = "merge JUnit runs into a parity matrix, a verdict and report artifacts"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="RUN.xml",
                        help="JUnit XML files, or directories (their *.xml files, recursively)")
    parser.add_argument("--out", metavar="DIR", default=None, help="artifact directory (default: out_dir, port-out)")
    parser.add_argument("--baseline", metavar="parity.json", default=None, help="earlier parity.json to diff against")
    parser.add_argument("--reference", choices=("auto", "cuda", "cpu"), default=None,
                        help="reference platform (default auto: CUDA when present, else CPU)")
    parser.add_argument("--label", action="append", default=[], metavar="FILE=PLATFORM",
                        help="platform of a file without port.* properties: cpu, cuda-13.0, rocm-7.0.2/gfx942")
    parser.add_argument("--min-rocm", default=None, metavar="VERSION", help="lowest ROCm that can certify (7.0)")
    add_option_flag(parser, "matrix.exemptions", "--exemptions")
    parser.add_argument("--incomplete", action="append", default=[], metavar="REASON",
                        help="mark the report partial with this reason (used by `port certify`)")
    parser.add_argument("--run-id", default=None, metavar="ID",
                        help="read only this run's JUnit (port.run_id) from RUN.xml; files of other runs are "
                             "named and ignored, and the report is partial (used by `port certify`)")
    parser.add_argument("--external", action="append", default=[], metavar="FILE",
                        help="JUnit made elsewhere (`port certify --reference`): read, marked as external "
                             "evidence in the verdict")
    parser.add_argument("--require-signed", action="store_true",
                        help="refuse every input whose evidence manifest is not signed by a key of "
                             "report.trusted_keys")
    parser.add_argument("--no-evidence-ok", action="store_true",
                        help="exit 0 instead of 3 when there is no ROCm run and nothing else is wrong")


def _expand(inputs: list[str]) -> tuple[list[str], list[str]]:
    files: list[str] = []
    notes: list[str] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = [str(f) for f in junit_files_under(p)]  # not inside a suite run's working directory
            if not found:
                notes.append(f"{item}: no *.xml files in directory")
            files.extend(found)
        elif p.exists():
            files.append(item)
        else:
            raise InputError(f"{item}: no such file or directory")
    return files, notes


def _labels(specs: list[str], files: list[str]) -> dict[str, str]:
    from ..report.junit_reader import parse_label

    real = {os.path.realpath(f): f for f in files}
    out: dict[str, str] = {}
    for spec in specs:
        file, sep, label = spec.rpartition("=")
        if not sep or not file:
            raise UsageError(f"--label {spec!r}: expected FILE=PLATFORM")
        try:
            parse_label(label)
        except ValueError as exc:
            raise UsageError(f"--label {spec!r}: {exc}") from None
        target = real.get(os.path.realpath(file))
        if target is None:
            raise UsageError(f"--label {spec!r}: {file} is not one of the input files")
        out[target] = label
    return out


def _elsewhere(verdict) -> str:
    """The verdict line names evidence made elsewhere (`port certify --reference`) and its signature."""
    shown = [f"{e['column']} ({e['provenance'].replace('made elsewhere: ', '')})" for e in verdict.evidence
             if "made elsewhere" in e["provenance"]]
    return f"; evidence made elsewhere: {', '.join(shown)}" if shown else ""


def _share(percent: int) -> float:
    if not 0 <= percent <= 100:
        raise UsageError(f"report.min_executed_percent: {percent} is not a percentage (0-100)")
    return percent / 100


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..matrix.exemptions import registry_files
    from ..report import build_report, write_artifacts

    config = load_config(cli={"out_dir": args.out, "report.reference": args.reference,
                              "min_rocm": args.min_rocm, "matrix.exemptions": args.exemptions},
                         env=os.environ, config_file=args.config)
    for path in args.exemptions or []:
        if not Path(path).is_file():
            raise InputError(f"--exemptions {path}: no such file")
    files, notes = _expand(args.inputs)
    external, _ = _expand(args.external)
    labels = _labels(args.label, [*files, *external])
    report = build_report([*files, *external], labels=labels, reference=config["report.reference"],
                          min_rocm=config["min_rocm"], baseline=args.baseline, exemptions=registry_files(config),
                          extra_reasons=[*args.incomplete, *notes], run_id=args.run_id, external=external,
                          trusted_keys=config["report.trusted_keys"], require_signed=args.require_signed,
                          min_executed=_share(config["report.min_executed_percent"]))
    try:
        paths = write_artifacts(report, config["out_dir"])
    except OSError as exc:  # nothing was replaced (write_artifacts publishes all or none)
        where = exc.filename or config["out_dir"]
        raise UsageError(f"{where}: cannot write the report ({exc.strerror or exc}); no artifact was written") from None
    m, v = report.matrix, report.verdict
    for reason in m.partial_reasons():
        print(f"port: warning: {reason}", file=sys.stderr)
    for warning in report.warnings:
        print(f"port: warning: {warning}", file=sys.stderr)
    counts = " ".join(f"{c.key}={report.matrix.totals()[c.key]['*']['passed']}/"
                      f"{sum(n for s, n in report.matrix.totals()[c.key]['*'].items() if s != 'missing')} passed"
                      for c in m.columns)
    print(f"verdict: {v.status}{' (PARTIAL)' if m.partial else ''}; {len(m.cells)} tests; {counts or 'no runs'}; "
          f"{len(v.blocking)} blocking, {len(v.exempted)} exempted" + _elsewhere(v))
    for reason in v.reasons[:10]:
        print(f"  - {reason}")
    if report.baseline is not None:
        print("baseline: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report.baseline.counts().items()))
    print(f"artifacts: {', '.join(str(p) for p in paths.values())}")
    if not m.cells and m.partial and not args.incomplete:
        raise InputError("no usable test results in the input: " + "; ".join(m.partial_reasons()[:3]))
    if v.status == "no evidence" and args.no_evidence_ok and not m.partial:
        return 0
    return v.exit_code
