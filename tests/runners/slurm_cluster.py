"""A private single-node Slurm cluster for the runner tests (Debian's slurm-wlm 22.05 + munge).

Everything lives in one temporary directory: a munge key and a munged on its own socket
(``AuthInfo=socket=...``, so the host's /etc/munge and /run/munge are neither read nor
touched), slurm.conf on loopback with free ports, the controller's state and the node's
spool. ``slurmctld``, ``slurmd`` and ``munged`` run in the foreground as children of the
test process (and die with it, should it be killed before its finalisers run); ``stop()``
cancels every job, waits for the job steps to go, and stops the daemons (SIGTERM, then
SIGKILL), so nothing is left running. ``start()`` on a started
cluster is a no-op.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from porting.workers import die_with_parent

DAEMONS = ("munged", "slurmctld", "slurmd", "mungekey")
NODE = "portnode1"
PARTITION = "porttest"


def missing_tools() -> list[str]:
    return [t for t in (*DAEMONS, "sbatch", "sinfo", "squeue", "scancel", "scontrol") if not shutil.which(t)]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(predicate, timeout: float, what: str, log: Path | None = None) -> None:
    """Poll ``predicate`` (a bring-up step, not a test assertion) until true or give up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-2000:] if log is not None and log.is_file() else ""
    raise RuntimeError(f"slurm test cluster: {what} did not happen within {timeout:.0f}s\n{tail}")


class SlurmCluster:
    def __init__(self, cpus: int = 2) -> None:
        # Not under pytest's tmp_path: munged insists that every directory above its socket
        # is traversable by all, and pytest's base temp directory is private (0700).
        self.root = Path(tempfile.mkdtemp(prefix="port-slurm-"))
        self.root.chmod(0o755)
        self.cpus = cpus
        self.conf = self.root / "slurm.conf"
        self.munge_socket = self.root / "munge" / "munge.sock"
        self._procs: dict[str, subprocess.Popen] = {}

    # ---- configuration ---------------------------------------------------------------
    def env(self) -> dict[str, str]:
        """The environment a client (sbatch, squeue) needs to talk to this cluster."""
        env = dict(os.environ, SLURM_CONF=str(self.conf))
        for key in [k for k in env if k.startswith(("SLURM_", "SBATCH_", "SQUEUE_")) and k != "SLURM_CONF"]:
            del env[key]
        return env

    def _write_config(self) -> None:
        r = self.root
        for sub in ("state", "spool", "munge", "log"):
            (r / sub).mkdir(parents=True, exist_ok=True)
        (r / "munge").chmod(0o755)  # munged wants the socket directory traversable by all
        lines = [
            "ClusterName=porttest",
            "SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none", "MpiDefault=none", "SwitchType=switch/none",
            "SchedulerType=sched/builtin", "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
            "ReturnToService=2", "KillWait=5", "MinJobAge=600", "SlurmdTimeout=60", "InactiveLimit=0",
            "SlurmdParameters=config_overrides",
            f"StateSaveLocation={r / 'state'}", f"SlurmdSpoolDir={r / 'spool'}",
            f"SlurmctldPidFile={r / 'slurmctld.pid'}", f"SlurmdPidFile={r / 'slurmd.pid'}",
            f"SlurmctldLogFile={r / 'log' / 'slurmctld.log'}", f"SlurmdLogFile={r / 'log' / 'slurmd.log'}",
            f"NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={socket.gethostname()} "
            f"CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n")

    # ---- life cycle ------------------------------------------------------------------
    def _spawn(self, name: str, argv: list[str]) -> None:
        log = open(self.root / "log" / f"{name}.out", "ab")
        try:
            # die_with_parent: if the test process is killed (a CI time-out), no finaliser runs,
            # so the kernel ends the daemons with it (PR_SET_PDEATHSIG)
            self._procs[name] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                                 env=self.env(), start_new_session=True,
                                                 preexec_fn=functools.partial(die_with_parent, os.getpid()))
        finally:
            log.close()

    def start(self) -> SlurmCluster:
        if self._procs:
            return self
        self._write_config()
        try:
            key = self.root / "munge" / "munge.key"
            subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True, capture_output=True)
            m = self.root / "munge"
            self._spawn("munged", ["munged", "--foreground", f"--socket={self.munge_socket}",
                                   f"--key-file={key}", f"--pid-file={m / 'munged.pid'}",
                                   f"--log-file={m / 'munged.log'}", f"--seed-file={m / 'munged.seed'}"])
            _wait(lambda: self._alive() and self.munge_socket.exists(), 30, "munged socket",
                  self.root / "log" / "munged.out")
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
            self._spawn("slurmd", ["slurmd", "-D", "-N", NODE, "-f", str(self.conf)])
            _wait(self._node_idle, 90, f"node {NODE} idle in sinfo", self.root / "log" / "slurmctld.log")
        except BaseException:
            self.stop()
            raise
        return self

    def _alive(self) -> bool:
        for name, proc in self._procs.items():
            if proc.poll() is not None:
                logs = "".join(p.read_text(errors="replace")[-1500:] for p in (self.root / "log").glob("*"))
                raise RuntimeError(f"slurm test cluster: {name} exited with {proc.returncode}:\n{logs}")
        return True

    def _node_idle(self) -> bool:
        self._alive()
        out = self.run(["sinfo", "-h", "-N", "-o", "%N %t"], check=False).stdout
        return f"{NODE} idle" in out

    def run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=self.env(), capture_output=True, text=True, check=check, timeout=60)

    def stop(self) -> None:
        if "slurmctld" in self._procs and self._procs["slurmctld"].poll() is None:
            self.run(["scancel", f"--partition={PARTITION}"], check=False)
            try:
                _wait(lambda: not self.run(["squeue", "-h"], check=False).stdout.strip(), 30, "job drain")
            except RuntimeError:
                pass  # the daemons' process groups are killed below either way
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self._procs.pop(name, None)
            if proc is None:
                continue
            _stop(proc)
        self._kill_stragglers()

    def remove(self) -> None:
        """Delete the cluster's directory (after ``stop``)."""
        shutil.rmtree(self.root, ignore_errors=True)

    def _kill_stragglers(self) -> None:
        """slurmstepd and job processes that outlived slurmd: they name our config or spool."""
        marker = str(self.root)
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                env = Path(f"/proc/{pid}/environ").read_bytes()
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmd or f"SLURM_CONF={self.conf}".encode() in env:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass

    def leftovers(self) -> list[str]:
        """Live processes that belong to this cluster (should be none after ``stop``)."""
        marker = str(self.root).encode()
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                env = Path(f"/proc/{pid}/environ").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z" and (marker in cmd or f"SLURM_CONF={self.conf}".encode() in env):
                shown = cmd.replace(b"\0", b" ").decode(errors="replace")[:200]
                found.append(f"{pid}: {shown}")
        return found


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except OSError:
        pass
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait(timeout=20)
