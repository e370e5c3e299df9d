"""A cluster soak reports as one run in shards (soak.xml = shard 1, hosts/rK.xml = shard K+2), and
`port report` re-joins them like matrix shards: complete when every host reported, a missing
shard named when one did not, a host's failed check a failed soak test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from porting.soak.junit import shard_of, write_host_shard, write_junit

REPO = Path(__file__).resolve().parents[2]


def _record(replicas: int = 3) -> dict:
    return {"run": {"errors": [], "injections": [],
                    "cluster": {"scheduler": "slurm", "job": "77",
                                "replicas": {str(r): {"node": "n", "address": "10.0.0.1"} for r in range(replicas)}}},
            "faults": [], "bounds": {"downtime_s": 20.0},
            "invariants": [{"name": "no_split_brain", "ok": True, "detail": "fine"}]}


def _write_run(run_dir: Path, replicas: int = 3, last_rc: int = 0) -> None:
    (run_dir / "hosts").mkdir(parents=True)
    write_junit(_record(replicas), run_dir / "soak.xml")
    for r in range(replicas):
        sup = [{"event": "launch", "pid": 10 + r}, {"event": "exit", "pid": 10 + r, "rc": last_rc if r == 1 else 0}]
        write_host_shard(run_dir / "hosts" / f"r{r}.xml", r, "soak-slurm-77", f"{r + 2}/{replicas + 1}", sup, 5)


def _report(run_dir: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "porting.cli", "report", str(run_dir), "--out", str(out),
                           "--no-evidence-ok"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert (out / "parity.json").is_file(), done.stdout + done.stderr
    return json.loads((out / "parity.json").read_text())


def _problems(parity: dict) -> list[str]:
    return [p for c in parity["columns"] for p in c["problems"]]


def test_the_lighthouse_record_names_its_run_and_shard():
    assert shard_of(_record()) == {"run_id": "soak-slurm-77", "shard": "1/4"}
    assert shard_of({"run": {}}) == {}  # a soak on one machine is a run of its own


def test_port_report_rejoins_every_host_and_names_a_missing_one(tmp_path):
    run_dir = tmp_path / "soak-77"
    _write_run(run_dir)
    parity = _report(run_dir, tmp_path / "all")
    assert not [p for p in _problems(parity) if "shard" in p], _problems(parity)
    (column,) = [c for c in parity["columns"] if any(r.get("run_id") == "soak-slurm-77" for r in c["runs"])]
    assert sorted(r["shard"] for r in column["runs"]) == ["1/4", "2/4", "3/4", "4/4"]

    (run_dir / "hosts" / "r1.xml").unlink()  # the host of replica group 1 never reported
    parity = _report(run_dir, tmp_path / "missing")
    assert any("missing shard(s) 3/4" in p for p in _problems(parity)), _problems(parity)


def test_a_host_whose_last_generation_failed_fails_its_shard(tmp_path):
    run_dir = tmp_path / "soak-77"
    _write_run(run_dir, last_rc=-9)
    xml = (run_dir / "hosts" / "r1.xml").read_text()
    assert 'name="replica1-ran_to_the_end"' in xml and "<failure" in xml
    assert "<failure" not in (run_dir / "hosts" / "r0.xml").read_text()
