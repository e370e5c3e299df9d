"""Walk a source tree robustly: follow symlinks that stay in it, detect loops, report what cannot be read."""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass

from ..paths import source_link_problem


@dataclass
class SourceFile:
    rel: str  # POSIX-style path relative to the source root
    path: str  # absolute path to read from
    size: int = 0
    mtime_ns: int = 0
    mode: int = 0o644
    problem: str | None = None  # set for entries that cannot be copied or converted
    problem_status: str = "skipped"  # "skipped" or "failed"


@dataclass
class Scan:
    files: list[SourceFile]
    dirs: list[str]  # relative directory paths (including "")


def scan_tree(root: str, exclude: str | None = None, out_real: str | None = None,
              follow_external: bool = False) -> Scan:
    """Every file under ``root`` (symlinks followed, loops reported), in os.walk order.

    ``exclude`` is an absolute directory not to enter (the output directory when it lies
    inside the source tree). A symlink is followed only where ``porting.paths`` allows it:
    its target stays inside ``root`` (or ``follow_external``) and is not in ``out_real``, the
    real output directory; otherwise it is reported ``skipped`` with the reason.
    """
    files: list[SourceFile] = []
    dirs: list[str] = []
    root_real = os.path.realpath(root)

    def walk(abs_dir: str, rel_dir: str, ancestors: frozenset[tuple[int, int]]) -> None:
        # os.walk order (a directory's files, then its subdirectories, in listing order), which is
        # the order plain hipify processes files in; it matters for include cycles and name clashes.
        dirs.append(rel_dir)
        try:
            entries = list(os.scandir(abs_dir))
        except OSError as exc:
            files.append(SourceFile(rel_dir or ".", abs_dir, problem=f"cannot list directory: {exc.strerror or exc}",
                                    problem_status="failed"))
            return
        subdirs: list[tuple[str, str, frozenset[tuple[int, int]]]] = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            full = os.path.join(abs_dir, entry.name)
            if exclude is not None and full == exclude:
                continue
            if entry.is_symlink():
                why = source_link_problem(full, root_real, out_real, follow_external)
                if why is not None and os.path.exists(full):  # broken links and loops: below
                    files.append(SourceFile(rel, full, problem=why))
                    continue
            try:
                st = os.stat(full)  # follows symlinks
            except OSError as exc:
                if entry.is_symlink():
                    why = "symlink loop" if exc.errno == 40 else f"broken symlink ({exc.strerror or exc})"
                    files.append(SourceFile(rel, full, problem=why))
                else:
                    files.append(SourceFile(rel, full, problem=f"cannot stat: {exc.strerror or exc}",
                                            problem_status="failed"))
                continue
            if stat.S_ISDIR(st.st_mode):
                ident = (st.st_dev, st.st_ino)
                if ident in ancestors:
                    files.append(SourceFile(rel, full, problem="symlink loop (points back to an enclosing directory)"))
                    continue
                subdirs.append((full, rel, ancestors | {ident}))
            elif stat.S_ISREG(st.st_mode):
                files.append(SourceFile(rel, full, st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode)))
            else:
                files.append(SourceFile(rel, full, problem="not a regular file (device, socket or FIFO)"))
        for full, rel, anc in subdirs:
            walk(full, rel, anc)

    root_st = os.stat(root)
    walk(root, "", frozenset({(root_st.st_dev, root_st.st_ino)}))
    return Scan(files, dirs)


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
