"""The matrix keeps at least FLOOR distinct cases that execute on a CPU-only host (issue 15).

Distinctness itself is a review rule (docs/matrix.md, "Distinctness rule": every kept
parametrization says in a comment which path each value takes); what a test can hold is the
floor, so that folding repeats is never paid for by silently dropping behaviours. The shipped
packs are collected in a child pytest with the facts of a synthetic CPU host (so the count is
the same on every machine, GPU hosts included), and a case counts when the plugin leaves it
without a skip marker: device, NCCL and GPU-world-size cases are collected but skipped there.

Issue 27's balance is held here too, on the same collection: DTensor (the sharding pack) is at
most half of our own cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from porting.assets import matrix_dir
from porting.matrix.facts import FACTS_ENV, Facts

FLOOR = 1200

# Written into the child's tmp dir and loaded with -p: records, after the matrix plugin has
# marked the items (collection_finish runs after every modifyitems hook), each node id and
# whether it will run.
RECORDER = '''
import json, os

def pytest_collection_finish(session):
    out = []
    for item in session.items:
        skipped = any(True for _ in item.iter_markers("skip"))
        xfail = any(True for _ in item.iter_markers("xfail"))
        out.append({"id": item.nodeid, "runs": not skipped, "xfail": xfail})
    with open(os.environ["PORT_FLOOR_OUT"], "w") as f:
        json.dump(out, f)
'''


def cpu_host_facts() -> Facts:
    return Facts(properties={"port.platform": "cpu", "port.path": "cpu", "port.rdma_backend": "tcp"},
                 gpu_count=0, cpu_count=2)


def collect_on_cpu_host(tmp_path: Path) -> list[dict]:
    (tmp_path / "port_floor_recorder.py").write_text(RECORDER)
    out = tmp_path / "items.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PORT_MATRIX", "PYTEST_XDIST"))}
    env.pop("PYTEST_CURRENT_TEST", None)
    env.update({FACTS_ENV: json.dumps(cpu_host_facts().to_json()), "PORT_FLOOR_OUT": str(out),
                "PYTHONPATH": os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)})
    matrix = matrix_dir()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(matrix), "--port-matrix", "--collect-only", "-q",
         "-p", "port_floor_recorder", "-p", "no:cacheprovider", f"--rootdir={matrix.parent}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def cpu_items(tmp_path_factory) -> list[dict]:
    return collect_on_cpu_host(tmp_path_factory.mktemp("floor"))


def pack_of(node_id: str) -> str:
    return node_id.split("test_matrix/", 1)[-1].split("/", 1)[0]


def test_matrix_keeps_the_floor_of_cases_executed_on_a_cpu_host(cpu_items):
    items = cpu_items
    ids = [i["id"] for i in items]
    assert len(ids) == len(set(ids)), "duplicate node ids"
    runs = [i for i in items if i["runs"]]
    per_pack: dict[str, int] = {}
    for i in runs:
        per_pack[pack_of(i["id"])] = per_pack.get(pack_of(i["id"]), 0) + 1
    assert len(runs) >= FLOOR, f"{len(runs)} cases run on a CPU host, below the floor {FLOOR}: {per_pack}"
    # Device placements and NCCL ranks are collected on every host and skipped there: a GPU
    # run must execute strictly more cases than a CPU run.
    assert len(runs) < len(items), "no case is reserved for a GPU host"
    # Issue 27: at least 30 rocm_device cases (test_matrix/device/, all marked so), collected
    # on every host and skipped with detection's reason where there is no GPU.
    device = [i for i in items if i["id"].startswith("test_matrix/device/")]
    assert len(device) >= 30 and not any(i["runs"] for i in device), device


# Issue 27: DTensor at most half of our own cases (collected 2026-12-07: sharding 861 of 1,789,
# 48.1%, after measured repeats were cut and the collectives and Monarch/native cases were added;
# docs/matrix.md, Balance). Counted from the same collection as the floor above, so a new
# sharding case that tips the balance fails here.
def test_dtensor_is_at_most_half_of_our_own_cases(cpu_items):
    per_pack = Counter(pack_of(i["id"]) for i in cpu_items)
    total = sum(per_pack.values())
    assert total and per_pack["sharding"] * 2 <= total, (
        f"DTensor (sharding/) is {per_pack['sharding']} of {total} cases ({per_pack['sharding'] / total:.1%}): "
        f"{dict(per_pack)}")
