"""hipify's view of a source tree: the walk is the one of every command (``porting.walk``)."""

from __future__ import annotations

import fnmatch

from ..walk import Scan, SourceFile, scan_tree

__all__ = ["Scan", "SourceFile", "is_candidate", "scan_tree"]


def is_candidate(rel: str, out_abs: str, includes: list[str], ignores: list[str],
                 extensions: tuple[str, ...], exact: frozenset[str]) -> bool:
    """Would plain hipify process this file? (its ``matched_files_iter`` filter)."""
    top = rel.split("/", 1)[0]
    if "/" in rel and (top in (".git", "build")
                       or (top == "third_party" and not rel.startswith("third_party/nvfuser/"))):
        return False
    return (any(fnmatch.fnmatch(out_abs, p) for p in includes)
            and not any(fnmatch.fnmatch(out_abs, p) for p in ignores)
            and (out_abs.endswith(extensions) or out_abs in exact))
