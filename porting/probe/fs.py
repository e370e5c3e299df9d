"""Filesystem access relative to a root prefix, so probes can run against synthetic machines.

Symlinks are followed by hand: absolute link targets are re-rooted under ``root``, and loops
or chains deeper than ``MAX_LINKS`` are reported instead of raising.
"""

from __future__ import annotations

import os
import stat
from bisect import bisect_left
from collections.abc import Mapping

TYPE_CHECKING = False  # neither typing nor pathlib is imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from typing import TypeAlias

    Root: TypeAlias = "str | os.PathLike[str]"  # the probed machine's root: a str at run time, a Path from callers

MAX_LINKS = 40
READ_LIMIT = 1 << 20  # probe files are small (version files, sysfs); more is not one of them


class LinkError(Exception):
    """A symlink loop, or a chain too deep to follow."""


def under(root: Root, path: str) -> str:
    """The real location of machine path ``path`` (absolute, as the probed machine sees it)."""
    return _real(str(root), path)


def _real(root: str, path: str) -> str:
    """String form of ``under`` (probes call this hundreds of times; pathlib is slow)."""
    rel = path.lstrip("/")
    if root == "/":
        return "/" + rel
    return f"{root.rstrip('/')}/{rel}" if rel else root


def resolve(root: Root, path: str) -> str:
    """Resolve symlinks of machine path ``path`` inside ``root``; returns a machine path.

    Raises LinkError on loops. Components that do not exist are kept as they are.
    Inside ``ListingCache`` the parent is resolved first and remembered: probes ask about
    hundreds of paths under a few dozen directories.
    """
    base = str(root)
    if _resolved is None:
        return _walk(base, [], [p for p in path.split("/") if p])
    key = (base, path)
    known = _resolved.get(key)
    if known is None:
        parent, _, name = path.rstrip("/").rpartition("/")
        try:
            if parent and name not in (".", ".."):
                start = resolve(root, parent)
                known = _walk(base, [p for p in start.split("/") if p], [name])
            else:
                known = _walk(base, [], [p for p in path.split("/") if p])
        except LinkError as exc:
            known = exc
        _resolved[key] = known
    if isinstance(known, LinkError):
        raise LinkError(*known.args)
    return known


def _walk(base: str, done: list[str], parts: list[str]) -> str:
    """Follow ``parts`` from the resolved machine path ``done``, symlink by symlink."""
    hops = 0
    while parts:
        part = parts.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        real = _real(base, "/" + "/".join(done + [part]))
        if _islink(real):
            hops += 1
            if hops > MAX_LINKS:
                raise LinkError(f"/{'/'.join(done + [part])}: symlink loop or chain deeper than {MAX_LINKS}")
            try:
                target = os.readlink(real)
            except OSError as exc:
                raise LinkError(f"/{'/'.join(done + [part])}: unreadable symlink ({exc.strerror})") from None
            if target.startswith("/"):
                done = []
            parts = [p for p in target.split("/") if p] + parts
            continue
        done.append(part)
    return "/" + "/".join(done)


def read_bounded(real: str, limit: int = READ_LIMIT) -> bytes | None:
    """The first ``limit`` bytes of the regular file ``real``; None for anything else.

    The one way probes read files. The open is non-blocking (a FIFO with no writer would block
    in open(); a device could block in read()) and the descriptor is checked with fstat before
    any read, so a FIFO, socket or device planted where a version file is expected is "absent",
    never a hang; a file that grows forever is read up to ``limit``.
    """
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_text(root: Root, path: str, limit: int = READ_LIMIT) -> str | None:
    """Read a small text file; None when missing, unreadable, a loop or not a regular file."""
    try:
        real = _real(str(root), resolve(root, path))
    except LinkError:
        return None
    data = read_bounded(real, limit)
    return None if data is None else data.decode("utf-8", errors="replace")


def exists(root: Root, path: str) -> bool:
    try:
        return os.path.exists(_real(str(root), resolve(root, path)))
    except LinkError:
        return False


def is_dir(root: Root, path: str) -> bool:
    try:
        return os.path.isdir(_real(str(root), resolve(root, path)))
    except LinkError:
        return False


_listings: dict[str, list[str]] | None = None
_links: dict[str, bool] | None = None
_resolved: dict[tuple[str, str], str | LinkError] | None = None


class ListingCache:
    """Within ``with ListingCache():`` each directory is listed once and each path component is
    asked once whether it is a symlink (probes share big dirs and prefixes: ``/usr``, ``/opt/rocm``;
    without this, one `port detect` made ~850 lstat calls for ~190 paths)."""

    def __enter__(self) -> ListingCache:
        global _listings, _links, _resolved
        self._saved = _listings, _links, _resolved
        _listings, _links, _resolved = {}, {}, {}
        return self

    def __exit__(self, *exc: object) -> None:
        global _listings, _links, _resolved
        _listings, _links, _resolved = self._saved


def _islink(real: str) -> bool:
    if _links is None:
        return os.path.islink(real)
    known = _links.get(real)
    if known is None:
        known = _links[real] = os.path.islink(real)
    return known


def listdir(root: Root, path: str) -> list[str]:
    try:
        real = _real(str(root), resolve(root, path))
    except LinkError:
        return []
    if _listings is not None and real in _listings:
        return _listings[real]
    try:
        names = sorted(os.listdir(real))
    except OSError:
        names = []
    if _listings is not None:
        _listings[real] = names
    return names


def glob_names(root: Root, directory: str, prefix: str) -> list[str]:
    """Names in ``directory`` starting with ``prefix``: a run of the sorted listing, found by
    bisection (``/usr/lib/x86_64-linux-gnu`` holds thousands of names and is asked dozens of times)."""
    names = listdir(root, directory)
    out: list[str] = []
    for name in names[bisect_left(names, prefix):]:
        if not name.startswith(prefix):
            break
        out.append(name)
    return out


def which(root: Root, env: Mapping[str, str], name: str) -> str | None:
    """First executable ``name`` on the probed machine's PATH (machine path, unresolved)."""
    for entry in env.get("PATH", "").split(os.pathsep):
        if not entry:
            continue
        candidate = f"{entry.rstrip('/')}/{name}"
        try:
            real = _real(str(root), resolve(root, candidate))
        except LinkError:
            return candidate  # report it; resolution will fail with the loop message
        if os.path.isfile(real) and os.access(real, os.X_OK):
            return candidate
    return None
