"""The plugin end to end, in a separate pytest process per case: inert outside the matrix,
fingerprint properties (also under xdist), markers, exemptions, crashes, leftovers."""

from __future__ import annotations

import os
import signal
import warnings

import pytest

from porting.soak.procs import pid_alive, same_process_alive

BASIC = """
import pytest

@pytest.mark.parametrize("i", range(4))
def test_ok(i):
    assert i < 4

@pytest.mark.requires(device="rocm", min_rocm="7.0")
def test_needs_rocm():
    pass

@pytest.mark.component("special")
def test_component():
    pass
"""

DETECTED = {"port.schema", "port.platform", "port.path", "port.rocm_version", "port.rocm_usable",
            "port.cuda_version", "port.gpu_arch", "port.torch_version", "port.torch_flavour",
            "port.monarch_version", "port.monarch_flavour", "port.rdma_backend", "port.host", "port.run_id",
            "port.shard",
            "port.complete", "port.incomplete_reason", "port.collected", "port.runner", "port.runner_detail"}


def _exemption(id_, pattern, action="xfail", expires="2099-12-31", platforms='["cpu", "cuda", "rocm"]'):
    return (f'[[exemption]]\nid = "{id_}"\npattern = "{pattern}"\nplatforms = {platforms}\n'
            f'action = "{action}"\nreason = "because"\ntracking = "https://example.invalid/{id_}"\n'
            f'expires = {expires}\n')


def test_inert_outside_the_matrix(project):
    project.write("tests/test_plain.py", "def test_x():\n    pass\n")
    run = project.run("tests")
    assert run.returncode == 0, run.output
    assert run.suite_properties() == {}
    assert "port matrix" not in run.output


def test_fingerprint_and_testcase_properties(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    run = project.run("test_matrix", "-rs")
    assert run.returncode == 0, run.output
    props = run.suite_properties()
    assert set(props) == DETECTED
    assert props["port.complete"] == "true" and props["port.collected"] == "6" and props["port.shard"] == "1/1"
    from porting.matrix.scheduler import runner_properties

    assert props["port.runner"] == runner_properties(os.environ)["port.runner"]  # "local" outside a scheduler
    from porting.fingerprint import current_properties

    here = current_properties()
    for key in ("port.platform", "port.path", "port.torch_version", "port.rdma_backend", "port.host"):
        assert props[key] == here[key]
    cases = run.cases()
    comp = {k: [p.get("value") for p in c.iter("property") if p.get("name") == "component"] for k, c in cases.items()}
    assert comp["test_matrix.pack.test_basic::test_component"] == ["special"]
    assert comp["test_matrix.pack.test_basic::test_ok[0]"] == ["pack"]
    if props["port.platform"] != "rocm":
        skipped = cases["test_matrix.pack.test_basic::test_needs_rocm"].find("skipped")
        assert skipped is not None and "detection: platform" in skipped.get("message")


def test_properties_written_by_the_xdist_controller(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    run = project.run("test_matrix", "-n", "2")
    assert run.returncode == 0, run.output
    props = run.suite_properties()
    assert set(props) == DETECTED
    assert props["port.complete"] == "true" and props["port.collected"] == "6"
    assert len(run.cases()) == 6


def test_flag_activates_for_any_path(project):
    project.write("elsewhere/test_e.py", "def test_e():\n    pass\n")
    run = project.run("elsewhere", "--port-matrix", "--port-run-id=abc123")
    assert run.returncode == 0, run.output
    assert run.suite_properties()["port.run_id"] == "abc123"


def test_strict_xfail_exemption_and_unmatched_report(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    project.write("test_matrix/exemptions.toml",
                  _exemption("E1", "test_matrix/pack/test_basic.py::test_ok[[]2]")
                  + _exemption("E2", "test_matrix/pack/test_gone.py::*", action="skip"))
    run = project.run("test_matrix")
    assert run.returncode == 1, run.output  # test_ok[2] passes: a strict xfail fails the run
    assert "XPASS(strict)" in run.output and "exemption E1" in run.output
    assert "exemption E2 (test_matrix/pack/test_gone.py::*) matches no collected test" in run.output
    case = run.cases()["test_matrix.pack.test_basic::test_ok[2]"]
    assert [p.get("value") for p in case.iter("property") if p.get("name") == "exemption"] == ["E1"]


def test_skip_exemption_applies_only_on_its_platforms(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    project.write("test_matrix/exemptions.toml",
                  _exemption("S1", "*::test_component", action="skip")
                  + _exemption("S2", "*::test_ok[[]0]", action="skip", platforms='["cuda"]'))
    run = project.run("test_matrix")
    cases = run.cases()
    assert cases["test_matrix.pack.test_basic::test_component"].find("skipped") is not None
    if run.suite_properties()["port.platform"] != "cuda":
        assert cases["test_matrix.pack.test_basic::test_ok[0]"].find("skipped") is None


def test_expired_exemption_fails_the_run(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    project.write("test_matrix/exemptions.toml", _exemption("OLD", "*::test_ok[[]1]", expires="2001-01-01"))
    run = project.run("test_matrix")
    assert run.returncode == 1, run.output
    assert "exemption OLD" in run.output and "expired on 2001-01-01" in run.output
    assert any("OLD expired" in k for k in run.cases())
    assert run.cases()["test_matrix.pack.test_basic::test_ok[1]"].find("skipped") is None  # not applied


def test_expired_exemption_for_another_platform_fails_every_run(project):
    """docs/matrix.md: an expired exemption fails every run, not only runs on its platforms (a
    stale ROCm exemption must surface in the CPU/CUDA runs that renew nothing else)."""
    from porting.fingerprint import current_properties

    here = current_properties()["port.platform"]
    others = [p for p in ("cpu", "cuda", "rocm") if p != here]
    project.write("test_matrix/pack/test_basic.py", BASIC)
    project.write("test_matrix/exemptions.toml",
                  _exemption("ELSEWHERE", "*::test_ok[[]1]", expires="2001-01-01",
                             platforms="[" + ", ".join(f'"{p}"' for p in others) + "]"))
    run = project.run("test_matrix")
    assert run.suite_properties()["port.platform"] == here
    assert run.returncode == 1, run.output
    assert "exemption ELSEWHERE" in run.output and "expired on 2001-01-01" in run.output
    assert any("ELSEWHERE expired" in k for k in run.cases())


def test_invalid_registry_is_a_usage_error(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    project.write("test_matrix/exemptions.toml", "[[exemption]]\nid = 1\n")
    run = project.run("test_matrix")
    assert run.returncode == 4 and "exemptions.toml" in run.output


def test_bad_detection_config_is_a_usage_error(project):
    project.write("test_matrix/pack/test_basic.py", BASIC)
    cfg = project.write("cfg.toml", 'min_rocm = "banana"\n')
    run = project.run("test_matrix", f"--port-config={cfg}")  # the file `port matrix --config` passes on
    assert run.returncode == 4 and "'banana' is not a version" in run.output and str(cfg) in run.output, run.output
    assert "INTERNALERROR" not in run.output
    run = project.run("test_matrix", PORT_MIN_ROCM="banana")
    assert run.returncode == 4 and "PORT_MIN_ROCM" in run.output and "INTERNALERROR" not in run.output, run.output


@pytest.mark.parametrize("n", ["0", "2"])
def test_shards_cover_the_run_once(project, n):
    project.write("test_matrix/pack/test_many.py",
                  "import pytest\n@pytest.mark.parametrize('i', range(9))\ndef test_i(i):\n    pass\n")
    seen = []
    for i in (1, 2, 3):
        args = ["test_matrix", f"--port-shard={i}/3"] + (["-n", n] if n != "0" else [])
        run = project.run(*args)
        assert run.returncode == 0, run.output
        props = run.suite_properties()
        assert props["port.shard"] == f"{i}/3" and props["port.collected"] == "3"
        seen += list(run.cases())
    assert len(seen) == 9 and len(set(seen)) == 9


def test_crashed_worker_marks_the_run_incomplete(project):
    project.write("test_matrix/pack/test_crash.py",
                  "import os\n\ndef test_a():\n    pass\n\ndef test_crash():\n    os._exit(3)\n\n"
                  "def test_b():\n    pass\n")
    run = project.run("test_matrix", "-n", "2")
    assert run.returncode == 1, run.output
    props = run.suite_properties()
    assert props["port.complete"] == "false" and "crash" in props["port.incomplete_reason"]
    crash = run.cases()["test_matrix.pack.test_crash::test_crash"]
    assert crash.find("failure") is not None or crash.find("error") is not None


def _leaking_run(project, pidfile, seconds: str, report: str, *args: str):
    """Run a one-test project whose test leaves ``sleep SECONDS`` running in its own session
    (the pidfile holds its pid and start time). When the run reports nothing, the premise is
    checked: CI saw the sleep already gone at the session-end check three times under load, and
    once still running but not listed by the check's scan (reproduced here; hence
    porting.matrix.procs.CONFIRM_SCANS); neither cause was found. Such a run is repeated, at
    most three times, and each repetition warns with what /proc said (the warning reaches the
    CI log even when a later try passes). A check that misses a live leftover, or kills one
    without saying so, every time still fails."""
    project.write("test_matrix/pack/test_leak.py",
                  "import subprocess\nfrom porting.soak.procs import start_ticks\n\ndef test_leak():\n"
                  f"    p = subprocess.Popen(['sleep', '{seconds}'], start_new_session=True)\n"
                  "    start = start_ticks(p.pid)\n"
                  f"    open({str(pidfile)!r}, 'w').write(f'{{p.pid}} {{start}}')\n")
    for _ in range(3):
        pidfile.unlink(missing_ok=True)
        run = project.run("test_matrix", *args)
        if report in run.output or not pidfile.is_file():
            return run
        pid, start = (int(v) for v in pidfile.read_text().split())
        warnings.warn(f"the leaked sleep {pid} {_premise(pid, start)} the session-end check, which reported "
                      "nothing: run again", stacklevel=2)
        if same_process_alive(pid, start):
            os.kill(pid, signal.SIGKILL)
    return run


def _premise(pid: int, start: int) -> str:
    """What /proc says of the leaked sleep after a run that reported nothing."""
    if not same_process_alive(pid, start):
        return "had died before"
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            tags = [v for v in fh.read().split(b"\0") if v.startswith(b"PORT_MATRIX_RUN=")]
    except OSError as exc:
        tags = [f"environ unreadable: {exc}".encode()]
    return f"was still running (tags {tags!r}) after"


def test_leftover_processes_fail_the_run_and_are_killed(project, tmp_path):
    pidfile = tmp_path / "leak.pid"
    run = _leaking_run(project, pidfile, "300", "session-end process check")
    assert run.returncode == 1, run.output
    assert "session-end process check" in run.output and "sleep 300" in run.output
    pid = int(pidfile.read_text().split()[0])
    assert not pid_alive(pid), f"leaked process {pid} still running"
    assert os.environ.get("PORT_MATRIX_RUN") is None


def test_an_upstream_suites_leftover_processes_are_killed_and_reported_not_failed(project, tmp_path):
    """Monarch's own tests leave ProcessJob hosts running; in a suite run they are killed and
    named, and the verdict stays the tests'."""
    pidfile = tmp_path / "leak.pid"
    run = _leaking_run(project, pidfile, "301", "the suite's tests left", "--port-suite=d")
    assert run.returncode == 0, run.output
    assert "the suite's tests left 1 process(es)" in run.output and "sleep 301" in run.output
    pid = int(pidfile.read_text().split()[0])
    assert not pid_alive(pid), f"leaked process {pid} still running"
