"""hipify's CUDA -> HIP name table, loaded without importing torch (for `port audit`)."""

from __future__ import annotations

import importlib.util
import os
import sys
from functools import lru_cache
from typing import Mapping

from ..hipify.engine import hipify_dir


@lru_cache(maxsize=1)
def hipify_map() -> Mapping[str, str]:
    """Every CUDA name hipify renames -> its HIP name (later tables win, as in hipify)."""
    module = sys.modules.get("torch.utils.hipify.cuda_to_hip_mappings")
    if module is None:
        path = os.path.join(hipify_dir(), "cuda_to_hip_mappings.py")
        spec = importlib.util.spec_from_file_location("_port_audit_cuda_to_hip_mappings", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    table: dict[str, str] = {}
    for mapping in module.CUDA_TO_HIP_MAPPINGS:
        for src, dst in mapping.items():
            table[src] = dst if isinstance(dst, str) else dst[0]
    return table
