"""Atomic file output: write to a temporary file beside the target, then rename."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> Path:
    """Write ``data`` to ``path`` so readers see either the old or the new file, never half."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    return write_bytes(path, text.encode(encoding))


def write_json(path: str | os.PathLike[str], obj: Any, indent: int | None = 2) -> Path:
    return write_text(path, json.dumps(obj, indent=indent, sort_keys=False) + "\n")
