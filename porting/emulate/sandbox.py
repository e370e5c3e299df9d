"""The sandbox `port emulate` runs a user's program in: bubblewrap (Debian's ``bubblewrap``).

The program under test is arbitrary host code (``system()``, sockets, a daemon that forks
away). By default each run is wrapped in ``bwrap`` with:

- the whole filesystem mounted read-only, except the run's own working directory (read-write)
  and a private, empty ``/tmp``;
- every namespace unshared: no network (only a private loopback), its own PID namespace, so
  when the run ends (or is stopped at its timeout) every process it started dies with it,
  however it detached (``--die-with-parent``, and the kernel ends a PID namespace with its
  first process);
- a new session (no controlling terminal to inject input into).

``--no-sandbox`` runs the program directly with the user's rights (still in its own process
group, ended at the end). Without ``bwrap`` installed the command refuses to run unsandboxed
silently: it says so and asks for ``--no-sandbox``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import PortError


class NoSandbox(PortError):
    """bwrap is missing (exit 2; --no-sandbox goes on without it)."""


def bwrap() -> str:
    """The bwrap executable, or NoSandbox naming the way out."""
    found = shutil.which("bwrap")
    if found is None:
        raise NoSandbox("port emulate runs programs in a bubblewrap sandbox, and bwrap is not installed "
                        "(apt-get install bubblewrap, or pass --no-sandbox to run the program with your rights)")
    return found


def argv0_exec(binary: Path, argv0: str, args: list[str]) -> list[str]:
    """Run ``binary`` with ``argv[0] = argv0``: every width then shows the program the same name
    (a program that prints argv[0] must not differ by the per-width binary's path)."""
    bash = shutil.which("bash") or "/bin/bash"
    return [bash, "-c", 'exec -a "$0" "$@"', argv0, str(binary), *args]


def wrap(command: list[str], workdir: Path, readable: list[Path], tool: str) -> list[str]:
    """``command`` inside bwrap: read-only root, writable ``workdir``, no network, own PID
    namespace. ``readable`` (the binary) is bound again after the private /tmp, which would
    otherwise hide it when the output directory is below /tmp."""
    wd = str(workdir.resolve())
    binds: list[str] = []
    for path in readable:
        binds += ["--ro-bind", str(path.resolve()), str(path.resolve())]
    return [tool, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *binds,
            "--bind", wd, wd, "--unshare-all", "--die-with-parent", "--new-session",
            "--chdir", wd, "--", *command]
