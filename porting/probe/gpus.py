"""Probe: GPU devices, AMD through KFD topology, NVIDIA through the proc driver interface.

In a container, sysfs and /proc may list every GPU of the host while only some device nodes
were passed in (``--device=/dev/dri/renderD129``, ``--gpus device=1``); the runtimes enumerate
only GPUs whose node they can open, so a GPU counts here only when its node is present: AMD's
``/dev/dri/renderD<drm_render_minor>``, NVIDIA's ``/dev/nvidia<Device Minor>``. A GPU whose
driver entry does not name its node is counted (nothing says otherwise)."""

from __future__ import annotations

import re

from ..parsing import bounded_int
from ..records import Record, asdict
from . import fs

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root

KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"
NVIDIA_GPUS = "/proc/driver/nvidia/gpus"

# NVIDIA model name fragment -> SM architecture (only used to label reports).
_NV_ARCH = (("B200", "sm_100"), ("B100", "sm_100"), ("GB200", "sm_100"), ("H200", "sm_90"),
            ("H100", "sm_90"), ("H800", "sm_90"), ("GH200", "sm_90"), ("L40", "sm_89"), ("L4", "sm_89"),
            ("A100", "sm_80"), ("A800", "sm_80"), ("A10", "sm_86"), ("V100", "sm_70"), ("T4", "sm_75"))


class Gpu(Record):
    vendor: str  # "amd" | "nvidia"
    arch: str  # "gfx942", "sm_90", or "unknown"
    name: str
    source: str  # the file that told us


class GpuInfo(Record):
    gpus: list[Gpu] = []
    amd_device_node: bool = False  # /dev/kfd
    nvidia_device_node: bool = False  # /dev/nvidia0 ...
    evidence: list[str] = []
    problems: list[str] = []
    unreachable: list[str] = []  # GPUs the driver lists whose device node is not here (containers)

    def to_json(self) -> dict:
        return asdict(self)

    def of(self, vendor: str) -> list[Gpu]:
        return [g for g in self.gpus if g.vendor == vendor]


def gfx_name(target_version: int) -> str | None:
    """KFD ``gfx_target_version`` (major*10000 + minor*100 + stepping) -> ``gfx942`` / ``gfx90a``.
    None unless every field fits the name: major 1..99, minor and stepping one hex digit each."""
    major, minor, stepping = target_version // 10000, (target_version // 100) % 100, target_version % 100
    if not (1 <= major <= 99 and 0 <= minor <= 15 and 0 <= stepping <= 15):
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def _properties(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        value = bounded_int(parts[1], 20, signed=True) if len(parts) == 2 else None
        if value is not None:  # KFD values are 64-bit at most; '²' or 5000 digits are skipped
            out[parts[0]] = value
    return out


def probe_amd(root: Root, info: GpuInfo) -> None:
    """AMD GPUs: KFD topology nodes whose ``gfx_target_version`` is non-zero; ``/dev/kfd`` to use them."""
    info.amd_device_node = fs.exists(root, "/dev/kfd")
    info.evidence.append(f"/dev/kfd: {'present' if info.amd_device_node else 'absent'}")
    nodes = fs.listdir(root, KFD_NODES)
    if not nodes:
        info.evidence.append(f"{KFD_NODES}: absent")
        return
    for node in sorted(nodes, key=lambda n: bounded_int(n) or 0):
        path = f"{KFD_NODES}/{node}/properties"
        props = _properties(fs.read_text(root, path) or "")
        target = props.get("gfx_target_version", 0)
        if target <= 0:
            continue  # a CPU node
        arch = gfx_name(target)
        if arch is None:
            info.problems.append(f"{path}: gfx_target_version {target} is not a GPU architecture; node ignored")
            continue
        minor = props.get("drm_render_minor")
        if minor is not None and not fs.exists(root, f"/dev/dri/renderD{minor}"):
            info.unreachable.append(f"{path}: {arch}, but /dev/dri/renderD{minor} is not here (a GPU of the host "
                                    "not passed to this container); not counted")
            continue
        name = (fs.read_text(root, f"{KFD_NODES}/{node}/name") or arch).strip() or arch
        info.gpus.append(Gpu("amd", arch, name, path))
        info.evidence.append(f"{path}: gfx_target_version {target} -> {arch}")
    if info.of("amd") and not info.amd_device_node:
        info.problems.append("KFD topology lists AMD GPUs but /dev/kfd is missing (driver not loaded, "
                             "or the container lacks --device=/dev/kfd)")


def probe_nvidia(root: Root, info: GpuInfo) -> None:
    """NVIDIA GPUs: ``/proc/driver/nvidia/gpus/*/information``; ``/dev/nvidia<N>`` to use them."""
    info.nvidia_device_node = any(re.fullmatch(r"nvidia\d+", n) for n in fs.listdir(root, "/dev"))
    info.evidence.append(f"/dev/nvidia<N>: {'present' if info.nvidia_device_node else 'absent'}")
    entries = fs.listdir(root, NVIDIA_GPUS)
    if not entries:
        info.evidence.append(f"{NVIDIA_GPUS}: absent")
    for entry in entries:
        path = f"{NVIDIA_GPUS}/{entry}/information"
        text = fs.read_text(root, path) or ""
        m = re.search(r"^Model:\s*(.+)$", text, re.M)
        model = m.group(1).strip() if m else "NVIDIA GPU"
        arch = next((a for frag, a in _NV_ARCH if frag in model), "unknown")
        minor = re.search(r"^Device Minor:\s*(\d{1,6})\s*$", text, re.M)
        if minor is not None and not fs.exists(root, f"/dev/nvidia{int(minor.group(1))}"):
            info.unreachable.append(f"{path}: {model}, but /dev/nvidia{int(minor.group(1))} is not here (a GPU of "
                                    "the host not passed to this container); not counted")
            continue
        info.gpus.append(Gpu("nvidia", arch, model, path))
        info.evidence.append(f"{path}: {model} -> {arch}")
    if not entries and info.nvidia_device_node:
        info.gpus.append(Gpu("nvidia", "unknown", "NVIDIA GPU", "/dev/nvidia0"))


def probe_gpus(root: Root) -> GpuInfo:
    info = GpuInfo()
    probe_amd(root, info)
    probe_nvidia(root, info)
    return info
