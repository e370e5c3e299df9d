"""The hipify step of the ROCm paths: convert ``native/`` into the build directory.

Uses ``porting.hipify.convert_tree`` (``port hipify``: byte-identical to torch.utils.hipify,
incremental, parallel). Skipped outright when the source tree is unchanged since the last
conversion (stamp = hash of every source file and the options).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from ..atomic import write_bytes
from ..errors import ToolError
from ..hipify import MANIFEST_NAME, HipifyOptions, Manifest
from ..hipify import convert_tree as hipify_tree
from .record import Step


def tree_digest(src: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(src)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


# Project mode (not PyTorch-extension mode): ``x.cu`` -> ``x.hip``; launches as hip-clang.
HIPIFY_OPTIONS = HipifyOptions(is_pytorch_extension=False, hip_clang_launch=True)
CONVERTER = "porting.hipify.convert_tree"


def convert_tree(src: Path, out: Path, jobs: int = 0) -> Step:
    """Hipify ``src`` into ``out`` (``port hipify``, incremental); returns the step for the build record.

    The stamp (hash of every source file) skips even loading hipify when nothing changed.
    A file that hipify could not convert is a ToolError naming it.
    """
    key = tree_digest(src) + ":" + CONVERTER + ":" + json.dumps(HIPIFY_OPTIONS.to_json(), sort_keys=True)
    stamp = out.with_name(out.name + ".stamp")
    step = Step("hipify", str(src), str(out), [CONVERTER, str(src), str(out)])
    if (out / MANIFEST_NAME).is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        step.cached = True
        return step
    started = time.monotonic()
    stamp.unlink(missing_ok=True)
    manifest = hipify_tree(src, out, jobs=jobs or None, options=HIPIFY_OPTIONS)
    step.seconds = round(time.monotonic() - started, 3)
    if not manifest.ok:
        bad = [f for f in manifest.files if f.status == "failed"]
        step.returncode = 1
        raise ToolError(f"hipify {src}: {len(bad)} file(s) failed, first {bad[0].source}: {bad[0].why}")
    write_bytes(stamp, (key + "\n").encode(), durable=False)  # replaces a symlink, never follows it
    return step


def converted_path(out: Path, rel: str) -> Path | None:
    """Where hipify put source ``rel`` (from the manifest: the hipified file, or its copy)."""
    manifest = Manifest.load(out / MANIFEST_NAME)
    entry = manifest.by_source().get(rel) if manifest else None
    if entry is None or entry.status not in ("converted", "unchanged") or not (entry.output or entry.copy):
        return None
    path = out / (entry.output or entry.copy or rel)
    return path if path.is_file() else None


def converted_include_dirs(out: Path, include_dirs: list[str]) -> list[Path]:
    dirs: list[Path] = []
    for rel in include_dirs:
        for d in (out / rel / "hip", out / rel):
            if d.is_dir():
                dirs.append(d)
    return dirs


__all__ = ["convert_tree", "converted_path", "converted_include_dirs", "tree_digest"]
