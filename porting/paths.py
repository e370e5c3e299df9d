"""Path containment: the one place that decides whether a command may write or delete a path.

A command that owns an output directory (hipify's OUT, report's --out, certify's DIR, a build
directory) writes and deletes only through an ``OutputDir``:

- a path is relative to the root, or absolute and lexically under it; an empty path, a NUL
  byte, a ``..`` component or anything outside the root is refused;
- every directory between the root and the file is opened with ``O_NOFOLLOW`` relative to its
  parent (``openat``), so a symlink below the root, placed before or during the run, can never
  redirect a write or a delete out of it; the root itself may be a symlink (the user named it);
- the file itself is replaced by a rename (a symlink there is replaced, never written through)
  and deleted without following it.

A refusal raises ``PathRefused`` (a one-line ``InputError``) and is recorded in
``OutputDir.refused`` so that the command can report it (manifest and output) and carry on.

The source side has one rule too (``source_link_problem``): a symlink in SRC is followed only
when its target stays inside SRC, unless the user asks for external targets explicitly; a target
inside the output directory is never followed (the output would feed itself on every run).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Mapping
from typing import Any

from .errors import InputError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
FOLLOW_FLAG = "--follow-external-symlinks"


class PathRefused(InputError):
    """A path a command was about to write or delete lies outside its output directory."""

    def __init__(self, path: object, why: str) -> None:
        super().__init__(f"{show(path)}: refused: {why}")
        self.path, self.why = path, why


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The hex sha256 of a file's bytes, read in 1 MiB blocks."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def show(path: object) -> str:
    """A path as one printable line (control characters and undecodable bytes escaped)."""
    text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else repr(path)
    return text if text.isprintable() else repr(text)[1:-1]


def is_within(path: str, root: str) -> bool:
    """Is ``path`` ``root`` or below it? Both must already be absolute and normalised."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class OutputDir:
    """An output directory and everything written or deleted in it (see the module docstring)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.abspath(root)
        self.refused: list[dict[str, str]] = []

    # -- paths ---------------------------------------------------------------------------
    def parts(self, path: object) -> list[str]:
        """The components of ``path`` below the root; raises ``PathRefused`` (not recorded)."""
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str) or not path or "\0" in path:
            raise PathRefused(path, "not a usable path")
        if os.path.isabs(path):
            absolute = os.path.normpath(path)
            for root in (self.root, os.path.realpath(self.root)):
                if is_within(absolute, root) and absolute != root:
                    return absolute[len(root.rstrip(os.sep)) + 1:].split(os.sep)
            raise PathRefused(path, f"outside the output directory {show(self.root)}")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise PathRefused(path, f"'..' leads outside the output directory {show(self.root)}")
        if not parts:
            raise PathRefused(path, "names the output directory itself, not a file in it")
        return parts

    def refuse(self, path: object, exc: PathRefused) -> None:
        self.refused.append({"path": path if isinstance(path, str) else show(path), "why": exc.why})

    def path(self, path: object) -> str:
        """The absolute path of a file in the root (for messages and for child processes that
        write it themselves); raises ``PathRefused`` when it leaves the root or a directory on
        the way is a symlink."""
        parts = self.parts(path)
        current = self.root
        for part in parts[:-1]:
            current = os.path.join(current, part)
            if os.path.islink(current):
                raise PathRefused(path, f"goes through the symlink {show(current)}")
        return os.path.join(current, parts[-1])

    # -- directory descriptors -----------------------------------------------------------
    def _open_dirs(self, path: object, parts: list[str], create: bool) -> int:
        if create:
            os.makedirs(self.root, exist_ok=True)
        fd = os.open(self.root, _DIR_FLAGS)
        for i, part in enumerate(parts):
            try:
                fd = _step(fd, part, create)
            except OSError as exc:
                where = os.path.join(self.root, *parts[:i + 1])
                if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and os.path.islink(where)):
                    raise PathRefused(path, f"goes through the symlink {show(where)}") from None
                raise
        return fd

    def dir_fd(self, path: object, create: bool = True) -> tuple[int, str]:
        """(descriptor of the file's directory, file name); the caller closes the descriptor."""
        parts = self.parts(path)
        return self._open_dirs(path, parts[:-1], create), parts[-1]

    # -- operations ----------------------------------------------------------------------
    def write_bytes(self, path: object, data: bytes, mode: int | None = None, durable: bool = True) -> str:
        """Atomically write ``data`` to ``path`` under the root; returns the absolute path."""
        from .atomic import write_at

        try:
            fd, name = self.dir_fd(path)
        except PathRefused as exc:
            self.refuse(path, exc)
            raise
        try:
            full = os.path.join(self.root, *self.parts(path))
            write_at(fd, name, data, mode=mode, durable=durable, shown=full)
        finally:
            os.close(fd)
        return full

    def publish(self, files: Mapping[str, bytes]) -> dict[str, str]:
        """Write several files all or none: each is staged as a complete temporary file before
        any is renamed into place, so a blocked path (a directory in the way, no space, no
        permission) fails naming that file and leaves every earlier version as it was.
        Returns path -> absolute path written."""
        from .atomic import commit_at, discard_at, stage_at

        staged: list[tuple[int, str, str, str]] = []  # (dir fd, temporary name, name, shown path)
        try:
            for path, data in files.items():
                try:
                    fd, name = self.dir_fd(path)
                except PathRefused as exc:
                    self.refuse(path, exc)
                    raise
                full = os.path.join(self.root, *self.parts(path))
                try:
                    staged.append((fd, stage_at(fd, name, data, shown=full), name, full))
                except BaseException:
                    os.close(fd)
                    raise
            for fd, tmp, name, full in staged:
                commit_at(fd, tmp, name, shown=full)
        finally:
            for fd, tmp, _name, _full in staged:
                discard_at(fd, tmp)  # a no-op for the committed ones
                os.close(fd)
        return {path: os.path.join(self.root, *self.parts(path)) for path in files}

    def write_text(self, path: object, text: str, encoding: str = "utf-8") -> str:
        return self.write_bytes(path, text.encode(encoding))

    def subdir(self, path: object, create: bool = True) -> str:
        """The absolute path of a real directory below the root, created if missing (unless
        ``create`` is False), for a stage that writes there by path (hipify's OUT, a guard
        tree); raises ``PathRefused`` when it or a directory on the way is a symlink (it would
        redirect every write)."""
        parts = self.parts(path)
        try:
            if create or os.path.lexists(self.root):
                os.close(self._open_dirs(path, parts, create=create))
        except FileNotFoundError:
            pass  # not there yet: nothing to redirect, and nothing is created
        except PathRefused as exc:
            self.refuse(path, exc)
            raise
        except NotADirectoryError:
            refused = PathRefused(path, "is not a directory")
            self.refuse(path, refused)
            raise refused from None
        return os.path.join(self.root, *parts)

    def unlink(self, path: object) -> bool:
        """Delete a file (never a directory; a symlink itself, not its target). False when it
        was missing or refused (a refusal is recorded, never raised)."""
        try:
            fd, name = self.dir_fd(path, create=False)
        except PathRefused as exc:
            self.refuse(path, exc)
            return False
        except OSError:
            return False
        try:
            os.unlink(name, dir_fd=fd)
            return True
        except OSError:
            return False
        finally:
            os.close(fd)

    def lstat(self, path: object) -> os.stat_result | None:
        """The file's status without following anything, or None (missing, refused, unreadable)."""
        try:
            fd, name = self.dir_fd(path, create=False)
        except (PathRefused, OSError):
            return None
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None
        finally:
            os.close(fd)

    def is_file(self, path: object) -> bool:
        st = self.lstat(path)
        return st is not None and stat.S_ISREG(st.st_mode)

    def report(self) -> Iterator[str]:
        """One line per refusal, for the command's output."""
        for r in self.refused:
            yield f"refused   {show(r['path'])}: {r['why']}"

    def to_json(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.refused]


def _step(fd: int, part: str, create: bool) -> int:
    """Open the directory ``part`` below ``fd`` without following a symlink; closes ``fd``."""
    try:
        try:
            return os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
        try:
            os.mkdir(part, 0o777, dir_fd=fd)
        except FileExistsError:
            pass  # made by a concurrent writer (another worker): open it the same way
        return os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)


def source_link_problem(path: str, src_real: str, out_real: str | None, follow_external: bool) -> str | None:
    """Why the symlink ``path`` in SRC must not be followed, or None when it may be.

    ``src_real``/``out_real`` are the real paths of SRC and the output directory.
    """
    target = os.path.realpath(path)
    if out_real is not None and (is_within(target, out_real) or is_within(out_real, target)):
        return f"symlink into the output directory ({show(target)}), not followed"
    if not is_within(target, src_real) and not follow_external:
        return f"symlink to {show(target)}, outside the source directory, not followed (use {FOLLOW_FLAG} to follow it)"
    return None
