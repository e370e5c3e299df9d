"""One verdict from shards gathered across machines: the same cases run as two shards on two
hosts (distinct fingerprints) and as one unsharded run give the same verdict and counts.

The runs are real `port matrix` runs of a small pack on this CPU machine. The second "host"
is a UTS namespace with its own hostname (``unshare --uts``, so detection itself reports it)
where that is allowed, else detection's ``PORT_HOSTNAME`` override. The ROCm column is a
*label* (``port report --label FILE=rocm-7.0.2/gfx942``): no ROCm device ran these cases.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow
ROCM = "rocm-7.0.2/gfx942"


def _can_unshare() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "--uts", "true"], capture_output=True).returncode == 0


def _matrix(tools, pack, junit, host: str | None, *args: str, **env: str):
    e = tools.clean_env(**env)
    command = [sys.executable, "-m", "porting", "matrix", "--matrix-dir", str(pack), "--junit", str(junit),
               "-n", "0", *args]
    if host and _can_unshare():
        command = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host, *command]
    elif host:
        e["PORT_HOSTNAME"] = host
    proc = subprocess.run(command, cwd=tools.repo, env=e, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 1: the pack's ROCm-only failure
    (out,) = junit.glob("*.xml")
    if env.get("PORT_TEST_ROLE") == "rocm":
        _as_rocm_node(out)
    return out


def _as_rocm_node(junit):
    """Stand the CPU run in for a ROCm node's: the fingerprint a ROCm node writes (a ROCm path,
    ROCm builds of torch and Monarch) replaces this machine's, since the verdict refuses a "ROCm"
    run on the cpu path. The edited file no longer matches its evidence manifest, which goes."""
    import re

    text = junit.read_text()
    for name, value in (("port.path", "native-hip"), ("port.torch_flavour", "rocm"),
                        ("port.monarch_flavour", "rocm")):
        text = re.sub(f'(<property name="{re.escape(name)}" value=")[^"]*(")', rf"\g<1>{value}\g<2>", text)
    junit.write_text(text)
    junit.with_name(junit.stem + ".evidence.json").unlink()


def _report(tools, out, files, rocm_files):
    args = [str(f) for f in files] + [f"--label={f}={ROCM}" for f in rocm_files]
    proc = tools.port("report", *args, "--out", str(out), "--reference", "cpu")
    assert proc.returncode in (0, 1, 3), proc.stdout + proc.stderr
    return tools.read_parity(out), proc.returncode


@pytest.fixture
def runs(tools, pack, tmp_path):
    ref = _matrix(tools, pack, tmp_path / "ref", None, "--run-id", "ref-run")
    whole = _matrix(tools, pack, tmp_path / "whole", None, "--run-id", "whole-run", PORT_TEST_ROLE="rocm")
    shards = [_matrix(tools, pack, tmp_path / f"s{i}", host, "--shard", f"{i}/2", "--run-id", "sharded-run",
                      PORT_TEST_ROLE="rocm")
              for i, host in ((1, "gpu-node-a"), (2, "gpu-node-b"))]
    return ref, whole, shards


def test_two_shards_on_two_hosts_give_the_verdict_and_counts_of_one_run(tools, runs, tmp_path):
    ref, whole, shards = runs
    one, rc_one = _report(tools, tmp_path / "r-one", [ref, whole], [whole])
    two, rc_two = _report(tools, tmp_path / "r-two", [ref, *shards], shards)

    rocm_runs = next(c["runs"] for c in two["columns"] if c["key"] == ROCM)
    assert sorted(r["host"] for r in rocm_runs) == ["gpu-node-a", "gpu-node-b"]  # distinct fingerprints
    assert sorted(r["shard"] for r in rocm_runs) == ["1/2", "2/2"]
    assert one["partial"] is False and two["partial"] is False
    assert one["verdict"]["status"] == two["verdict"]["status"] == "not certified"
    assert rc_one == rc_two == 1
    assert one["verdict"]["blocking"] == two["verdict"]["blocking"]
    # an xfail marker is no exemption (no expiry on record): on ROCm it blocks like the failure does
    assert [b["test_id"].rsplit("::", 1)[1] for b in two["verdict"]["blocking"]] == ["test_fails_on_rocm",
                                                                                     "test_known_bug"]
    assert one["totals"] == two["totals"]
    assert one["totals"][ROCM]["*"]["passed"] == 3 and one["totals"][ROCM]["*"]["failed"] == 1
    assert _statuses(one) == _statuses(two)


def _statuses(parity: dict) -> dict:
    """test id -> column -> (status, message): durations differ between runs, these must not."""
    return {t["id"]: {k: (v["status"], v.get("message", "")) for k, v in t["results"].items()}
            for t in parity["tests"]}


def test_a_shard_lost_on_the_way_makes_the_merged_report_partial(tools, runs, tmp_path):
    ref, _, shards = runs
    got, rc = _report(tools, tmp_path / "r-lost", [ref, shards[0]], [shards[0]])
    assert got["partial"] is True and rc == 1  # the ROCm-only failure blocks; the lost shard is named too
    assert any("missing shard(s) 2/2" in r for r in got["partial_reasons"])
    assert got["verdict"]["status"] == "not certified"
