"""Simulated hosts for `port soak --hosts N`: one network namespace per host, each with its own
address on a bridge, all made by the soak driver inside the network namespace the soak already
runs in (see launch.py), so no link, address or listener of the soak reaches the machine's
network.

Layout (``Layout``): host 0 runs only the torchft Lighthouse; hosts 1..N run ``K`` replica
groups each (replica ``r`` on host ``1 + r // K``). Host ``h`` has address ``10.77.0.(10+h)/24``
on its ``eth0``; the other end of its veth pair, ``vh<h>``, is a port of the bridge ``soakbr0``
(``10.77.0.254/24``) in the soak's namespace.

A host namespace is held by a ``sleep`` process started with ``unshare --net`` whose parent-death
signal is SIGKILL, so a host cannot outlive the driver even when the driver is SIGKILLed; when
the holder and every thread that entered the namespace are gone, the kernel frees the namespace
and the veth pair in it, and the bridge dies with the soak's own namespace.

Which traffic crosses the simulated network: the torchft data plane (Lighthouse, manager
servers, TCPStore, gloo pairs, checkpoint HTTP servers); a replica's training thread enters
its host's namespace (``enter``) before it creates any of them. Monarch's own control channels
(supervision, endpoint calls) stay in the soak's namespace, an out-of-band management network:
a partitioned host is still supervised, as a fleet's hosts are by their scheduler.

Faults on links (see driver.py): ``partition`` sets the bridge end of a host's veth down (both
directions stop; established TCP connections stall instead of being reset), ``heal`` sets it up;
``slow`` puts a token-bucket (``tbf``) rate limit on both ends of the link: queueing delay for
every transfer and tail drops (real packet loss, counted by the kernel) when a burst exceeds the
queue. ``tc netem`` is not required (many kernels, this one included, do not ship it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from ..errors import PlatformError

BRIDGE = "soakbr0"
SUBNET = "10.77.0"
BRIDGE_ADDRESS = f"{SUBNET}.254"
PREFIX = 24
LIGHTHOUSE_HOST = 0
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Layout:
    hosts: int  # hosts running replica groups (the Lighthouse has one more of its own)
    per_host: int  # replica groups per host

    @property
    def replicas(self) -> int:
        return self.hosts * self.per_host

    @property
    def all_hosts(self) -> list[int]:
        return list(range(self.hosts + 1))

    @staticmethod
    def address(host: int) -> str:
        return f"{SUBNET}.{10 + host}"

    def host_of(self, replica: int) -> int:
        return 1 + replica // self.per_host

    def replicas_on(self, host: int) -> list[int]:
        return [r for r in range(self.replicas) if self.host_of(r) == host]

    @staticmethod
    def name(host: int) -> str:
        return "lighthouse" if host == LIGHTHOUSE_HOST else f"host{host}"

    def to_json(self) -> dict[str, Any]:
        return {"hosts": self.hosts, "per_host": self.per_host,
                "addresses": {self.name(h): self.address(h) for h in self.all_hosts},
                "replica_host": {str(r): self.host_of(r) for r in range(self.replicas)}}


def _ip(argv: list[str], netns: str | None = None) -> str:
    """Run one ``ip``/``tc`` command (in ``netns`` when given); raise PlatformError naming it."""
    full = (["nsenter", f"--net={netns}"] if netns else []) + argv
    try:
        done = subprocess.run(full, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        raise PlatformError(f"port soak --hosts: `{' '.join(argv)}` could not run: {exc}") from None
    if done.returncode != 0:
        raise PlatformError(f"port soak --hosts: `{' '.join(argv)}` failed: {done.stderr.strip()[:300]}")
    return done.stdout


def _die_with_parent() -> None:
    """preexec_fn of a namespace holder: SIGKILL when the driver thread that forked it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def enter(netns: str) -> None:
    """Move the calling thread (and the threads it starts from now on) into ``netns``."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(netns, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise PlatformError(f"port soak --hosts: cannot enter {netns}: {os.strerror(err)}")
    finally:
        os.close(fd)


class Network:
    """The hosts of one soak run, their links and the faults on those links."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.holders: dict[int, subprocess.Popen[bytes]] = {}
        self.down: set[int] = set()
        self.slowed: set[int] = set()

    def netns(self, host: int) -> str:
        return f"/proc/{self.holders[host].pid}/ns/net"

    def up(self) -> None:
        """Create the bridge and every host; on any failure, remove what was made and raise."""
        try:
            _ip(["ip", "link", "add", "name", BRIDGE, "type", "bridge"])
            _ip(["ip", "addr", "add", f"{BRIDGE_ADDRESS}/{PREFIX}", "dev", BRIDGE])
            _ip(["ip", "link", "set", BRIDGE, "up"])
            for host in self.layout.all_hosts:
                self._add_host(host)
        except BaseException:
            self.close()
            raise

    def _add_host(self, host: int) -> None:
        holder = subprocess.Popen(["unshare", "--net", "sleep", "infinity"], stdin=subprocess.DEVNULL,
                                  preexec_fn=_die_with_parent)
        self.holders[host] = holder
        own = os.readlink("/proc/self/ns/net")
        for _ in range(200):  # until unshare has made the namespace and exec'd sleep
            try:
                if os.readlink(self.netns(host)) != own:
                    break
            except OSError:
                pass
            if holder.poll() is not None:
                raise PlatformError(f"port soak --hosts: the namespace holder of {self.layout.name(host)} exited")
            time.sleep(0.01)
        ns = self.netns(host)
        veth = f"vh{host}"
        _ip(["ip", "link", "add", "name", veth, "type", "veth", "peer", "name", "eth0", "netns", str(holder.pid)])
        _ip(["ip", "link", "set", veth, "master", BRIDGE, "up"])
        _ip(["ip", "link", "set", "lo", "up"], ns)
        _ip(["ip", "addr", "add", f"{self.layout.address(host)}/{PREFIX}", "dev", "eth0"], ns)
        _ip(["ip", "link", "set", "eth0", "up"], ns)

    # faults on links ---------------------------------------------------------------------------
    def partition(self, host: int) -> None:
        _ip(["ip", "link", "set", f"vh{host}", "down"])
        self.down.add(host)

    def heal(self, host: int) -> None:
        _ip(["ip", "link", "set", f"vh{host}", "up"])
        self.down.discard(host)

    def slow(self, host: int, rate_kbit: int, queue_ms: int) -> None:
        """A slow link: ``rate_kbit`` each way, at most ``queue_ms`` of queueing before drops."""
        for dev, ns in ((f"vh{host}", None), ("eth0", self.netns(host))):
            _ip(["tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{rate_kbit}kbit",
                 "burst", "4kb", "latency", f"{queue_ms}ms"], ns)
        self.slowed.add(host)

    def unslow(self, host: int) -> dict[str, int]:
        """Remove the rate limit; the kernel's counters of what the limit did (sent, dropped)."""
        counters = {"dropped": 0, "sent_bytes": 0}
        for dev, ns in ((f"vh{host}", None), ("eth0", self.netns(host))):
            stats = _ip(["tc", "-s", "qdisc", "show", "dev", dev], ns).split()
            if "dropped" in stats:
                counters["dropped"] += int(stats[stats.index("dropped") + 1].rstrip(","))
            if "Sent" in stats:
                counters["sent_bytes"] += int(stats[stats.index("Sent") + 1])
            _ip(["tc", "qdisc", "del", "dev", dev, "root"], ns)
        self.slowed.discard(host)
        return counters

    # what the invariants look at ---------------------------------------------------------------
    def facts(self) -> dict[str, Any]:
        """Per host: its namespace, interfaces, addresses; for the soak's namespace the same."""
        hosts = {}
        for host in self.layout.all_hosts:
            ns = self.netns(host)
            hosts[self.layout.name(host)] = {
                "netns": os.readlink(ns), "address": self.layout.address(host),
                "links": _links(_ip(["ip", "-o", "link", "show"], ns)),
                "addresses": _addresses(_ip(["ip", "-o", "addr", "show"], ns))}
        return {"layout": self.layout.to_json(), "bridge": BRIDGE, "hosts": hosts}

    def listeners(self) -> dict[str, list[str]]:
        """Local addresses of the listening TCP sockets in every host's namespace."""
        out = {}
        for host in self.layout.all_hosts:
            text = _ip(["ss", "-ltnH"], self.netns(host))
            out[self.layout.name(host)] = sorted({ln.split()[3] for ln in text.splitlines() if len(ln.split()) >= 4})
        return out

    def close(self) -> list[int]:
        """Kill every holder and wait for it; remove the veths and the bridge. The pids that would
        not die (expected: none)."""
        left = []
        for holder in self.holders.values():
            if holder.poll() is None:
                holder.kill()
            try:
                holder.wait(timeout=10)
            except subprocess.TimeoutExpired:
                left.append(holder.pid)
        for host in list(self.holders):
            subprocess.run(["ip", "link", "del", f"vh{host}"], capture_output=True, timeout=20)
        subprocess.run(["ip", "link", "del", BRIDGE], capture_output=True, timeout=20)
        self.holders.clear()
        return left


def _links(text: str) -> list[str]:
    return [ln.split(":")[1].strip().split("@")[0] for ln in text.splitlines() if ":" in ln]


def _addresses(text: str) -> list[str]:
    return [ln.split()[3] for ln in text.splitlines() if len(ln.split()) > 3]
