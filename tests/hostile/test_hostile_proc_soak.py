"""Issue 11, items 5 and 6: `port soak --out DIR` deletes only what a soak wrote, and a signal
ends the driver and every replica and still leaves a result marked incomplete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from porting.errors import UsageError
from porting.soak import outdir

SHORT = ["--replicas", "2", "--duration", "10", "--fault-every", "5"]


def test_foreign_directory_is_refused_and_left_alone(tmp_path: Path, hp) -> None:
    out = tmp_path / "results"
    for rel in ("logs/build.log", "steps/mine.txt", "ctl/x", "notes.txt"):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text("theirs")
    before = hp.tree(out)
    proc = hp.run_port(["soak", *SHORT, "--out", str(out)], cwd=tmp_path)
    hp.assert_clean_error(proc, 2, str(out), "not a `port soak` output directory")
    assert hp.tree(out) == before
    assert all((out / rel).read_text() == "theirs" for rel in ("logs/build.log", "steps/mine.txt", "ctl/x"))


def test_claim_deletes_only_listed_files_of_its_own_subdirs(tmp_path: Path) -> None:
    out, victim = tmp_path / "soak", tmp_path / "victim.txt"
    victim.write_text("keep")
    (out / "logs").mkdir(parents=True)
    (out / "steps").mkdir()
    (out / "logs" / "r0.log").write_text("old run")
    (out / "steps" / "r0.jsonl").write_text("{}\n")
    (out / "soak.json").write_text("{}")
    (out / "mine.txt").write_text("a user's file next to the soak's")
    os.symlink(victim, out / "steps" / "link")
    entries = ["logs/r0.log", "steps/r0.jsonl", "steps/link", "../victim.txt", str(victim),
               "logs/../../victim.txt", "mine.txt"]
    (out / outdir.MARKER).write_text(json.dumps({"schema": 1, "files": entries}))
    outdir.claim(out)
    assert victim.read_text() == "keep"  # a tampered list reaches nothing outside OUT
    assert (out / "mine.txt").read_text().startswith("a user's")  # not a name a soak writes
    assert not (out / "logs" / "r0.log").exists() and not (out / "steps" / "r0.jsonl").exists()
    assert not (out / "soak.json").exists() and not os.path.lexists(out / "steps" / "link")
    assert json.loads((out / outdir.MARKER).read_text())["files"] == []


def test_claim_refuses_an_unlisted_file_in_a_soak_subdir(tmp_path: Path) -> None:
    out = tmp_path / "soak"
    (out / "logs").mkdir(parents=True)
    (out / "logs" / "theirs.log").write_text("not the soak's")
    (out / outdir.MARKER).write_text(json.dumps({"schema": 1, "files": []}))
    with pytest.raises(UsageError, match="theirs.log"):
        outdir.claim(out)
    assert (out / "logs" / "theirs.log").read_text() == "not the soak's"


def test_claim_of_a_deeply_nested_marker_is_not_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "soak"
    (out / "logs").mkdir(parents=True)
    (out / "logs" / "r0.log").write_text("x")
    (out / outdir.MARKER).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(UsageError, match="r0.log"):  # nothing listed: nothing deleted
        outdir.claim(out)
    assert (out / "logs" / "r0.log").exists()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_driver_and_replicas_and_writes_an_incomplete_result(tmp_path: Path, hp, sig: int,
                                                                          descendants) -> None:
    out = tmp_path / "soak"
    proc = subprocess.Popen([sys.executable, "-m", "porting", "soak", *SHORT, "--out", str(out)],
                            cwd=tmp_path, env=hp.port_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    seen: set[int] = set()
    try:
        give_up = time.monotonic() + 400  # a hang guard: start-up of Monarch + torchft on a busy machine
        while time.monotonic() < give_up and proc.poll() is None:
            seen |= descendants(proc.pid)
            steps = out / "steps" / "r0.jsonl"
            if steps.is_file() and steps.stat().st_size > 0:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        seen |= descendants(proc.pid)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 128 + sig, stderr[-3000:]
        assert "Traceback" not in stderr, stderr[-3000:]
        assert f"interrupted ({signal.Signals(sig).name})" in stderr
        survivors = [p for p in seen if not hp.wait_dead(p)]
        assert survivors == [], "the soak's driver or replicas outlived `port soak`"
        data = json.loads((out / "soak.json").read_text())
        assert data["ok"] is False and data["invariants"][0]["name"] == "soak_completed"
        assert any("interrupted" in e for e in data["run"]["errors"])
        xml = (out / "soak.xml").read_text()
        assert 'name="port.complete" value="false"' in xml
        assert not (out / "run.json").exists()  # nothing of the soak kept writing after it ended
    finally:
        proc.kill()
        for pid in seen:
            hp.kill_quietly(pid, "porting", "monarch", "torchft")
