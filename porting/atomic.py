"""Atomic file output: write to a temporary file beside the target, then rename.

Modes are those of a plain ``open(path, "w")``: a new file gets ``0666 & ~umask`` (the kernel
applies the umask when the temporary file is created), a regenerated file keeps the mode it had,
and an explicit ``mode`` is masked by the umask the same way. Writes inside a command's output
directory go through ``porting.paths.OutputDir``, which uses ``write_at`` below.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None,
                durable: bool = True) -> Path:
    """Write ``data`` to ``path`` so readers see either the old or the new file, never half.

    ``durable=False`` skips the fsync: still atomic for readers and for an interrupted run,
    but a machine crash may lose the newest content (bulk outputs that a manifest re-checks,
    e.g. `port hipify`, where a per-file fsync made a 1000-file tree 2-5x slower).
    """
    target = Path(path)
    parent = os.path.dirname(os.path.abspath(target))
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        os.makedirs(parent, exist_ok=True)
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        write_at(fd, target.name, data, mode=mode, durable=durable, shown=str(target))
    finally:
        os.close(fd)
    return target


def write_at(dir_fd: int, name: str, data: bytes, *, mode: int | None = None, durable: bool = True,
             shown: str | None = None) -> None:
    """Atomically write the file ``name`` in the directory ``dir_fd``; errors name ``shown``."""
    tmp = stage_at(dir_fd, name, data, mode=mode, durable=durable, shown=shown)
    commit_at(dir_fd, tmp, name, shown=shown)


def stage_at(dir_fd: int, name: str, data: bytes, *, mode: int | None = None, durable: bool = True,
             shown: str | None = None) -> str:
    """The first half of ``write_at``: the complete temporary file beside ``name`` (its name is
    returned; ``commit_at`` publishes it, ``discard_at`` removes it). Everything that can fail
    for lack of space, permission or a directory in the way fails here, before any rename."""
    shown = shown or name
    keep = _existing_mode(dir_fd, name, shown) if mode is None else None
    fd, tmp = _create_temp(dir_fd, name, 0o666 if mode is None else mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if keep is not None:
                os.fchmod(handle.fileno(), keep)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        discard_at(dir_fd, tmp)
        raise
    return tmp


def commit_at(dir_fd: int, tmp: str, name: str, shown: str | None = None) -> None:
    try:
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        discard_at(dir_fd, tmp)
        if isinstance(exc, OSError):  # name the target, not the temporary file
            raise type(exc)(exc.errno, exc.strerror, shown or name) from None
        raise


def discard_at(dir_fd: int, tmp: str) -> None:
    try:
        os.unlink(tmp, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def _existing_mode(dir_fd: int, name: str, shown: str) -> int | None:
    """The permission bits of the regular file being regenerated (None: new file or a symlink,
    which the rename replaces); a directory in the way is an error naming it."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), shown)
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def _create_temp(dir_fd: int, name: str, mode: int) -> tuple[int, str]:
    for _ in range(100):
        tmp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, _TMP_FLAGS, mode, dir_fd=dir_fd), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", name)


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    return write_bytes(path, text.encode(encoding))


def write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 2) -> Path:
    return write_text(path, json.dumps(obj, indent=indent, sort_keys=False) + "\n")
