"""`port certify --reference DIR`: JUnit of a reference run made elsewhere (the CUDA fleet) is
merged into this machine's report, with its provenance, and never touched."""

from __future__ import annotations

import hashlib

import pytest

CUDA_JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="2" timestamp="2026-11-30T21:04:05.123456+00:00">
<properties>
<property name="port.schema" value="1"/><property name="port.platform" value="cuda"/>
<property name="port.path" value="cuda"/><property name="port.cuda_version" value="13.0"/>
<property name="port.gpu_arch" value="sm_90"/><property name="port.host" value="cuda-node-17"/>
<property name="port.run_id" value="gh-8812-1"/><property name="port.shard" value="1/1"/>
<property name="port.complete" value="true"/><property name="port.collected" value="2"/>
<property name="port.runner" value="github-actions"/>
<property name="port.runner_detail"
 value="https://github.com/o/r/actions/runs/8812 attempt 1, job shard, runner h100-3"/>
</properties>
<testcase classname="test_matrix.test_small" name="test_ok[1]" time="0.01"/>
<testcase classname="test_matrix.test_small" name="test_ok[2]" time="0.01"/>
</testsuite></testsuites>
"""


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    (proj / "test_matrix").mkdir(parents=True)
    (proj / "test_matrix" / "test_small.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [1, 2])\ndef test_ok(n):\n    assert n > 0\n")
    ref = tmp_path / "cuda-fleet"
    ref.mkdir()
    (ref / "matrix-gh-8812-1-shard1of1.xml").write_text(CUDA_JUNIT)
    return proj, ref


@pytest.mark.slow
def test_certify_merges_the_reference_and_says_where_it_came_from(tools, project, tmp_path):
    proj, ref = project
    before = hashlib.sha256((ref / "matrix-gh-8812-1-shard1of1.xml").read_bytes()).hexdigest()
    out = tmp_path / "out"
    # build and matrix omitted: this checks the merge, not this machine's run (certify's own tests do)
    proc = tools.port("certify", "--out", str(out), "--reference", str(ref), "--skip", "build", "--skip", "matrix",
                      cwd=proj)
    assert proc.returncode == 3, proc.stdout + proc.stderr  # this CPU box has no ROCm run
    assert "reference: 1 JUnit file(s) from" in proc.stdout
    assert "matrix-gh-8812-1-shard1of1.xml (cuda on cuda-node-17, run gh-8812-1)" in proc.stdout
    parity = tools.read_parity(out)
    assert parity["reference"] == "cuda" and parity["verdict"]["reference"] == ["cuda-13.0/sm_90"]
    assert not any("reference platform" in r for r in parity["verdict"]["reasons"])
    (cuda,) = [c for c in parity["columns"] if c["platform"] == "cuda"]
    (run,) = cuda["runs"]
    assert (run["host"], run["run_id"], run["runner"]) == ("cuda-node-17", "gh-8812-1", "github-actions")
    assert run["timestamp"].startswith("2026-11-30T21:04:05")
    assert parity["partial"] is True  # stages omitted: never certified
    assert "[evidence made elsewhere: cuda-13.0/sm_90 (no manifest)]" in proc.stdout  # on the verdict line
    md = (out / "parity.md").read_text()
    assert "cuda-node-17" in md and "github-actions: https://github.com/o/r/actions/runs/8812" in md
    assert hashlib.sha256((ref / "matrix-gh-8812-1-shard1of1.xml").read_bytes()).hexdigest() == before


@pytest.mark.parametrize("make,match", [
    (lambda tmp, out: tmp / "nowhere", "not a directory"),
    (lambda tmp, out: (tmp / "empty").mkdir() or tmp / "empty", "no \\*.xml JUnit files"),
    (lambda tmp, out: (out / "junit").mkdir(parents=True) or out / "junit", "must not overlap"),
])
def test_a_bad_reference_is_one_line_and_nothing_runs(tools, project, tmp_path, make, match):
    import re

    proj, _ = project
    out = tmp_path / "out"
    ref = make(tmp_path, out)
    (ref / "keep.xml").write_text(CUDA_JUNIT) if "overlap" in match else None
    proc = tools.port("certify", "--out", str(out), "--reference", str(ref), cwd=proj)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(match, lines[0]), proc.stderr
    assert "detect" not in proc.stdout  # no stage started
    if "overlap" in match:
        assert (ref / "keep.xml").is_file()  # certify's clean-up of its JUnit directory never ran


@pytest.mark.slow
def test_hole5_a_forged_rocm_reference_never_certifies_a_cpu_machine(tools, project, tmp_path):
    """Issue 23, hole 5: DIR holds one hand-written JUnit claiming a ROCm GPU run. On this CPU-only
    machine certify says the ROCm evidence was made elsewhere, unsigned, and never exits 0;
    with --require-signed it is refused outright."""
    proj, ref = project
    forged = (CUDA_JUNIT.replace('name="port.platform" value="cuda"', 'name="port.platform" value="rocm"')
              .replace('name="port.path" value="cuda"', 'name="port.path" value="native-hip"')
              .replace('name="port.cuda_version" value="13.0"', 'name="port.rocm_version" value="7.0.2"')
              .replace('value="sm_90"', 'value="gfx942"'))
    assert 'value="rocm"' in forged and "gfx942" in forged
    (ref / "matrix-gh-8812-1-shard1of1.xml").write_text(forged)
    out = tmp_path / "out"
    proc = tools.port("certify", "--out", str(out), "--reference", str(ref), "--skip", "build", "--skip", "matrix",
                      cwd=proj)
    assert proc.returncode not in (0, 5) and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    assert "[evidence made elsewhere: rocm-7.0.2/gfx942 (no manifest)]" in proc.stdout
    assert tools.read_parity(out)["verdict"]["status"] != "certified"
    proc = tools.port("certify", "--out", str(out), "--reference", str(ref), "--skip", "build", "--skip", "matrix",
                      "--require-signed", cwd=proj)
    assert proc.returncode not in (0, 5), proc.stdout + proc.stderr
    assert "evidence refused: no manifest" in (out / "parity.md").read_text()
