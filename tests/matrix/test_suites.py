"""--suite: finding an upstream suite, its arguments and environment, its skip conventions, progress."""

from __future__ import annotations

import argparse
import datetime as dt
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from porting.errors import InputError
from porting.matrix import conventions, suites
from porting.matrix.progress import Progress, format_duration

REGISTRIES = Path(__file__).resolve().parents[2] / "test_matrix" / "suites"


def test_monarch_suite_is_the_wheels_tests_dir():
    pytest.importorskip("monarch")
    suite = suites.resolve("monarch", REGISTRIES)
    assert suite.paths == (suite.root / "tests",)
    assert (suite.root / "tests" / "conftest.py").is_file()
    assert suite.distribution == "torchmonarch" and suite.registry == REGISTRIES / "monarch.toml"
    assert "asyncio_mode=auto" in suite.ini


def test_torchft_suite_is_its_shipped_test_files():
    pytest.importorskip("torchft")
    suite = suites.resolve("torchft", REGISTRIES)
    assert suite.paths and all(p.name.endswith("_test.py") and p.relative_to(suite.root).parts[0] == "torchft"
                               for p in suite.paths)


def test_a_directory_is_a_suite_and_a_bad_name_is_one_line(tmp_path):
    suite = suites.resolve(str(tmp_path), REGISTRIES)
    assert suite.paths == (tmp_path.resolve(),) and suite.registry is None
    with pytest.raises(InputError, match="--suite nosuch: not a directory"):
        suites.resolve("nosuch", REGISTRIES)


def test_an_uninstalled_distribution_is_named(monkeypatch):
    monkeypatch.setitem(suites.KNOWN, "ghost", "no-such-distribution-xyz")
    with pytest.raises(InputError, match="no-such-distribution-xyz is not installed"):
        suites.resolve("ghost", REGISTRIES)


def test_environment_keeps_what_the_caller_set(tmp_path):
    suite = suites.Suite(name="s", root=tmp_path, paths=(tmp_path,), python_path=(tmp_path,),
                         env={"HYPERACTOR_MESH_ADMIN_ADDR": suites.LOOPBACK_ADMIN})
    fresh = suites.environment(suite, {"PYTHONPATH": "/x"})
    assert fresh["HYPERACTOR_MESH_ADMIN_ADDR"] == "127.0.0.1:0"
    assert fresh["PYTHONPATH"].split(":") == [str(tmp_path), "/x"]
    assert fresh["PYTHONHASHSEED"] == "0"  # xdist workers collect the same set-ordered ids
    assert "HYPERACTOR_MESH_ADMIN_ADDR" not in suites.environment(suite, {"HYPERACTOR_MESH_ADMIN_ADDR": "[::1]:0"})


def test_suite_run_arguments_replace_the_packs(tmp_path, monkeypatch):
    from porting.commands import matrix
    from porting.config import load_config

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    monkeypatch.setitem(suites.KNOWN, "dirsuite", "x")
    args = argparse.Namespace(suite=str(tmp_path), matrix_dir=None, workers="0", shard=None, config=None,
                              pytest_args=["--", "tests/test_a.py::test_a", "-k", "a"], test_timeout=7,
                              packs=None, exemptions=None)
    config = load_config(cli={"matrix.packs": None, "matrix.exemptions": None}, env={}, config_file=None)
    out = matrix.build_pytest_args(args, config, tmp_path / "j.xml", "run1")
    assert f"--rootdir={tmp_path.resolve()}" in out and "--timeout=7" in out
    assert str(tmp_path.resolve() / "tests/test_a.py::test_a") in out  # the subset, from any cwd
    assert str(tmp_path.resolve()) not in out  # the whole suite is not collected as well
    assert "--import-mode=importlib" not in out and not any("test_matrix" in a for a in out)
    args.test_timeout = None  # a directory suite's own limit
    assert f"--timeout={suites.DEFAULT_TIMEOUT_S}" in matrix.build_pytest_args(args, config, tmp_path / "j.xml", "r")


def test_monarch_runs_under_its_shorter_per_test_limit():
    pytest.importorskip("monarch")
    suite = suites.resolve("monarch", REGISTRIES)
    assert suite.timeout_s == suites.MONARCH_TIMEOUT_S < suites.DEFAULT_TIMEOUT_S
    assert f"--timeout={suites.MONARCH_TIMEOUT_S}" in suites.pytest_args(suite, suite.timeout_s)


# ---- conventions ----------------------------------------------------------------------

class _Mark(SimpleNamespace):
    pass


class _Item:
    def __init__(self, nodeid, marks=(), obj=None):
        self.nodeid, self._marks, self.obj, self.cls = nodeid, list(marks), obj, None

    def get_closest_marker(self, name):
        return next((m for m in self._marks if m.name == name), None)

    def iter_markers(self, name):
        return (m for m in self._marks if m.name == name)


def test_oss_skip_is_an_exemption_with_the_projects_words():
    item = _Item("tests/t.py::test_x", [_Mark(name="oss_skip", args=(), kwargs={"reason": "needs buck"})])
    conv, words = conventions.match(item, frozenset())
    assert conv is conventions.OSS_SKIP and words == "needs buck"


def test_disabled_list_matches_at_boundaries_only(tmp_path):
    listing = tmp_path / "disabled.txt"
    listing.write_text("# comment\nDISABLED test_flaky\ntests/t.py::TestC\n\n")
    disabled = conventions.read_disabled([listing])
    assert disabled == {"test_flaky", "tests/t.py::TestC"}
    assert conventions.is_disabled("tests/u.py::test_flaky[2]", disabled)
    assert conventions.is_disabled("tests/t.py::TestC::test_y", disabled)
    assert not conventions.is_disabled("tests/t.py::TestCC::test_y", disabled)  # a prefix, not a boundary
    assert not conventions.is_disabled("tests/u.py::test_flaky_not", disabled)


def test_device_skips_count_only_when_true_and_about_a_device():
    true_cuda = _Mark(name="skipif", args=(True,), kwargs={"reason": "CUDA is required"})
    false_cuda = _Mark(name="skipif", args=(False,), kwargs={"reason": "CUDA is required"})
    true_other = _Mark(name="skipif", args=(True,), kwargs={"reason": "slow on macOS"})
    assert conventions.match(_Item("a::t", [true_cuda]), frozenset())[0] is conventions.NEEDS_DEVICE
    assert conventions.match(_Item("a::t", [false_cuda]), frozenset()) is None
    assert conventions.match(_Item("a::t", [true_other]), frozenset()) is None

    def fn():
        pass
    fn.__unittest_skip__ = True  # type: ignore[attr-defined]
    fn.__unittest_skip_why__ = "no GPUs"  # type: ignore[attr-defined]
    assert conventions.match(_Item("a::t", obj=fn), frozenset())[1] == "no GPUs"


def test_conventions_expire():
    assert all(isinstance(c.expires, dt.date) for c in conventions.ALL)


# ---- progress -------------------------------------------------------------------------

def test_progress_counts_and_estimates():
    p = Progress()
    p.start(100, now=0.0)
    assert p.step == 2
    assert p.add("a", "passed", 10.0) is None  # 1 of 100: no line yet
    line = p.add("b", "failed", 20.0)  # 10 s a test, 98 left
    assert line == "port matrix: 2/100 tests done: 1 passed, 1 failed, 0 skipped; about 16m20s left"
    assert p.add("b", "failed", 21.0) is None and p.done == 2  # a node id counts once


def test_progress_ends_with_a_line_and_formats_hours():
    p = Progress()
    p.start(3, now=0.0)
    p.add("a", "passed", 1.0)
    p.add("b", "skipped", 2.0)
    assert p.add("c", "passed", 3.0).endswith("2 passed, 0 failed, 1 skipped; about 0s left")
    assert format_duration(3 * 3600 + 125) == "3h02m"


# ---- port certify --suite ------------------------------------------------------------------

def _pipeline(tmp_path, skip=()):
    import io

    from porting.certify import Progress, _Pipeline

    stream = io.StringIO()
    return _Pipeline(tmp_path / "out", tmp_path, None, Progress(stream=stream), 600.0, skip), stream


def test_certify_says_when_no_suite_ran(tmp_path):
    run, stream = _pipeline(tmp_path)
    run.suites([])
    assert "suites: not run" in stream.getvalue() and run.record.stages == []


def test_certify_runs_a_suite_as_its_own_stage_with_progress(tmp_path):
    suite = tmp_path / "mysuite"
    suite.mkdir()
    (suite / "test_one.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    assert 1 == 2\n")
    run, stream = _pipeline(tmp_path)
    run.suites([str(suite)])
    [stage] = run.record.stages
    assert stage.name == "suite mysuite" and stage.status == "problems", (stage, stream.getvalue())
    junit = list((tmp_path / "out" / "junit").glob("matrix-*.xml"))
    assert len(junit) == 1
    text = junit[0].read_text()
    assert 'name="port.collected" value="2"' in text and 'name="port.complete" value="true"' in text
    log = Path(stage.log).read_text()
    assert "2/2 tests done: 1 passed, 1 failed, 0 skipped" in log
    assert "port matrix: failed test_one.py::test_b (call, " in log  # named when it fails
    assert "port matrix: failed test_one.py::test_a" not in log


# ---- serial groups ---------------------------------------------------------------------

def test_torchft_fixed_port_files_share_one_worker():
    suite = suites.Suite(name="torchft", root=Path("/s"), paths=())
    args = suites.pytest_args(suite, 60)
    assert "--port-serial=torchft-fixed-ports=torchft/manager_integ_test.py" in args
    plain = suites.pytest_args(suites.Suite(name="d", root=Path("/s"), paths=()), 60)
    assert not any("--port-serial" in a for a in plain)


def test_a_serial_group_runs_on_one_xdist_worker(tmp_path):
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    body = ("import os, pathlib\n"
            "def _note(name):\n"
            "    pathlib.Path(os.environ['SEEN'], name).write_text(os.environ['PYTEST_XDIST_WORKER'])\n")
    for f in ("test_a.py", "test_b.py", "test_c.py"):
        tests = "".join(f"def test_{i}():\n    _note('{f}-{i}')\n" for i in range(4))
        (tmp_path / f).write_text(body + tests)
    seen = tmp_path / "seen"
    seen.mkdir()
    junit = tmp_path / "j.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), f"--rootdir={tmp_path}", "--port-matrix",
         "--port-suite=d", "--port-serial=g=test_a.py", "--port-serial=g=test_b.py",
         "-n", "2", "-p", "no:cacheprovider", "-c", "/dev/null", f"--junitxml={junit}", "-q"],
        env={**os.environ, "SEEN": str(seen)}, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    workers = {p.name: p.read_text() for p in seen.iterdir()}
    assert len(workers) == 12
    grouped = {w for name, w in workers.items() if not name.startswith("test_c")}
    assert len(grouped) == 1, workers  # both files of the group on one worker
    assert len(list(ET.parse(junit).iter("testcase"))) == 12


# ---- Monarch's unhandled-fault hook ------------------------------------------------------

def test_an_unhandled_monarch_fault_fails_its_test_and_the_run_goes_on(tmp_path):
    """Monarch's default hook would end the pytest process (KeyboardInterrupt); in a run of a
    suite named monarch the fault fails the test it happened in, and later tests run."""
    import subprocess
    import sys
    import xml.etree.ElementTree as ET

    pytest.importorskip("monarch")
    suite = tmp_path / "monarch"
    suite.mkdir()
    (suite / "test_faults.py").write_text(
        "import monarch.actor\n"
        "def test_a_fault():\n    monarch.actor.unhandled_fault_hook('mesh boom failed')\n"
        "def test_after():\n    pass\n"
        "def test_own_hook_kept():\n"
        "    monarch.actor.unhandled_fault_hook = lambda failure: None\n"
        "    monarch.actor.unhandled_fault_hook('dropped by the test')\n")
    junit = tmp_path / "j.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(suite), f"--rootdir={suite}", "--port-matrix", "--port-suite=monarch",
         "-p", "no:cacheprovider", "-c", "/dev/null", f"--junitxml={junit}", "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    cases = {tc.get("name"): tc for tc in ET.parse(junit).iter("testcase")}
    failure = cases["test_a_fault"].find("failure")
    assert failure is not None and "mesh boom failed" in (failure.text or "")
    assert cases["test_after"].find("failure") is None and cases["test_own_hook_kept"].find("failure") is None


def test_a_test_past_its_limit_fails_and_its_worker_goes_on(tmp_path):
    """pytest-timeout's thread method would end the xdist worker (os._exit) and leave the run
    incomplete; a suite run uses the signal method: that test fails, the next one runs."""
    import xml.etree.ElementTree as ET

    from porting.commands import matrix
    from porting.config import load_config

    suite = tmp_path / "limits"
    suite.mkdir()
    (suite / "test_slow.py").write_text(
        "import time, pytest\n"
        "@pytest.mark.timeout(1)\n"
        "def test_hangs():\n    time.sleep(30)\n"
        "def test_next():\n    pass\n")
    args = argparse.Namespace(suite=str(suite), matrix_dir=None, workers="1", shard=None, config=None,
                              pytest_args=[], test_timeout=None, packs=None, exemptions=None)
    config = load_config(cli={"matrix.packs": None, "matrix.exemptions": None}, env={}, config_file=None)
    junit = tmp_path / "j.xml"
    import pytest as _pytest

    code = _pytest.main([*matrix.build_pytest_args(args, config, junit, "limits-run"), "-p", "no:cacheprovider"])
    assert code == 1
    root = ET.parse(junit).getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["port.complete"] == "true", props.get("port.incomplete_reason")
    cases = {tc.get("name"): tc for tc in root.iter("testcase")}
    assert "Timeout" in (cases["test_hangs"].find("failure").get("message") or "")
    assert cases["test_next"].find("failure") is None


def test_a_child_forked_by_a_test_gets_sigterm_as_without_the_plugin(tmp_path):
    """The plugin turns SIGTERM into an orderly stop of the run; a child that a test forks
    inherits the handler and must still die of the signal."""
    import subprocess
    import sys

    (tmp_path / "test_fork.py").write_text(
        "import os, signal, time\n"
        "def test_child_dies_of_sigterm():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "    time.sleep(0.5)\n"
        "    os.kill(pid, signal.SIGTERM)\n"
        "    _, status = os.waitpid(pid, 0)\n"
        "    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), f"--rootdir={tmp_path}", "--port-matrix",
         "--port-suite=d", "-p", "no:cacheprovider", "-c", "/dev/null", "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "1 passed" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_a_forked_child_starts_with_the_default_signal_handlers(tmp_path):
    """A child forked by a test must not inherit the run's Python-level SIGTERM/SIGINT handlers
    (they run only when its main thread next executes Python code, so a child busy in native
    code outlived Monarch's 2 s in test_no_hang_on_shutdown); a handler the test itself set
    before forking is kept."""
    import subprocess
    import sys

    (tmp_path / "test_fork.py").write_text(
        "import os, signal\n"
        "def _child_status():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        plain = (signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n"
        "                 and signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
        "        os._exit(0 if plain else 3)\n"
        "    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])\n"
        "def test_plain_handlers_in_the_child():\n"
        "    assert _child_status() == 0\n"
        "def test_the_tests_own_handler_is_kept():\n"
        "    def own(signum, frame):\n"
        "        pass\n"
        "    old = signal.signal(signal.SIGTERM, own)\n"
        "    try:\n"
        "        assert _child_status() == 3\n"
        "    finally:\n"
        "        signal.signal(signal.SIGTERM, old)\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), f"--rootdir={tmp_path}", "--port-matrix",
         "--port-suite=d", "-p", "no:cacheprovider", "-c", "/dev/null", "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "2 passed" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]


def _port(*args, cwd, **kw):
    import subprocess
    import sys

    return subprocess.Popen([sys.executable, "-m", "porting", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


def test_a_suite_runs_in_a_working_directory_inside_its_output(tmp_path):
    """Monarch writes .monarch/ into the current directory: a suite run's current directory is
    <junit stem>.work/ in the JUnit directory, and a test path relative to the caller's
    directory still names its file."""
    caller = tmp_path / "caller"
    suite = caller / "mysuite"
    suite.mkdir(parents=True)
    (suite / "test_cwd.py").write_text(
        "import os, pathlib\n"
        "def test_writes_into_cwd():\n"
        "    pathlib.Path('.monarch').mkdir()\n"
        "    pathlib.Path('.monarch', 'job_state.pkl').write_text(os.getcwd())\n"
        "def test_not_selected():\n"
        "    raise AssertionError('only the node id given should run')\n")
    junit = tmp_path / "out"
    proc = _port("matrix", "--suite", "mysuite", "--junit", str(junit), "-n", "0", "--",
                 "mysuite/test_cwd.py::test_writes_into_cwd", cwd=caller)
    log, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, log[-3000:]
    assert not (caller / ".monarch").exists()
    [state] = junit.glob("matrix-*.work/.monarch/job_state.pkl")
    [xml] = junit.glob("matrix-*.xml")
    assert state.parent.parent.name == xml.with_suffix(".work").name
    assert state.read_text() == str(state.parent.parent)


def test_processes_of_a_killed_run_are_reaped(tmp_path):
    """`port matrix` killed with SIGKILL runs no clean-up of its own: the watcher it started
    kills what the run started, including a host process in its own session (Monarch's
    run_worker_loop_forever hosts are started so)."""
    import select
    import signal

    suite = tmp_path / "detached"
    suite.mkdir()
    pid_file = tmp_path / "host.pid"
    (suite / "test_host.py").write_text(
        "import subprocess, sys, time, pathlib\n"
        "def test_starts_a_host_and_hangs():\n"
        "    host = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],\n"
        "                            start_new_session=True)\n"
        f"    pathlib.Path({str(pid_file)!r}).write_text(str(host.pid))\n"
        "    time.sleep(600)\n")
    proc = _port("matrix", "--suite", str(suite), "--junit", str(tmp_path / "out"), "-n", "0", cwd=tmp_path)
    host = None
    try:
        for _ in range(600):
            if pid_file.is_file() and pid_file.read_text():
                break
            if proc.poll() is not None:
                raise AssertionError(proc.stdout.read()[-3000:])
            select.select([], [], [], 0.5)
        host = int(pid_file.read_text())
        fd = os.pidfd_open(host)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        assert poller.poll(120_000), f"host {host} outlived the killed port matrix"
        os.close(fd)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if host is not None:
            try:
                os.kill(host, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ---- --rerun-failures ----------------------------------------------------------------------

def _rerun_suite(tmp_path, broken: bool, fails_first: int = 1):
    suite = tmp_path / "rerun"
    suite.mkdir()
    marks = tmp_path / "marks"
    marks.mkdir()
    body = ("import pathlib\n"
            f"MARKS = pathlib.Path({str(marks)!r})\n"
            "def test_ok():\n    pass\n"
            "def test_fails_once():\n"
            "    runs = len(list(MARKS.iterdir()))\n"
            "    (MARKS / str(runs)).touch()\n"
            f"    assert runs >= {fails_first}, 'the first runs fail'\n")
    if broken:
        body += "def test_broken():\n    assert False, 'always'\n"
    (suite / "test_rr.py").write_text(body)
    proc = _port("matrix", "--suite", str(suite), "--junit", str(tmp_path / "out"), "-n", "2", "--rerun-failures",
                 cwd=tmp_path)
    log, _ = proc.communicate(timeout=600)
    [xml] = (tmp_path / "out").glob("matrix-*.xml")
    return proc.returncode, log, xml


def _cases(xml):
    import xml.etree.ElementTree as ET

    out = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        out[case.get("name")] = (case.find("failure") is not None, props.get("rerun"))
    return out


def test_a_failure_that_passes_alone_is_flaky_and_the_junit_keeps_both_outcomes(tmp_path):
    code, log, xml = _rerun_suite(tmp_path, broken=False)
    assert code == 0, log[-3000:]
    assert "flaky (failed in the run, passed alone on try 1): test_rr.py::test_fails_once" in log
    assert _cases(xml) == {"test_ok": (False, None), "test_fails_once": (True, "passed")}


def test_a_failure_that_fails_once_alone_then_passes_is_flaky(tmp_path):
    code, log, xml = _rerun_suite(tmp_path, broken=False, fails_first=2)
    assert code == 0, log[-3000:]
    assert "passed alone on try 2): test_rr.py::test_fails_once" in log
    assert _cases(xml)["test_fails_once"] == (True, "failed,passed")


def test_a_failure_that_fails_every_time_alone_fails_the_run(tmp_path):
    code, log, xml = _rerun_suite(tmp_path, broken=False, fails_first=3)
    assert code == 1, log[-3000:]
    assert "failed again alone (failed, failed): test_rr.py::test_fails_once" in log
    assert _cases(xml)["test_fails_once"] == (True, "failed,failed")


def test_a_failure_that_fails_again_alone_fails_the_run(tmp_path):
    code, log, xml = _rerun_suite(tmp_path, broken=True)
    assert code == 1, log[-3000:]
    assert "failed again alone (failed, failed): test_rr.py::test_broken" in log
    cases = _cases(xml)
    assert cases["test_broken"] == (True, "failed,failed") and cases["test_fails_once"] == (True, "passed")


def test_too_many_failures_or_an_incomplete_run_are_not_run_again():
    from porting.matrix import rerun

    assert rerun.why_not(["a"] * (rerun.MAX_RERUN + 1), True).startswith(f"{rerun.MAX_RERUN + 1} failures")
    assert rerun.why_not(["a"], False) == "the run is incomplete"
    assert "session-level" in rerun.why_not(["a", rerun.SESSION_PREFIX + "exemption X expired"], True)
    assert rerun.why_not(["a"] * rerun.MAX_RERUN, True) is None


def test_rerun_failures_needs_a_suite(tmp_path):
    proc = _port("matrix", "--rerun-failures", cwd=tmp_path)
    log, _ = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "--rerun-failures: only with --suite" in log, log


def test_every_known_suite_has_a_time_estimate_for_ci():
    """ci/test starts a suite only when its measured time fits the budget left; a suite without
    an estimate would be started with none."""
    assert set(suites.ESTIMATE_S) == set(suites.KNOWN)
    assert all(s > 0 for s in suites.ESTIMATE_S.values())


def test_the_readers_skip_a_suite_runs_working_directory(tmp_path):
    """A suite test may leave any *.xml in its working directory (inside the JUnit directory):
    `port report DIR` and certify take every *.xml under DIR, except there."""
    from porting.junit_contract import junit_files_under

    (tmp_path / "matrix-a-shard1of1.work" / ".monarch").mkdir(parents=True)
    (tmp_path / "matrix-a-shard1of1.work" / ".monarch" / "config.xml").write_text("<config/>")
    (tmp_path / "matrix-a-shard1of1.xml").write_text("<testsuites/>")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "other.xml").write_text("<testsuites/>")
    assert junit_files_under(tmp_path) == [tmp_path / "matrix-a-shard1of1.xml", tmp_path / "nested" / "other.xml"]


def test_a_forked_child_has_sigterm_blocked_until_its_handler_is_reset(tmp_path):
    """Monarch's test_no_hang_on_shutdown signals its child right after fork(): the signal can
    reach the child before its after-fork hooks reset the inherited Python-level handler, which
    then loses it (measured: the test failed after test_proc_mesh ran in the same worker). So
    the fork happens with SIGTERM/SIGINT/SIGHUP blocked: a hook registered before the plugin's
    (conftest.py) sees them blocked; the test's own code after fork sees them unblocked with
    the default handler."""
    import subprocess
    import sys

    (tmp_path / "conftest.py").write_text(
        "import os, signal\n"
        "EARLY = {}\n"
        "def _early():\n"
        "    EARLY['blocked'] = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP} <= signal.pthread_sigmask(\n"
        "        signal.SIG_BLOCK, [])\n"
        "os.register_at_fork(after_in_child=_early)\n")
    (tmp_path / "test_window.py").write_text(
        "import os, signal\n"
        "from conftest import EARLY\n"
        "def test_blocked_for_the_fork_then_default():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        now = signal.pthread_sigmask(signal.SIG_BLOCK, [])\n"
        "        ok = (EARLY.get('blocked') and signal.SIGTERM not in now\n"
        "              and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)\n"
        "        os._exit(0 if ok else 3)\n"
        "    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0\n"
        "    assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the parent's mask is back\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(tmp_path), f"--rootdir={tmp_path}", "--port-matrix",
         "--port-suite=d", "-p", "no:cacheprovider", "-c", "/dev/null", "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), os.environ.get("PYTHONPATH", "")])})
    assert "1 passed" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_the_outcomes_plugin_works_beside_a_conftest_outside_the_tests_path(tmp_path):
    """pluggy puts the plugins of conftests that do not cover an item in a set when it calls a
    hook for that item: an unhashable plugin (a dataclass with eq) ended the installed wheel's
    matrix run with an internal error."""
    import pytest

    from porting.matrix.rerun import Outcomes

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "conftest.py").write_text("def pytest_runtest_logreport(report):\n    pass\n")
    (tmp_path / "a" / "test_a.py").write_text("def test_a():\n    pass\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "test_b.py").write_text("def test_b():\n    assert False\n")
    outcomes = Outcomes()
    code = pytest.main([str(tmp_path), "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)],
                       plugins=[outcomes])
    assert code == pytest.ExitCode.TESTS_FAILED
    assert outcomes.failed() == ["b/test_b.py::test_b"]
    assert outcomes.seen["a/test_a.py::test_a"] == "passed"
