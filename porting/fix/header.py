"""The definition of ``GPU_FULL_MASK`` that a repaired file gets, inlined and guarded.

It is the definition of rocm-port's portable header (hip_aliases/include/hip_aliases/gpu_runtime.h,
read from there so there is one source): a repaired file must still build where that header is
not on the include path, so the guarded lines go into the file itself, after its last leading
``#include``, once; a file that already defines the macro gets nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import assets
from ..errors import PortError
from .model import Repair
from .source import Source

MACRO = "GPU_FULL_MASK"
_BLOCK = re.compile(r"#ifndef GPU_FULL_MASK\n#define GPU_FULL_MASK [^\n]+\n#endif\n")
_INCLUDE_LINE = re.compile(r"^[ \t]*#[ \t]*include\b[^\n]*\n", re.MULTILINE)
_CODE_START = re.compile(r"^[ \t]*(?!#|$)\S", re.MULTILINE)


@lru_cache(maxsize=1)
def block() -> str:
    """The guarded definition, as the portable header writes it."""
    path = assets.aliases_include() / "hip_aliases" / "gpu_runtime.h"
    try:
        m = _BLOCK.search(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PortError(f"{path}: cannot read the portable header: {exc.strerror or exc}") from None
    if m is None:
        raise PortError(f"{path}: the portable header does not define {MACRO} (guarded by #ifndef)")
    return "// port fix: the full lane mask at any warp width (rocm-port hip_aliases/gpu_runtime.h)\n" + m.group()


def insertion(src: Source) -> Repair | None:
    """The repair that adds the definition, or None when the file defines the macro already."""
    if re.search(r"#[ \t]*define[ \t]+" + MACRO + r"\b", src.code):
        return None
    first_code = _CODE_START.search(src.code)
    limit = first_code.start() if first_code else len(src.code)
    at = 0
    for m in _INCLUDE_LINE.finditer(src.code, 0, limit):
        if not src.guarded(m.start()):
            at = m.end()
    if at and not src.text[:at].endswith("\n"):
        at = len(src.text[:at])
    return src.repair(at, at, block(), "warp-mask-32bit", "header",
                      f"defines {MACRO} (as rocm-port's portable header does) for the repaired masks")
