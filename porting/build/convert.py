"""The hipify step of the ROCm paths: convert ``native/`` into the build directory.

Uses ``porting.hipify.convert_tree`` (``port hipify``) when it is available, else
``torch.utils.hipify`` directly; one function, so the converter can be swapped. Skipped when
the source tree is unchanged since the last conversion (stamp = hash of every source file).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import shutil
import time
from pathlib import Path

from .record import Step

CONVERTED_SUFFIXES = {".cu": ".hip", ".cuh": ".cuh"}


def tree_digest(src: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(src)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _convert_with_torch(src: Path, out: Path) -> None:
    from torch.utils.hipify import hipify_python

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        hipify_python.hipify(project_directory=str(src), output_directory=str(out), includes=["*"],
                             is_pytorch_extension=False, show_detailed=False, show_progress=False,
                             hip_clang_launch=True)


def _converter() -> tuple[str, object]:
    try:
        from ..hipify import convert_tree  # type: ignore[attr-defined]
    except ImportError:
        return "torch.utils.hipify.hipify_python.hipify", None
    return "porting.hipify.convert_tree", convert_tree


def convert_tree(src: Path, out: Path, jobs: int = 0) -> Step:
    """Hipify ``src`` into ``out`` (replaced); returns the step for the build record."""
    name, fn = _converter()
    key = tree_digest(src) + ":" + name
    stamp = out.with_name(out.name + ".stamp")
    step = Step("hipify", str(src), str(out), [name, str(src), str(out)])
    if out.is_dir() and stamp.is_file() and stamp.read_text().strip() == key:
        step.cached = True
        return step
    started = time.monotonic()
    if out.exists():
        shutil.rmtree(out)
    stamp.unlink(missing_ok=True)
    if fn is not None:
        fn(str(src), str(out), jobs=jobs)  # type: ignore[operator]
    else:
        _convert_with_torch(src, out)
    step.seconds = round(time.monotonic() - started, 3)
    stamp.write_text(key + "\n")
    return step


def converted_path(out: Path, rel: str) -> Path | None:
    """Where the converter put ``rel``: hipify writes a changed file beside the original as
    ``name_hip.ext`` (``.cu`` -> ``.hip``), or into a ``hip/`` subdirectory (torch's
    out-of-place mode); an unchanged file keeps its name."""
    p = Path(rel)
    names = []
    if p.suffix in CONVERTED_SUFFIXES:
        names.append(p.stem + CONVERTED_SUFFIXES[p.suffix])
    names += [f"{p.stem}_hip{p.suffix}", p.name]
    for directory in (out / p.parent / "hip", out / p.parent):
        for name in names:
            if (directory / name).is_file():
                return directory / name
    return None


def converted_include_dirs(out: Path, include_dirs: list[str]) -> list[Path]:
    dirs: list[Path] = []
    for rel in include_dirs:
        for d in (out / rel / "hip", out / rel):
            if d.is_dir():
                dirs.append(d)
    return dirs


__all__ = ["convert_tree", "converted_path", "converted_include_dirs", "tree_digest"]
