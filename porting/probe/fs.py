"""Filesystem access relative to a root prefix, so probes can run against synthetic machines.

Symlinks are followed by hand: absolute link targets are re-rooted under ``root``, and loops
or chains deeper than ``MAX_LINKS`` are reported instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

MAX_LINKS = 40


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


def read_text(root: Path, path: str, limit: int = 1 << 20) -> str | None:
    """Read a small text file; None when missing, unreadable, a loop or not text."""
    try:
        with open(_real(str(root), resolve(root, path)), "rb") as handle:
            data = handle.read(limit)
    except (OSError, LinkError):
        return None
    return data.decode("utf-8", errors="replace")


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
