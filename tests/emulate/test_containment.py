"""`port emulate` against hostile and flaky programs: the sandbox, argv[0], timing masks, timeouts."""

from __future__ import annotations

import fcntl
import json
import time
from pathlib import Path

import pytest

from porting.cli import main

SANDBOX = Path(__file__).parent / "programs" / "sandbox"
needs_bwrap = pytest.mark.skipif(not __import__("shutil").which("bwrap"), reason="bubblewrap not installed")


def port(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _lock_released(path: Path) -> bool:
    """True once nobody holds ``path``'s flock (the daemon that took it is dead)."""
    with open(path, "rb") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


@needs_bwrap
def test_the_sandbox_contains_writes_network_and_daemons(capsys, tmp_path):
    outside = tmp_path / "outside.txt"
    out_dir = tmp_path / "emu"
    code, out, err = port(capsys, "emulate", str(SANDBOX / "hostile.cu"), "--out", str(out_dir), "--json",
                          "--timeout", "300", "--", str(outside))
    assert code == 0, err  # argv[0] and the timing line are the same / masked at both widths
    record = json.loads(out)
    assert record["sandbox"] == "bwrap"
    stdout = record["runs"][0]["stdout"].splitlines()
    assert stdout[0] == "program ./hostile" and stdout[2] == "network unreachable"
    assert not outside.exists()  # refused, or written to the sandbox's private /tmp (tmp_path is below /tmp)
    for r in record["runs"]:
        assert r["masked_count"] == 1 and r["masked_lines"][0]["line"] == 5
        assert r["masked_lines"][0]["text"].startswith("Time = ")
    for w in (32, 64):  # the daemon held its lock; the PID namespace ended it with the run
        lock = out_dir / f"run-w{w}" / "daemon.lock"
        for _ in range(600):  # a hang guard: the kernel reaps the namespace asynchronously
            if _lock_released(lock):
                break
            time.sleep(0.05)
        assert _lock_released(lock), f"warp {w}: the daemon outlived the run"


@needs_bwrap
def test_without_default_masks_the_timing_line_diverges(capsys, tmp_path):
    code, out, _ = port(capsys, "emulate", str(SANDBOX / "hostile.cu"), "--out", str(tmp_path / "emu"),
                        "--no-default-mask", "--", str(tmp_path / "x"), "nodaemon")
    assert code == 1
    assert "DIVERGED: stdout line 5: warp 32: Time = " in out


def test_no_sandbox_runs_with_the_users_rights(capsys, tmp_path):
    outside = tmp_path / "outside.txt"
    code, out, err = port(capsys, "emulate", str(SANDBOX / "hostile.cu"), "--out", str(tmp_path / "emu"),
                          "--no-sandbox", "--json", "--", str(outside), "nodaemon")
    assert code == 0, err
    record = json.loads(out)
    assert record["sandbox"] == "none"
    assert record["runs"][1]["stdout"].splitlines()[:2] == ["program ./hostile", "outside write allowed"]
    assert outside.exists()


def test_a_timeout_at_one_width_is_inconclusive_with_the_partial_output(capsys, tmp_path):
    code, out, err = port(capsys, "emulate", str(SANDBOX / "timeout_one_width.cu"), "--out", str(tmp_path / "emu"),
                          "--no-sandbox", "--json", "--timeout", "20")
    assert code == 3, err
    assert "inconclusive" in err and "warp 64" in err
    record = json.loads(out)
    assert record["verdict"] == "inconclusive" and record["differences"] == []
    by_warp = {r["warp"]: r for r in record["runs"]}
    assert by_warp[32]["status"] == "ran" and by_warp[32]["stdout"] == "started\ndone\n"
    assert by_warp[64]["status"] == "timeout" and by_warp[64]["stdout"] == "started\n"
