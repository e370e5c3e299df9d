"""Probes: one small function per fact about the machine, each taking ``root`` and ``env``.

``probe_machine`` runs them all and returns a ``Machine`` record (typed, JSON-able). Probes
never import torch, never raise on a broken install, and record what they looked at.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..records import Record
from .compilers import HipPlatform, HostCompiler, probe_hip_platform, probe_host_compiler
from .cuda import CudaInfo, probe_cuda
from .fabric import FabricInfo, probe_fabric
from .fs import ListingCache
from .gpus import Gpu, GpuInfo, probe_gpus
from .packages import PackagesInfo, probe_packages
from .rocm import RocmInfo, probe_rocm
from .rocm_sdk import RocmSdkInfo, probe_rocm_sdk

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from typing import Any

MACHINE_SCHEMA = 1


class Machine(Record):
    root: str
    host: str
    rocm: RocmInfo
    cuda: CudaInfo
    devices: GpuInfo
    packages: PackagesInfo
    fabric: FabricInfo
    host_compiler: HostCompiler
    hip_platform: HipPlatform
    rocm_sdk: RocmSdkInfo  # the compile-only ROCm 7 toolchain (clang + SDK headers)

    @property
    def gpus(self) -> list[Gpu]:
        return self.devices.gpus

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": MACHINE_SCHEMA, "root": self.root, "host": self.host,
            "rocm": self.rocm.to_json(), "cuda": self.cuda.to_json(), "devices": self.devices.to_json(),
            "packages": self.packages.to_json(), "fabric": self.fabric.to_json(),
            "host_compiler": self.host_compiler.to_json(), "hip_platform": self.hip_platform.to_json(),
            "rocm_sdk": self.rocm_sdk.to_json(),
        }


def probe_machine(root: str | os.PathLike[str] = "/", env: Mapping[str, str] | None = None) -> Machine:
    """Probe the machine at filesystem prefix ``root`` as seen with environment ``env``."""
    with ListingCache():
        # a plain string, not a Path: pathlib alone costs `port detect` a third of its budget
        return _probe(os.path.normpath(os.fspath(root)), dict(os.environ if env is None else env))


def _probe(root_path: str, env: dict[str, str]) -> Machine:
    rocm = probe_rocm(root_path, env)
    cuda = probe_cuda(root_path, env)
    packages = probe_packages(root_path, env)
    return Machine(
        root=root_path,
        host=env.get("PORT_HOSTNAME") or os.uname().nodename,
        rocm=rocm,
        cuda=cuda,
        devices=probe_gpus(root_path),
        packages=packages,
        fabric=probe_fabric(root_path, rocm.home, cuda.home, packages.site_dirs),
        host_compiler=probe_host_compiler(root_path, env),
        hip_platform=probe_hip_platform(root_path, env, rocm.hipcc, rocm.home, cuda.home),
        rocm_sdk=probe_rocm_sdk(root_path, env),
    )


__all__ = ["Machine", "probe_machine", "Gpu", "RocmInfo", "CudaInfo", "GpuInfo", "PackagesInfo",
           "FabricInfo", "HostCompiler", "RocmSdkInfo", "HipPlatform", "MACHINE_SCHEMA"]
