"""What headers declare, read by clang: ``declared_names(...) -> HeaderNames``.

    from porting.headers import declared_names
    names = declared_names(["hip/hip_runtime_api.h"], include_dirs=[sdk / "include"], language="hip")
    names.kinds("hipMalloc")          # ['function']
    names.decls["hipMalloc"].nodiscard  # True on ROCm 7 (hipError_t is [[nodiscard]])
"""

from __future__ import annotations

from .model import HEADER_NAMES_SCHEMA, KINDS, Decl, HeaderNames
from .reader import LANGUAGES, declared_names

__all__ = ["HEADER_NAMES_SCHEMA", "KINDS", "LANGUAGES", "Decl", "HeaderNames", "declared_names"]
