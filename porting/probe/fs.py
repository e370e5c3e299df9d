"""Filesystem access relative to a root prefix, so probes can run against synthetic machines.

Symlinks are followed by hand: absolute link targets are re-rooted under ``root``, and loops
or chains deeper than ``MAX_LINKS`` are reported instead of raising.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

MAX_LINKS = 40
READ_LIMIT = 1 << 20  # probe files are small (version files, sysfs); more is not one of them


class LinkError(Exception):
    """A symlink loop, or a chain too deep to follow."""


def under(root: Path, path: str | PurePosixPath) -> Path:
    """The real location of machine path ``path`` (absolute, as the probed machine sees it)."""
    return Path(_real(str(root), str(path)))


def _real(root: str, path: str) -> str:
    """String form of ``under`` (probes call this hundreds of times; pathlib is slow)."""
    rel = path.lstrip("/")
    if root == "/":
        return "/" + rel
    return f"{root.rstrip('/')}/{rel}" if rel else root


def resolve(root: Path, path: str) -> str:
    """Resolve symlinks of machine path ``path`` inside ``root``; returns a machine path.

    Raises LinkError on loops. Components that do not exist are kept as they are.
    """
    parts = [p for p in path.split("/") if p]
    done: list[str] = []
    hops = 0
    base = str(root)
    while parts:
        part = parts.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        real = _real(base, "/" + "/".join(done + [part]))
        if os.path.islink(real):
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


def read_text(root: Path, path: str, limit: int = READ_LIMIT) -> str | None:
    """Read a small text file; None when missing, unreadable, a loop or not a regular file."""
    try:
        real = _real(str(root), resolve(root, path))
    except LinkError:
        return None
    data = read_bounded(real, limit)
    return None if data is None else data.decode("utf-8", errors="replace")


def exists(root: Path, path: str) -> bool:
    try:
        return os.path.exists(_real(str(root), resolve(root, path)))
    except LinkError:
        return False


def is_dir(root: Path, path: str) -> bool:
    try:
        return os.path.isdir(_real(str(root), resolve(root, path)))
    except LinkError:
        return False


_listings: dict[str, list[str]] | None = None


class ListingCache:
    """Within ``with ListingCache():`` each directory is listed once (probes share big dirs)."""

    def __enter__(self) -> ListingCache:
        global _listings
        self._saved, _listings = _listings, {}
        return self

    def __exit__(self, *exc: object) -> None:
        global _listings
        _listings = self._saved


def listdir(root: Path, path: str) -> list[str]:
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


def glob_names(root: Path, directory: str, prefix: str) -> list[str]:
    return [n for n in listdir(root, directory) if n.startswith(prefix)]


def which(root: Path, env: Mapping[str, str], name: str) -> str | None:
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
