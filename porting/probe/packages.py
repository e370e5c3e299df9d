"""Probe: the installed torch build flavour and subject versions, without importing anything.

torch: ``torch/version.py`` on the Python path (``__version__``, ``cuda``, ``hip``).
torchmonarch / torchft: the ``Version:`` line of their ``*.dist-info/METADATA``.
Search path: ``PYTHONPATH`` entries, then this interpreter's ``sys.path``, all under ``root``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping

from ..records import Record, asdict
from . import fs

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root

_ASSIGN = re.compile(r"^(__version__|cuda|hip)\s*(?::[^=]*)?=\s*(.+?)\s*$", re.M)


class TorchInfo(Record):
    found: bool = False
    location: str | None = None
    version: str | None = None
    cuda: str | None = None
    hip: str | None = None
    evidence: list[str] = []

    @property
    def flavour(self) -> str:
        return "rocm" if self.hip else "cuda" if self.cuda else "cpu" if self.found else "none"

    def to_json(self) -> dict:
        return {**asdict(self), "flavour": self.flavour}


class PackagesInfo(Record):
    torch: TorchInfo
    monarch: str | None = None  # torchmonarch version
    torchft: str | None = None
    site_dirs: list[str] = []

    @property
    def monarch_flavour(self) -> str:
        """The GPU build torchmonarch was made as: ``rocm`` when its version says so (a local
        ``+rocm...`` tag), else ``cuda`` (its PyPI wheels are CUDA builds; their shared
        objects dlopen the runtime, so nothing cheaper to read tells more), ``none`` if absent."""
        if not self.monarch:
            return "none"
        return "rocm" if "rocm" in self.monarch.partition("+")[2].lower() else "cuda"

    def to_json(self) -> dict:
        return {"torch": self.torch.to_json(), "monarch": self.monarch, "monarch_flavour": self.monarch_flavour,
                "torchft": self.torchft}


def search_path(env: Mapping[str, str]) -> list[str]:
    entries = [p for p in env.get("PYTHONPATH", "").split(":") if p] + [p for p in sys.path if p]
    seen: list[str] = []
    for entry in entries:
        if entry.startswith("/") and entry not in seen and not entry.endswith(".zip"):
            seen.append(entry)
    return seen


def _literal(text: str) -> str | None:
    text = text.strip()
    if text == "None":
        return None
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return None


def probe_torch(root: Root, dirs: list[str]) -> TorchInfo:
    info = TorchInfo()
    for directory in dirs:
        path = f"{directory}/torch/version.py"
        text = fs.read_text(root, path)
        if text is None:
            continue
        values = {k: _literal(v) for k, v in _ASSIGN.findall(text)}
        info.found, info.location = True, path
        info.version, info.cuda, info.hip = values.get("__version__"), values.get("cuda"), values.get("hip")
        info.evidence.append(f"{path}: version={info.version} cuda={info.cuda} hip={info.hip}")
        return info
    info.evidence.append("torch/version.py: not found on the Python path")
    return info


def dist_version(root: Root, dirs: list[str], dist: str) -> str | None:
    """Version of distribution ``dist`` from its dist-info METADATA (no import)."""
    prefix = dist.replace("-", "_") + "-"
    for directory in dirs:
        for name in fs.glob_names(root, directory, prefix):
            if name.endswith(".dist-info"):
                text = fs.read_text(root, f"{directory}/{name}/METADATA", limit=8192) or ""
                m = re.search(r"^Version:\s*(\S+)", text, re.M)
                if m:
                    return m.group(1)
    return None


def probe_packages(root: Root, env: Mapping[str, str]) -> PackagesInfo:
    dirs = search_path(env)
    return PackagesInfo(torch=probe_torch(root, dirs), monarch=dist_version(root, dirs, "torchmonarch"),
                        torchft=dist_version(root, dirs, "torchft"), site_dirs=dirs)
