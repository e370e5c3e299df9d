"""Read one JUnit XML file (pytest, cargo-nextest, ctest, ...) into a ``Run``.

Parsing goes through junitparser. Bad input never raises out of ``read_run``: the
problems are recorded on the run (which then counts as incomplete evidence):

* empty file, not XML, not JUnit (root is not <testsuites>/<testsuite>): no cases, a problem;
* truncated or malformed XML: the test cases completed before the error are kept, a problem;
* bytes that are not UTF-8 or characters XML forbids (mixed encodings in messages):
  replaced with U+FFFD and re-parsed, a warning (the outcomes are intact);
* duplicate test ids within a run: the worse outcome is kept, a problem (ambiguous evidence);
* the matrix plugin's own flags: ``port.complete=false``, fewer cases than ``port.collected``,
  zero tests, a crashed xdist worker: problems.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from ..junit_contract import COMPONENT, EXEMPTION, LABELLED, SCHEMA, default_component, run_fields
from .model import ERROR, FAILED, PASSED, SEVERITY, SKIPPED, XFAILED, XPASSED, Case, Run, RunInfo

MESSAGE_LIMIT = 300
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_ENCODING_DECL = re.compile(rb"^\s*<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)[\"']")
_CRASHED = re.compile(r"worker '?[\w-]+'? crashed|node down", re.IGNORECASE)
_XPASS_STRICT = "xfail-marked test passes unexpectedly"
_LABEL = re.compile(r"^(?P<platform>rocm|cuda|cpu)(?:[-:](?P<version>[0-9][0-9A-Za-z.+-]*))?"
                    r"(?:/(?P<arch>[\w,.-]+))?$")
_PROPS = run_fields()  # porting.junit_contract: each property declared once


def parse_label(label: str) -> dict[str, str]:
    """``rocm-7.0.2/gfx942`` -> {"platform": "rocm", "rocm_version": "7.0.2", "gpu_arch": "gfx942"}."""
    m = _LABEL.match(label.strip().lower())
    if not m:
        raise ValueError(f"label {label!r} must look like cpu, cuda-13.0 or rocm-7.0.2/gfx942")
    platform, version, arch = m.group("platform"), m.group("version") or "", m.group("arch") or ""
    out = {"platform": platform, "gpu_arch": arch}
    if platform == "rocm":
        out["rocm_version"], out["rocm_usable"] = version, "true"
    elif platform == "cuda":
        out["cuda_version"] = version
    return out


def _decode_lossy(data: bytes) -> tuple[bytes, list[str]]:
    """Re-encode as clean UTF-8 XML: invalid bytes and XML-illegal characters -> U+FFFD."""
    warnings: list[str] = []
    declared = _ENCODING_DECL.match(data)
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        text = data.decode("utf-8", errors="replace")
        warnings.append(f"bytes not valid {encoding} ({exc.__class__.__name__}); replaced with U+FFFD")
    text, n = _ILLEGAL_XML.subn("\ufffd", text)
    if n:
        warnings.append(f"{n} characters not allowed in XML replaced with U+FFFD")
    if declared:  # the text is now UTF-8 whatever the declaration said
        text = re.sub(r"^(\s*<\?xml[^>]*encoding=)[\"'][A-Za-z0-9._-]+[\"']", r'\1"utf-8"', text, count=1)
    return text.encode("utf-8"), warnings


def _salvage(data: bytes) -> tuple[ET.Element | None, str]:
    """Parse as far as possible; drop the test case (if any) that was cut off."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    stack: list[ET.Element] = []
    error = ""

    def drain() -> None:
        nonlocal root
        # only start/end events are asked for: each is an (event, element) pair
        for event, elem in cast("Iterator[tuple[str, ET.Element]]", parser.read_events()):
            if event == "start":
                if root is None:
                    root = elem
                stack.append(elem)
            elif stack:
                stack.pop()

    try:
        for start in range(0, len(data), 1 << 16):
            parser.feed(data[start:start + (1 << 16)])
            drain()
        parser.close()
        drain()
    except ET.ParseError as exc:
        drain()
        error = str(exc)
    # Remove open (unfinished) test cases from their parents: their outcome is unknown.
    for i, elem in enumerate(stack):
        if elem.tag == "testcase" and i > 0:
            stack[i - 1].remove(elem)
            break
    return root, error or "XML ended before the closing tag"


def _parse(data: bytes, info: RunInfo) -> ET.Element | None:
    try:
        return ET.fromstring(data)
    except ET.ParseError:
        pass
    cleaned, warnings = _decode_lossy(data)
    if warnings:
        try:
            root: ET.Element | None = ET.fromstring(cleaned)
            info.warnings.extend(warnings)
            return root
        except ET.ParseError:
            pass
    root, error = _salvage(cleaned)
    info.warnings.extend(warnings)
    if root is None:
        info.problems.append(f"not XML ({error})")
        return None
    info.problems.append(f"truncated or malformed XML ({error}); kept the test cases before it")
    return root


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line[:MESSAGE_LIMIT] + ("…" if len(line) > MESSAGE_LIMIT else "")
    return ""


def _outcome(elem: ET.Element) -> tuple[str, str, dict[str, str]]:
    """(status, first message line, testcase properties) from a <testcase> element's children.

    One pass over the direct children (junitparser's ``TestCase.result`` builds a wrapper per
    descendant, which dominated the run time on large files).
    """
    failure = error = skipped = None
    props: dict[str, str] = {}
    for child in elem:
        tag = child.tag
        if tag == "failure":
            failure = failure if failure is not None else child
        elif tag == "error":
            error = error if error is not None else child
        elif tag == "skipped":
            skipped = skipped if skipped is not None else child
        elif tag == "properties":
            for prop in child:
                if prop.tag == "property" and prop.get("name"):
                    props[prop.get("name", "")] = prop.get("value") or ""
    if failure is not None:
        message = _first_line(failure.get("message")) or _first_line(failure.text)
        return (XPASSED if message.startswith("[XPASS(strict)]") else FAILED), message, props
    if error is not None:
        return ERROR, _first_line(error.get("message")) or _first_line(error.text), props
    if skipped is None:
        return PASSED, "", props
    message = _first_line(skipped.get("message")) or _first_line(skipped.text)
    if skipped.get("type") == "pytest.xfail":
        return XFAILED, message, props
    if message == _XPASS_STRICT:
        return XPASSED, message, props
    return SKIPPED, message, props


def _suites(xml):
    """Every testsuite that holds test cases, nested ones included."""
    for suite in xml:
        yield suite
        stack = list(suite.testsuites())
        while stack:
            inner = stack.pop(0)
            yield inner
            stack.extend(inner.testsuites())


def read_run(path: str | Path, label: str | None = None) -> Run:
    """Read one JUnit file; never raises for bad content (see the module docstring)."""
    from junitparser import JUnitXml, JUnitXmlError

    info = RunInfo(file=str(path))
    run = Run(info=info)
    if label:
        info.__dict__.update(parse_label(label))
        info.source = "label"
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        info.problems.append(f"cannot read: {exc.strerror or exc}")
        return run
    if not data.strip():
        info.problems.append("empty file")
        return run
    root = _parse(data, info)
    if root is None:
        return run
    try:
        xml = JUnitXml.fromfile(str(path), parse_func=lambda _f: ET.ElementTree(root))
    except JUnitXmlError:
        info.problems.append(f"not JUnit XML (root element <{root.tag}>, expected <testsuites> or <testsuite>)")
        return run
    _apply_properties(info, _port_properties(xml, info), labelled=bool(label))
    info.timestamp = next((t for t in (s._elem.get("timestamp") for s in [xml, *_suites(xml)]) if t), "")
    tally = _read_cases(xml, run)
    _judge_counts(info, run, tally)
    return run


def _port_properties(xml, info: RunInfo) -> dict[str, str]:
    """The port.* properties of the file and its suites (the first value of each wins; two
    platforms or run ids in one file is a problem)."""
    from junitparser import Properties

    props: dict[str, str] = {}
    for holder in [xml, *_suites(xml)]:
        for prop in (holder.child(Properties) or []):
            if prop.name and prop.name.startswith("port."):
                old = props.setdefault(prop.name, prop.value or "")
                if old != (prop.value or "") and prop.name in ("port.platform", "port.run_id"):
                    info.problems.append(f"conflicting {prop.name} values in one file: {old!r}, {prop.value!r}")
    return props


class _Tally:
    def __init__(self) -> None:
        self.duplicates: list[str] = []
        self.crashed = 0
        self.nameless = 0


def _duration(case: ET.Element) -> float:
    text = case.get("time")
    if not text:
        return 0.0
    try:
        duration = float(text.replace(",", "") if "," in text else text)
    except ValueError:
        return 0.0
    return duration if math.isfinite(duration) and duration >= 0 else 0.0


def _read_cases(xml, run: Run) -> _Tally:
    tally = _Tally()
    cases = run.cases
    for suite in _suites(xml):
        suite_name = suite.name or ""
        # Cases are read straight from the suite's elements: junitparser's per-case wrappers
        # cost more than the XML parse itself on 20k-case files (see bench/bench_report.py).
        for case in suite._elem:
            if case.tag != "testcase":
                continue
            name = case.get("name") or ""
            classname = case.get("classname") or ""
            status, message, case_props = _outcome(case)
            if not name and not classname:
                # pytest writes bare <testcase/> for session-level reports; keep them only
                # when they carry a failure, each under its own id.
                if status == PASSED:
                    tally.nameless += 1
                    continue
                name = f"(unnamed {len(cases) + 1})"
            test_id = f"{classname}::{name}" if classname else (f"{suite_name}::{name}" if suite_name else name)
            if status == ERROR and _CRASHED.search(message):
                tally.crashed += 1
            new = Case(test_id, case_props.get(COMPONENT) or default_component(test_id), status,
                       _duration(case), message, case_props.get(EXEMPTION, ""))
            prev = cases.get(test_id)
            if prev is not None:
                tally.duplicates.append(test_id)
                if SEVERITY[prev.status] >= SEVERITY[new.status]:
                    continue
            cases[test_id] = new
    return tally


def _judge_counts(info: RunInfo, run: Run, tally: _Tally) -> None:
    info.tests = len(run.cases)
    if tally.nameless:
        info.warnings.append(f"{tally.nameless} nameless passing <testcase/> element(s) ignored")
    if tally.duplicates:
        info.problems.append(f"{len(tally.duplicates)} duplicate test ids in one run (worse outcome kept), "
                             f"e.g. {tally.duplicates[0]}")
    if tally.crashed:
        info.problems.append(f"{tally.crashed} test(s) lost to a crashed xdist worker")
    if not run.cases and not any("XML" in p for p in info.problems):
        info.problems.append("zero tests")
    if info.collected is not None and info.collected > len(run.cases) + len(tally.duplicates):
        info.problems.append(f"collected {info.collected} tests but only {len(run.cases)} reported")
    elif info.collected is not None and info.collected < len(run.cases):
        # the run's own properties disagree with its cases: cases were added after the run
        info.problems.append(f"reports {len(run.cases)} tests but collected only {info.collected}")


def _apply_properties(info: RunInfo, props: dict[str, str], labelled: bool) -> None:
    if not props:
        if not labelled:
            info.source = "none"
        return
    for prop, attr in _PROPS.items():
        if prop in props and not (labelled and attr in LABELLED):
            setattr(info, attr, props[prop].strip())
    if not labelled:
        info.source = "properties"
    if props.get("port.schema", SCHEMA) != SCHEMA:
        info.warnings.append(f"unknown port.schema {props['port.schema']!r} (this reader knows {SCHEMA})")
    if props.get("port.complete", "true").strip().lower() == "false":
        reason = props.get("port.incomplete_reason", "").strip()
        info.problems.append(f"run incomplete: {reason}" if reason else "run incomplete (port.complete=false)")
    collected = props.get("port.collected", "").strip()
    if collected:
        try:
            info.collected = int(collected)
        except ValueError:
            info.warnings.append(f"port.collected is not an integer: {collected!r}")
    if info.platform and info.platform not in ("rocm", "cuda", "cpu"):
        info.warnings.append(f"unknown port.platform {info.platform!r}")
    info.warnings.extend(flavour_warnings(info))


def flavour_warnings(info: RunInfo) -> list[str]:
    """A GPU run whose torch or torchmonarch is another platform's build (PyPI's torchmonarch
    wheels are CUDA builds): its results are real, but not those of a build for this platform."""
    if info.platform not in ("cuda", "rocm"):
        return []
    return [f"{name} is a {flavour} build on a {info.platform} run: its GPU paths did not run as a "
            f"{info.platform} build" for name, flavour in (("torch", info.torch_flavour),
                                                          ("torchmonarch", info.monarch_flavour))
            if flavour not in ("", "none", info.platform)]
