"""hipify's CUDA -> HIP name table, loaded without importing torch (for `port audit`)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from ..hipify.engine import mappings_module


@lru_cache(maxsize=1)
def hipify_map() -> Mapping[str, str]:
    """Every CUDA name hipify renames -> its HIP name (later tables win, as in hipify)."""
    table: dict[str, str] = {}
    for mapping in mappings_module().CUDA_TO_HIP_MAPPINGS:
        for src, dst in mapping.items():
            table[src] = dst if isinstance(dst, str) else dst[0]
    return table
