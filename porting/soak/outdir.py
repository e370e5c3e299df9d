"""Ownership of `port soak --out DIR`: a soak deletes only files a soak wrote.

``DIR/.port-soak.json`` marks the directory as a soak's and lists the files the last run left
(``files``, relative to DIR). Before a run:

* a DIR that does not exist, or is empty, is claimed;
* a non-empty DIR without the marker belongs to someone else: refused, nothing touched;
* in a marked DIR, the soak's own top-level files (``TOP``) and the listed files are deleted
  (through ``paths.OutputDir``: a tampered list cannot reach outside DIR or follow a link);
  any other file left in ``steps/``, ``ctl/`` or ``logs/`` (where the driver and the replicas
  write by name) was not written by a soak: refused, rather than deleted or mixed into the run.

After a run, interrupted or not, the marker is rewritten with what is there now.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from ..atomic import write_json
from ..errors import PortError, UsageError
from ..parsing import load_json
from ..paths import OutputDir, show

MARKER = ".port-soak.json"
SUBDIRS = ("steps", "ctl", "logs")
TOP = ("spec.json", "run.json", "supervisor.jsonl", "driver.log", "soak.json", "soak.png", "soak.xml")
MARKER_SCHEMA = 1


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _listed(out: Path) -> list[str]:
    """The marker's ``files``; an unreadable marker lists nothing (nothing is deleted)."""
    try:
        data: Any = load_json(out / MARKER)
    except PortError:
        return []
    files = data.get("files") if isinstance(data, dict) else None
    return [f for f in files if isinstance(f, str)] if isinstance(files, list) else []


def _ours(rel: str) -> bool:
    """Only names a soak writes: a top-level file, or a file directly in one of its subdirs."""
    parts = rel.split("/")
    return (len(parts) == 1 and parts[0] in TOP) or (len(parts) == 2 and parts[0] in SUBDIRS)


def check(out: Path) -> list[str]:
    """The soak's files to delete before a run; raise ``UsageError`` (touching nothing) when
    ``out`` holds anything that is not a soak's (see the module docstring)."""
    names = os.listdir(out) if out.is_dir() else []
    if not names:
        return []
    if not _is_regular(out / MARKER):
        raise UsageError(f"--out {show(out)}: not empty and not a `port soak` output directory (no {MARKER}); "
                         "choose a new or empty directory")
    listed = {rel for rel in _listed(out) if _ours(rel)}
    for sub in SUBDIRS:
        here = out / sub
        if here.is_dir() and not here.is_symlink():
            stray = sorted(n for n in os.listdir(here) if f"{sub}/{n}" not in listed)
            if stray:
                raise UsageError(f"--out {show(out)}: {show(here / stray[0])} was not written by a previous "
                                 f"`port soak` (not in {MARKER}); move it away or choose another directory")
        elif os.path.lexists(here):
            raise UsageError(f"--out {show(out)}: {show(here)} is not a directory `port soak` made")
    return sorted({*TOP, *listed})


def claim(out: Path) -> None:
    """Make ``out`` ready for a run: ``check``, then delete the soak's files (only through
    ``OutputDir``: never outside ``out``, never through a link) and write the marker."""
    owned = OutputDir(out)
    for rel in check(out):
        owned.unlink(rel)
    out.mkdir(parents=True, exist_ok=True)
    record(out)


def record(out: Path) -> None:
    """Rewrite the marker with the soak's files now in ``out``."""
    files = [name for name in TOP if _is_regular(out / name)]
    for sub in SUBDIRS:
        here = out / sub
        if here.is_dir() and not here.is_symlink():
            files += [f"{sub}/{n}" for n in sorted(os.listdir(here)) if _is_regular(here / n)]
    write_json(out / MARKER, {"schema": MARKER_SCHEMA, "files": files})
