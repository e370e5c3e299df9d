"""Simulated hosts (porting.soak.hosts): real namespaces, veths and a bridge, made inside a
namespace of the test's own (``unshare --net``), checked from there, and gone afterwards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from porting.soak.hosts import Layout

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0,
    reason="needs `unshare --net` (root or user namespaces)")

# Runs inside `unshare --net`: two replica hosts and the Lighthouse's, a listener on host 1,
# dialled from host 2 before, during and after a partition of host 1; then the teardown.
PROBE = r"""
import json, os, socket, subprocess, sys, threading
from porting.soak.hosts import Layout, Network, enter
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
net = Network(Layout(2, 1)); net.up()
facts, seen = net.facts(), {}
holders = [p.pid for p in net.holders.values()]
ready = threading.Event()
def serve():
    enter(net.netns(1))
    srv = socket.create_server((Layout.address(1), 0)); seen["port"] = srv.getsockname()[1]; ready.set()
    while True:
        conn, peer = srv.accept(); seen.setdefault("peers", []).append(peer[0]); conn.close()
def dial(key):
    enter(net.netns(2))
    try:
        socket.create_connection((Layout.address(1), seen["port"]), timeout=2).close(); seen[key] = "ok"
    except OSError as exc:
        seen[key] = type(exc).__name__
def run(target, *args):
    t = threading.Thread(target=target, args=args, daemon=True); t.start(); return t
run(serve); ready.wait(10)
seen["listeners"] = net.listeners()
run(dial, "before").join()
net.partition(1); run(dial, "partitioned").join(); net.heal(1)
run(dial, "healed").join()
net.slow(2, 256, 100); run(dial, "slow").join(); seen["slow_counters"] = net.unslow(2)
if sys.argv[1] == "crash":
    print(json.dumps({"holders": holders}), flush=True); os.kill(os.getpid(), 9)
left = net.close()
links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
print(json.dumps({"facts": facts, "seen": seen, "holders": holders, "left": left, "links": links}), flush=True)
os._exit(0)
"""


def _probe(mode: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["unshare", "--net", sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                          env=env, timeout=120)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert lines, done.stderr[-2000:]
    return done, json.loads(lines[-1])


def test_layout_places_replicas_on_hosts_and_the_lighthouse_alone():
    layout = Layout(hosts=3, per_host=2)
    assert layout.replicas == 6 and layout.all_hosts == [0, 1, 2, 3]
    assert [layout.host_of(r) for r in range(6)] == [1, 1, 2, 2, 3, 3]
    assert layout.replicas_on(0) == [] and layout.replicas_on(2) == [2, 3]
    assert len(set(layout.to_json()["addresses"].values())) == 4


def test_hosts_have_their_own_addresses_partition_blocks_and_heals_and_nothing_is_left(alive):
    done, data = _probe("normal")
    assert done.returncode == 0, done.stderr[-2000:]
    hosts = data["facts"]["hosts"]
    assert {h: v["address"] for h, v in hosts.items()} == {
        "lighthouse": "10.77.0.10", "host1": "10.77.0.11", "host2": "10.77.0.12"}
    assert len({v["netns"] for v in hosts.values()}) == 3  # three distinct namespaces
    for name, host in hosts.items():
        assert sorted(host["links"]) == ["eth0", "lo"], name
        assert f"{host['address']}/24" in host["addresses"]
    seen = data["seen"]
    assert seen["listeners"]["host1"] == [f"10.77.0.11:{seen['port']}"] and seen["listeners"]["host2"] == []
    assert (seen["before"], seen["partitioned"], seen["healed"], seen["slow"]) == ("ok", "TimeoutError", "ok", "ok")
    assert set(seen["peers"]) == {"10.77.0.12"}  # the dialler came from host 2's own address
    assert seen["slow_counters"]["sent_bytes"] > 0
    assert data["left"] == [] and not [p for p in data["holders"] if alive(p)]
    assert "soakbr0" not in data["links"] and "vh1" not in data["links"]


def test_hosts_die_with_a_sigkilled_driver(alive):
    """No teardown code runs: the holders' parent-death signal ends them, and with them the
    namespaces and the veths."""
    done, data = _probe("crash")
    assert done.returncode == -signal.SIGKILL
    give_up = time.monotonic() + 30  # a hang guard only
    while any(alive(p) for p in data["holders"]) and time.monotonic() < give_up:
        time.sleep(0.1)
    assert not [p for p in data["holders"] if alive(p)]
