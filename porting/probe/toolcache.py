"""A small on-disk cache of `TOOL --version` answers, keyed by the binary's identity.

Running a compiler costs milliseconds; `port detect` must stay fast. The key is
(real path, size, mtime_ns) of the binary, so an upgraded tool is asked again.
Location: ``$PORT_CACHE_DIR`` or ``$XDG_CACHE_HOME/rocm-port`` or ``~/.cache/rocm-port``.
Failures to read or write the cache are ignored (the tool is simply run).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from ..errors import PortError
from ..parsing import loads_json
from .fs import read_bounded

FILE = "tool-versions.json"

# Set by the fast `port detect` entry (porting/entry.py), which installs no process_group.owner()
# up front (signal and threading are imports that a detect answered from this cache never needs):
# then each child a probe starts is owned for its lifetime, so a signal still ends its group.
OWN_CHILDREN = False


def run_tool(argv: list[str], timeout: float, env: Mapping[str, str] | None = None) -> str:
    """A probe's child (``TOOL --version``): its stdout, its whole process group ended with it."""
    from .. import process_group

    if not OWN_CHILDREN:  # the command's owner() is in place (porting/cli.py)
        return process_group.run(argv, timeout=timeout, env=env).stdout
    with process_group.owner():
        return process_group.run(argv, timeout=timeout, env=env).stdout


def cache_dir(env: Mapping[str, str]) -> str:
    if env.get("PORT_CACHE_DIR"):
        return env["PORT_CACHE_DIR"]
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rocm-port")


def _identity(binary: str) -> str | None:
    try:
        real = os.path.realpath(binary)
        st = os.stat(real)
    except OSError:
        return None
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def cached_version(binary: str, ask: Callable[[], str | None], env: Mapping[str, str]) -> str | None:
    """Return ``ask()`` for ``binary``, from the cache when the binary is unchanged."""
    key = _identity(binary)
    if key is None:
        return ask()
    path = os.path.join(cache_dir(env), FILE)
    raw = read_bounded(path)  # the cache path comes from the environment: no FIFO may hang us
    try:
        table = loads_json(raw, path) if raw is not None else {}
    except PortError:
        table = {}
    if not isinstance(table, dict):
        table = {}
    if key in table:
        return table[key]
    value = ask()
    if value is not None:
        table[key] = value
        try:
            from ..atomic import write_json

            write_json(path, table)
        except OSError:
            pass
    return value
