"""Probe: collective libraries (RCCL / NCCL) and RDMA NICs (``/sys/class/infiniband``)."""

from __future__ import annotations

from ..records import Record, asdict
from . import fs

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root

LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")
IB_CLASS = "/sys/class/infiniband"


class Nic(Record):
    name: str
    link_layer: str  # "InfiniBand" | "Ethernet" (RoCE) | "unknown"
    state: str  # e.g. "4: ACTIVE"


class FabricInfo(Record):
    rccl: str | None = None
    nccl: str | None = None
    nics: list[Nic] = []
    evidence: list[str] = []

    @property
    def rdma_backend(self) -> str:
        """``ibverbs`` when a NIC port is ACTIVE, else ``tcp`` (Monarch's fallback)."""
        return "ibverbs" if any("ACTIVE" in n.state for n in self.nics) else "tcp"

    def to_json(self) -> dict:
        return {**asdict(self), "rdma_backend": self.rdma_backend}


def _find_lib(root: Root, dirs: list[str], stem: str) -> str | None:
    for directory in dirs:
        names = fs.glob_names(root, directory, f"{stem}.so")
        if names:
            return f"{directory}/{min(names, key=len)}"
    return None


def probe_fabric(root: Root, rocm_home: str | None, cuda_home: str | None, site_dirs: list[str]) -> FabricInfo:
    info = FabricInfo()
    torch_libs = [f"{d}/torch/lib" for d in site_dirs]
    rccl_dirs = ([f"{rocm_home}/lib"] if rocm_home else []) + list(LIB_DIRS) + torch_libs
    nccl_dirs = ([f"{cuda_home}/lib64", f"{cuda_home}/lib"] if cuda_home else []) + list(LIB_DIRS) + \
        torch_libs + [f"{d}/nvidia/nccl/lib" for d in site_dirs]
    info.rccl = _find_lib(root, rccl_dirs, "librccl")
    info.nccl = _find_lib(root, nccl_dirs, "libnccl")
    info.evidence.append(f"librccl: {info.rccl or 'not found'}")
    info.evidence.append(f"libnccl: {info.nccl or 'not found'}")
    for name in fs.listdir(root, IB_CLASS):
        ports = fs.listdir(root, f"{IB_CLASS}/{name}/ports")
        port = ports[0] if ports else "1"
        link = (fs.read_text(root, f"{IB_CLASS}/{name}/ports/{port}/link_layer") or "unknown").strip()
        state = (fs.read_text(root, f"{IB_CLASS}/{name}/ports/{port}/state") or "unknown").strip()
        info.nics.append(Nic(name, link, state))
        info.evidence.append(f"{IB_CLASS}/{name}: {link}, port {port} {state}")
    if not info.nics:
        info.evidence.append(f"{IB_CLASS}: no RDMA NICs")
    return info
