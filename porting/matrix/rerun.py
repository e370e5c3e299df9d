"""``port matrix --suite … --rerun-failures``: the tests that failed in a suite run, run again after
the run, each alone (a pytest session of its own) and one after another, until one run alone
passes or ``ATTEMPTS`` have failed.

On the 2-core CI machine a suite runs on two xdist workers beside Monarch's procs, and a test
with a tight limit of its own (a proc mesh spawned within 30 s, a sidecar answering within
10 s) can fail because of the load the other worker makes. Run again alone it says whether
the failure is the test's. The record stays honest:

* the testcase keeps its first failure in the JUnit; the outcomes alone are added, in order and
  comma-separated, as the testcase property ``rerun`` (each ``passed``, ``failed``, ``skipped``
  or ``not run``: ``failed,passed``). A report and the verdict read the failure: a test that
  failed once on a platform is not certified there.
* why more than one try: a CI run of Monarch's suite (2543 s, 9 failures in the run) saw
  ``test_supervise_callback_without_await_handled`` time out again when run alone right after
  the run, and pass in each of 8 runs alone here, 3 of them beside three busy loops. A test
  that fails ``ATTEMPTS`` times alone is the test's failure.
* ``port matrix`` exits 0 only when every failure passed alone, the run was complete and no
  session-level check failed (an expired exemption, processes left behind); it names each
  such test as flaky. That is the CI gate; it is not the verdict.
* more than ``MAX_RERUN`` failures are not flakiness: nothing is run again.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..junit_contract import RERUN

MAX_RERUN = 30
ATTEMPTS = 2  # runs alone of one failed test, at most
SESSION_PREFIX = "test_matrix::port-matrix::"  # the plugin's session-level checks (not tests)


@dataclass(eq=False)  # a plugin must hash: pluggy keeps plugins in sets (conftests out of an item's path)
class Outcomes:
    """A pytest plugin (in the controlling process, which sees every worker's reports): each
    test's outcome, failed if any phase failed."""

    seen: dict[str, str] = field(default_factory=dict)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.seen[report.nodeid] = "failed"
        elif report.skipped and report.when in ("setup", "call"):
            self.seen.setdefault(report.nodeid, "skipped")
        elif report.passed and report.when == "call":
            self.seen.setdefault(report.nodeid, "passed")

    def failed(self) -> list[str]:
        return [n for n, outcome in self.seen.items() if outcome == "failed"]


def why_not(failed: list[str], complete: bool) -> str | None:
    """Why the failures of a run are not run again, or None."""
    session = [n for n in failed if n.startswith(SESSION_PREFIX)]
    if session:
        return f"a session-level check failed ({session[0][len(SESSION_PREFIX):]})"
    if not complete:
        return "the run is incomplete"
    if len(failed) > MAX_RERUN:
        return f"{len(failed)} failures (more than {MAX_RERUN} is not flakiness)"
    return None


def passed_alone(tries: list[str]) -> bool:
    return "passed" in tries


def describe(tries: list[str]) -> str:
    """How a failed test fared alone, for the log."""
    if passed_alone(tries):
        return f"flaky (failed in the run, passed alone on try {tries.index('passed') + 1})"
    return f"failed again alone ({', '.join(tries)})"


def is_complete(junit: Path) -> bool:
    root = ET.parse(junit).getroot()
    return any(p.get("name") == "port.complete" and p.get("value") == "true" for p in root.iter("property"))


def annotate(junit: Path, outcomes: dict[str, list[str]]) -> int:
    """Add the ``rerun`` property (the outcomes alone, in order) to the testcase of each node id;
    returns how many were found."""
    from _pytest.junitxml import mangle_test_address

    wanted = {}
    for nodeid, tries in outcomes.items():
        names = mangle_test_address(nodeid)
        wanted[(".".join(names[:-1]), names[-1])] = ",".join(tries)
    tree = ET.parse(junit)
    found = 0
    for case in tree.getroot().iter("testcase"):
        second = wanted.get((case.get("classname", ""), case.get("name", "")))
        if second is None:
            continue
        props = case.find("properties")
        if props is None:
            props = ET.Element("properties")
            case.insert(0, props)
        ET.SubElement(props, "property", name=RERUN, value=second)
        found += 1
    tree.write(junit, encoding="utf-8", xml_declaration=True)
    return found
