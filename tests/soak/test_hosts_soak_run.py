"""`port soak --hosts` for real, small: 3 simulated hosts (one replica group each) and the
Lighthouse's, one partition of a host for 8 s (longer than the 5 s collective timeout, so the
survivors always re-form without it and it must heal: at 5 s a collective in flight could wait it
out, and nothing was left to heal); and the teardown of the hosts when the command
is stopped by a signal in the middle of a run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from porting.soak.launch import driver_budget_s
from porting.soak.spec import SoakSpec

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _soak(out: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "porting.cli", "soak", "--out", str(out), *options],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO)


def test_a_partitioned_host_rejoins_from_a_live_peer_and_every_invariant_holds(tmp_path, alive, descendants):
    out = tmp_path / "soak"
    options = ["--hosts", "3", "--replicas-per-host", "1", "--faults", "partition", "--duration", "40",
               "--fault-every", "20", "--startup-budget", "300", "--timeout", "5", "--link-fault", "8"]
    spec = SoakSpec(replicas=3, hosts=3, replicas_per_host=1, faults=["partition"], duration_s=40,
                    fault_every_s=20, startup_budget_s=300, timeout_s=5, link_fault_s=8).validate()
    proc = _soak(out, *options)
    seen: set[int] = set()
    give_up = time.monotonic() + driver_budget_s(spec) + 120  # a hang guard, not a speed check
    while proc.poll() is None and time.monotonic() < give_up:
        seen |= descendants(proc.pid)
        time.sleep(0.5)
    if proc.poll() is None:
        proc.kill()
    output = proc.communicate(timeout=60)[0]
    assert proc.returncode == 0, output[-4000:]
    data = json.loads((out / "soak.json").read_text())
    assert data["ok"] is True, [i for i in data["invariants"] if not i["ok"]]
    names = {i["name"] for i in data["invariants"]}
    assert {"hosts_isolated", "no_split_brain", "loss_curve_continuous", "cut_off_hosts_rejoin_from_live_peer",
            "survivors_commit_during_faults"} <= names and "loopback_only" not in names
    (fault,) = data["faults"]
    assert fault["kind"] == "partition" and fault["recovered"]
    (victim,) = fault["victims"]
    assert data["run"]["hosts"]["layout"]["replica_host"][str(victim["replica"])] == fault["host"]
    source = victim["heal_source"]
    source_host = data["run"]["hosts"]["layout"]["replica_host"][str(source["replica"])]
    assert source_host != fault["host"] and source["via"].startswith(f"http://10.77.0.{10 + source_host}:")
    assert not [p for p in seen if alive(p)]  # hosts (their holders) and replicas all gone


def test_sigterm_mid_run_tears_down_every_host(tmp_path, alive, descendants):
    out = tmp_path / "soak"
    proc = _soak(out, "--hosts", "2", "--replicas-per-host", "2", "--faults", "partition", "--duration", "40",
                 "--fault-every", "20", "--startup-budget", "300")
    holders: set[int] = set()
    give_up = time.monotonic() + 300  # a hang guard: the hosts exist within seconds of the start
    while proc.poll() is None and len(holders) < 3 and time.monotonic() < give_up:
        holders = {p for p in descendants(proc.pid) if _cmdline(p).startswith("sleep infinity")}
        time.sleep(0.2)
    assert len(holders) == 3, "the three hosts' namespace holders never appeared"
    seen = descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    output = proc.communicate(timeout=120)[0]
    assert proc.returncode != 0, output[-2000:]
    give_up = time.monotonic() + 60
    while any(alive(p) for p in seen) and time.monotonic() < give_up:
        time.sleep(0.2)
    assert not [(p, _cmdline(p)) for p in seen if alive(p)]
