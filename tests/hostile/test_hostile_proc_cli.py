"""The hostile corpus of issue 11 (process, probe and parser half), run through the CLI as a
user would: `python -m porting ...` in a subprocess. Each case asserts the exit code, one
`port: error:` line naming the culprit (or a clean run), no traceback, nothing written
outside the command's output, and no child process left behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HUGE = "9" * 5000
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"

JUNIT = ("<testsuites><testsuite name='s' tests='1'><properties>"
         "<property name='port.platform' value='{platform}'/>"
         "<property name='port.rocm_version' value='{version}'/>"
         "</properties><testcase classname='t' name='a'/></testsuite></testsuites>")


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    (tmp_path / "cpu.xml").write_text(JUNIT.format(platform="cpu", version=""))
    (tmp_path / "deep.json").write_text(DEEP_JSON)
    (tmp_path / "deep.toml").write_text(DEEP_TOML)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text("__global__ void k() {}\n")
    return tmp_path


CASES = [
    # (args, exit code, what the one error line names)
    (["report", "cpu.xml", "--out", "out", "--min-rocm", HUGE], 2, ["min_rocm"]),
    (["report", "cpu.xml", "--out", "out", "--min-rocm", "²"], 2, ["min_rocm"]),
    (["report", "cpu.xml", "--out", "out", "--baseline", "deep.json"], 2, ["deep.json", "nested too deeply"]),
    (["report", "cpu.xml", "--out", "out", "--config", "deep.toml"], 2, ["deep.toml", "nested too deeply"]),
    (["audit", "src", "--baseline", "deep.json"], 2, ["deep.json", "nested too deeply"]),
    (["detect", "--config", "deep.toml"], 2, ["deep.toml"]),
    (["detect", "--require", "rocm>=" + HUGE], 2, ["--require", "not a version"]),
    (["detect", "--require", "rocm>=" + "1" * 26 + ".0"], 2, ["--require"]),
    (["detect", "--min-rocm", HUGE], 2, ["min_rocm"]),
]


@pytest.mark.parametrize("args,code,needles", CASES, ids=lambda v: str(v)[:40] if isinstance(v, list) else None)
def test_hostile_arguments_are_one_line_errors(work: Path, hp, args: list[str], code: int,
                                               needles: list[str]) -> None:
    before = hp.tree(work)
    proc = hp.run_port(args, cwd=work)
    hp.assert_clean_error(proc, code, *needles)
    assert hp.tree(work) - before <= {"out"}  # nothing written but (at most) the output dir


@pytest.mark.parametrize("version", [HUGE, "1" * 26 + ".0.0", "²·⁰"])
def test_report_never_certifies_an_absurd_rocm_version(work: Path, hp, version: str) -> None:
    (work / "rocm.xml").write_text(JUNIT.format(platform="rocm", version=version))
    proc = hp.run_port(["report", "cpu.xml", "rocm.xml", "--out", "out"], cwd=work)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    parity = json.loads((work / "out" / "parity.json").read_text())
    assert parity["verdict"]["status"] == "not certified"


@pytest.mark.parametrize("label", [f"rocm.xml=rocm-{HUGE}", "rocm.xml=rocm-" + "1" * 26 + ".0/gfx942",
                                   "rocm.xml=rocm-²"])
def test_report_label_with_an_absurd_version(work: Path, hp, label: str) -> None:
    (work / "rocm.xml").write_text("<testsuites><testsuite name='s'><testcase classname='t' name='a'/>"
                                   "</testsuite></testsuites>")
    proc = hp.run_port(["report", "cpu.xml", "rocm.xml", "--out", "out", "--label", label], cwd=work)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    if proc.returncode == 2:
        hp.assert_clean_error(proc, 2, "--label")
    else:
        assert proc.returncode == 1
        assert json.loads((work / "out" / "parity.json").read_text())["verdict"]["status"] == "not certified"


def _machine(root: Path) -> None:
    """A synthetic machine whose probe files are FIFOs, huge or Unicode numbers, and a KFD node
    whose gfx_target_version is no architecture."""
    kfd = root / "sys/class/kfd/kfd/topology/nodes"
    for rel in ("opt/rocm/.info", "opt/rocm/include/hip", "opt/rocm/bin", "usr/local/cuda/include"):
        (root / rel).mkdir(parents=True)
    os.mkfifo(root / "opt/rocm/.info/version")
    (root / "opt/rocm/include/hip/hip_version.h").write_text(f"#define HIP_VERSION_MAJOR {HUGE}\n"
                                                             "#define HIP_VERSION_MINOR 0\n")
    (root / "opt/rocm/bin/hipcc").write_text("#!/bin/sh\n")
    (root / "usr/local/cuda/version.json").write_text(DEEP_JSON)
    (root / "usr/local/cuda/include/cuda.h").write_text(f"#define CUDA_VERSION {HUGE}\n")
    for node, props in (("1", "gfx_target_version 9999999999\n"), ("²", "gfx_target_version ²\n")):
        (kfd / node).mkdir(parents=True)
        (kfd / node / "properties").write_text(props)
    (kfd / "2").mkdir()
    os.mkfifo(kfd / "2" / "properties")


def test_detect_on_a_hostile_machine_neither_hangs_nor_crashes(work: Path, hp) -> None:
    _machine(work / "root")
    proc = hp.run_port(["detect", "--root", "root", "--json"], cwd=work, guard_s=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    record = json.loads(proc.stdout)
    assert record["rocm"]["version"] is None and record["gpus"] == [] and record["gpu_archs"] == []
    assert record["cuda"].get("version") is None
    assert "gfx9999" not in proc.stdout


def test_detect_ends_a_hanging_hipconfig_and_its_children(work: Path, hp) -> None:
    home, pidfile = work / "rocm", work / "hipconfig-child.pid"
    hp.hanging_script(home / "bin" / "hipconfig", pidfile, output="7.1.0")
    proc = hp.run_port(["detect", "--json"], cwd=work, env=hp.port_env(ROCM_PATH=str(home)), guard_s=120)
    grandchild = int(hp.wait_for_file(pidfile))
    try:
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert hp.wait_dead(grandchild), "hipconfig's child outlived `port detect`"
        assert any("hipconfig --version: failed" in e for e in json.loads(proc.stdout)["evidence"]["rocm"])
    finally:
        hp.kill_quietly(grandchild)


def test_matrix_config_errors_name_the_file_and_key(work: Path, hp) -> None:
    (work / "port.toml").write_text('[matrix]\nworkers = "lots"\n')
    proc = hp.run_port(["matrix", "--matrix-dir", str(hp.REPO / "test_matrix")], cwd=work)
    line = hp.assert_clean_error(proc, 2, "port.toml", "matrix.workers")
    assert "--workers" not in line
    (work / "port.toml").write_text('[matrix]\nworkers = 2\nexemptions = ["typo.toml"]\n')
    proc = hp.run_port(["matrix", "--matrix-dir", str(hp.REPO / "test_matrix")], cwd=work)
    hp.assert_clean_error(proc, 2, "port.toml", "typo.toml")


def test_report_config_naming_a_missing_exemptions_file(work: Path, hp) -> None:
    (work / "port.toml").write_text('[matrix]\nexemptions = ["typo.toml"]\n')
    proc = hp.run_port(["report", "cpu.xml", "--out", "out"], cwd=work)
    hp.assert_clean_error(proc, 2, "port.toml", "typo.toml")
