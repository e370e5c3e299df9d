"""`port audit --confirm` (issue 26): the programs holding wave64 findings run under port emulate
at 32 and 64 lanes (on this CPU) and each finding carries the outcome in JSON and SARIF."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).parent / "confirm"
needs_emulator = pytest.mark.skipif(not shutil.which("bwrap") or not shutil.which("g++"),
                                    reason="port emulate needs g++ and bubblewrap")


def _audit(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "porting.cli", "audit", str(CASES), "--confirm", "--fail-on",
                           "never", *args], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def sarif() -> dict:
    return _audit("--format", "sarif")


@needs_emulator
def test_each_wave64_finding_says_what_emulation_showed(sarif) -> None:
    got = {(Path(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]).name, r["ruleId"]):
           r["properties"].get("confirmation") for r in sarif["runs"][0]["results"]}
    # the 32-bit ballot changes the count at 64 lanes: both of its findings are confirmed
    assert got[("ballot_count.cu", "ballot-32bit")] == "confirmed"
    # the consistent 32-lane reduction prints the same at both widths: the note holds
    assert got[("half_sums.cu", "warp32-logical")] == "not-reproduced"
    # a header has no main(): nothing ran, and it says so
    assert got[("lane_bits.cuh", "warp-size-literal")] == "not-run"
    # API rules are not emulated: no confirmation property
    assert got[("ballot_count.cu", "hip-error-ignored")] is None
    details = [r["properties"]["confirmationDetail"] for r in sarif["runs"][0]["results"]
               if r["properties"].get("confirmation") == "confirmed"]
    assert details and all("warp 32: positive 128" in d and "warp 64: positive 64" in d for d in details)


def test_without_confirm_nothing_is_emulated_or_carried() -> None:
    proc = subprocess.run([sys.executable, "-m", "porting.cli", "audit", str(CASES), "--format", "json",
                           "--fail-on", "never"], capture_output=True, text=True, check=True)
    assert all("confirmation" not in f for f in json.loads(proc.stdout)["findings"])


def test_a_bad_timeout_is_one_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "porting.cli", "audit", str(CASES), "--confirm",
                           "--confirm-timeout", "0"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--confirm-timeout" in proc.stderr and "Traceback" not in proc.stderr


def test_bad_program_arguments_are_one_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "porting.cli", "audit", str(CASES), "--confirm",
                           "--confirm-args", "'unclosed"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--confirm-args" in proc.stderr and "Traceback" not in proc.stderr
