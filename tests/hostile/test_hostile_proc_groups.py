"""Issue 11, item 7 (hipconfig part) and the process-group owner: a child that hangs or is
abandoned takes its whole process tree with it, at a time-out and at a signal."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from porting import process_group
from porting.probe import rocm


def test_hanging_hipconfig_is_killed_with_its_children(tmp_path: Path, hp, monkeypatch) -> None:
    home = tmp_path / "rocm"
    pidfile = tmp_path / "grandchild.pid"
    hp.hanging_script(home / "bin" / "hipconfig", pidfile)
    monkeypatch.setattr(rocm, "HIPCONFIG_TIMEOUT_S", 1.0)
    version, note = rocm.version_from_hipconfig(Path("/"), str(home), {"PATH": "/usr/bin:/bin"})
    grandchild = int(hp.wait_for_file(pidfile))
    try:
        assert version is None and "timed out" in note
        assert hp.wait_dead(grandchild), "hipconfig's child outlived the probe's time-out"
    finally:
        hp.kill_quietly(grandchild)


def test_run_kills_what_an_exited_child_left_behind(tmp_path: Path, hp) -> None:
    pidfile = tmp_path / "daemon.pid"
    proc = process_group.run(["/bin/sh", "-c", f"sleep 600 & echo $! > '{pidfile}'; echo done"], timeout=60)
    daemon = int(pidfile.read_text())
    try:
        assert proc.returncode == 0 and proc.stdout.strip() == "done"
        assert hp.wait_dead(daemon), "a probe's background child survived it"
    finally:
        hp.kill_quietly(daemon)


class _Reaped:
    """A child ``stop_group`` is handed after its leader was reaped (returncode set), whose pid
    number has since been given to another process."""

    def __init__(self, pid: int) -> None:
        self.pid, self.returncode = pid, 0

    def poll(self) -> int:
        return 0

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def kill(self) -> None:
        raise AssertionError("a reaped child is not killed")


def test_stop_group_leaves_alone_a_new_group_that_reuses_a_reaped_leaders_number(hp) -> None:
    """pid_max is 32768 here: a reaped leader's number comes back within minutes, and a process
    started in its own session (a test's leaked ``sleep``) then leads a group of that number.
    A late ``stop_group`` on the old child killed it (two CI runs saw such a sleep die)."""
    stranger = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        process_group.stop_group(_Reaped(stranger.pid), grace_s=0.5)  # type: ignore[arg-type]
        assert stranger.poll() is None, "stop_group signalled a group that was not its child's"
    finally:
        stranger.kill()
        stranger.wait()


def test_run_time_out_is_subprocess_timeout(tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        process_group.run(["/bin/sh", "-c", "sleep 600"], timeout=0.5)


def test_run_decodes_hostile_output_without_raising() -> None:
    proc = process_group.run(["/bin/sh", "-c", "printf '\\377\\376 7.0'"], timeout=60)
    assert proc.stdout.endswith(" 7.0")


OWNER_SCRIPT = textwrap.dedent("""
    import sys, threading
    from concurrent.futures import ThreadPoolExecutor
    from porting import process_group

    pidfile = sys.argv[1]

    def job(i):
        return process_group.run(["/bin/sh", "-c", f"sleep 600 & echo $! >> {pidfile}; wait"])

    try:
        with process_group.owner():
            pool = ThreadPoolExecutor(2)
            futures = [pool.submit(job, i) for i in range(2)]
            print("ready", flush=True)
            process_group.run(["/bin/sh", "-c", f"sleep 600 & echo $! >> {pidfile}; wait"])
    except process_group.Interrupted as exc:
        pool.shutdown(wait=True, cancel_futures=True)
        print(f"interrupted {exc.signame}", flush=True)
        sys.exit(exc.exit_code)
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signal_ends_every_group_even_from_worker_threads(tmp_path: Path, hp, sig: int) -> None:
    pidfile = tmp_path / "pids"
    proc = subprocess.Popen([sys.executable, "-c", OWNER_SCRIPT, str(pidfile)], env=hp.port_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids: list[int] = []
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for _ in range(600):  # all three grandchildren started (a liveness guard)
            pids = [int(x) for x in pidfile.read_text().split()] if pidfile.exists() else []
            if len(pids) == 3:
                break
            subprocess.run(["sleep", "0.05"])
        assert len(pids) == 3
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + sig, err
        assert f"interrupted {signal.Signals(sig).name}" in out
        assert all(hp.wait_dead(p) for p in pids), "a child group outlived the signalled command"
    finally:
        proc.kill()
        for p in pids:
            hp.kill_quietly(p)


def test_nothing_starts_after_the_signal(tmp_path: Path) -> None:
    handler = process_group._Handler()
    with process_group.owner():
        with pytest.raises(process_group.Interrupted):
            handler(signal.SIGTERM, None)
        with pytest.raises(process_group.Interrupted):
            process_group.run(["/bin/true"])
    assert process_group.run(["/bin/true"]).returncode == 0  # the next command starts afresh


FAKE_CXX = """#!/bin/sh
# A compiler that answers --version and then hangs in every compile, with a child of its own.
case "$*" in *--version*|*-dump*) echo "fake-c++ 1.0"; exit 0;; esac
sleep 600 &
echo $! >> '{pids}'
echo $$ >> '{pids}'
wait
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_port_build_ends_every_running_compiler(tmp_path: Path, hp, sig: int) -> None:
    bindir, pids = tmp_path / "bin", tmp_path / "compiler.pids"
    bindir.mkdir()
    for name in ("c++", "g++", "clang++"):
        (bindir / name).write_text(FAKE_CXX.format(pids=pids))
        (bindir / name).chmod(0o755)
    env = hp.port_env(PATH=f"{bindir}:/usr/bin:/bin")
    proc = subprocess.Popen([sys.executable, "-m", "porting", "build", "--path", "cpu", "--jobs", "2",
                             "--build-dir", str(tmp_path / "build")], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started: list[int] = []
    try:
        for _ in range(1200):  # both parallel compiles (and their children) are running: a liveness guard
            started = [int(x) for x in pids.read_text().split()] if pids.exists() else []
            if len(started) >= 4 or proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.05"])
        assert len(started) >= 4, proc.communicate(timeout=60)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + sig and "Traceback" not in err, err[-3000:]
        assert all(hp.wait_dead(p) for p in started), "a compiler (or its child) outlived `port build`"
        assert not (pids.read_text().split()[4:] if pids.exists() else [])  # no compile started after
    finally:
        proc.kill()
        for p in started:
            hp.kill_quietly(p, "sleep", "c++", "sh")
