"""The one tree walker and bounded file reader of every command that reads a source tree.

`port hipify`, `port audit`, `port aliases scan`, `port check`, `port emulate` and the project
source scan all walk SRC through ``scan_tree``/``source_files`` and read what they find through
``read_regular``/``read_head``, so that one rule holds everywhere:

- only regular files are returned; a FIFO, socket or device named like a source file is
  reported, never opened (opening a FIFO for reading blocks until a writer comes: a hang);
- a symlink is followed only where ``porting.paths.source_link_problem`` allows it: its target
  stays inside the root (unless the user asks for external targets) and is not in the output
  directory; a loop is reported, not entered twice;
- the output directory, when it lies inside the tree, is not entered (its copies are not the
  user's code, and the next run would feed on them);
- a read is bounded: a file larger than the caller's limit is reported, never loaded whole.
  The reader opens with ``O_NONBLOCK`` and checks the *opened* file is regular, so a file
  swapped for a FIFO between the walk and the read still cannot hang it.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` scans sources through here
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

MAX_SOURCE_BYTES = 64 << 20  # a source file larger than this is generated data, not code to port
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
SKIP_DIRS = VCS_DIRS | {"build", "__pycache__", "node_modules"}


class _NotRegular(Exception):
    pass


def _open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _NotRegular
    return fd, st


def read_regular(path: str | os.PathLike[str], limit: int = MAX_SOURCE_BYTES) -> bytes | None:
    """The whole content of a regular file of at most ``limit`` bytes; None for anything else
    (missing, unreadable, not regular, larger than ``limit``). ``why_unreadable`` says which."""
    try:
        fd, st = _open_regular(path)
    except (OSError, _NotRegular):
        return None
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > limit:
            return None
        # sized by fstat: read(limit + 1) allocated a buffer of the limit (64 MiB) for every file,
        # 0.1 ms each; a file that grew since fstat is read on up to the limit, as before
        data = fh.read(st.st_size + 1)
        if len(data) > st.st_size:
            data += fh.read(limit + 1 - len(data))
    return None if len(data) > limit else data


def read_head(path: str | os.PathLike[str], size: int) -> bytes | None:
    """The first ``size`` bytes of a regular file (a header sniff); None when not a readable regular file."""
    try:
        fd, _ = _open_regular(path)
    except (OSError, _NotRegular):
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read(size)


def why_unreadable(path: str | os.PathLike[str], limit: int = MAX_SOURCE_BYTES) -> str:
    """One line: why ``read_regular(path, limit)`` returned None."""
    try:
        fd, st = _open_regular(path)
    except _NotRegular:
        return "not a regular file (device, socket or FIFO)"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    os.close(fd)
    return f"larger than {limit} bytes ({st.st_size}), not read" if st.st_size > limit else "changed while read"


class SourceFile:
    """One entry of a walk. Plain classes here, not dataclasses: `port detect` walks the project's
    sources through this module, and dataclasses (inspect, copy) would double its start-up."""

    __slots__ = ("rel", "path", "size", "mtime_ns", "mode", "problem", "problem_status")

    def __init__(self, rel: str, path: str, size: int = 0, mtime_ns: int = 0, mode: int = 0o644,
                 problem: str | None = None, problem_status: str = "skipped") -> None:
        self.rel = rel  # POSIX-style path relative to the source root
        self.path = path  # absolute path to read from
        self.size = size
        self.mtime_ns = mtime_ns
        self.mode = mode
        self.problem = problem  # set for entries that cannot be copied or converted
        self.problem_status = problem_status  # "skipped" or "failed"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceFile) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "SourceFile(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


class Scan:
    __slots__ = ("files", "dirs")

    def __init__(self, files: list[SourceFile], dirs: list[str]) -> None:
        self.files = files
        self.dirs = dirs  # relative directory paths (including "")

    def regular(self) -> list[SourceFile]:
        return [f for f in self.files if f.problem is None]

    def problems(self) -> list[str]:
        return [f"{f.path}: {f.problem}" for f in self.files if f.problem is not None]


def scan_tree(root: str, exclude: str | None = None, out_real: str | None = None,
              follow_external: bool = False, skip_dir: Callable[[str], bool] | None = None) -> Scan:
    """Every file under ``root`` (symlinks followed where allowed, loops reported), in os.walk order.

    ``exclude`` is an absolute directory not to enter (the output directory when it lies
    inside the source tree). A symlink is followed only where ``porting.paths`` allows it:
    its target stays inside ``root`` (or ``follow_external``) and is not in ``out_real``, the
    real output directory; otherwise it is reported ``skipped`` with the reason. ``skip_dir``
    names directories not to enter (VCS and build directories for the commands that skip them).
    """
    files: list[SourceFile] = []
    dirs: list[str] = []
    root_real = os.path.realpath(root)
    exclude_id = _identity(exclude)  # by inode: the output dir is skipped under any name that reaches it

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
            st = _entry_stat(entry, full, rel, root_real, out_real, follow_external, files)
            if st is None:
                continue
            if stat.S_ISDIR(st.st_mode):
                ident = (st.st_dev, st.st_ino)
                if ident == exclude_id or (skip_dir is not None and skip_dir(entry.name)):
                    continue
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


def _identity(path: str | None) -> tuple[int, int] | None:
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return None
    return None if st is None else (st.st_dev, st.st_ino)


def _entry_stat(entry: os.DirEntry, full: str, rel: str, root_real: str, out_real: str | None,
                follow_external: bool, files: list[SourceFile]) -> os.stat_result | None:
    """The entry's stat (through an allowed symlink), or None after recording why not."""
    if entry.is_symlink():
        from .paths import source_link_problem  # only for symlinks: paths imports typing

        why = source_link_problem(full, root_real, out_real, follow_external)
        if why is not None and os.path.exists(full):  # broken links and loops: below
            files.append(SourceFile(rel, full, problem=why))
            return None
    try:
        return os.stat(full)  # follows symlinks
    except OSError as exc:
        if entry.is_symlink():
            why = "symlink loop" if exc.errno == 40 else f"broken symlink ({exc.strerror or exc})"
            files.append(SourceFile(rel, full, problem=why))
        else:
            files.append(SourceFile(rel, full, problem=f"cannot stat: {exc.strerror or exc}",
                                    problem_status="failed"))
        return None


def list_entries(root: str, tops: Iterable[str], limit: int) -> dict[str, os.stat_result]:
    """Every entry under ``root/<top>`` that is not a directory, keyed by its path relative to
    ``root``, with its ``lstat``: a symlink (to a file or a directory), a FIFO, socket or device
    is listed as itself, never followed or opened (what a manifest of a tree must see). Order:
    a directory's non-directories in listing order, then its symlinked directories sorted, then
    its subdirectories sorted, entered (never through a symlink); an unlistable directory is
    skipped. Stops after ``limit + 1`` entries (the caller sees it held more than ``limit``)."""
    found: dict[str, os.stat_result] = {}

    def visit(rel_dir: str) -> bool:  # False: the limit was passed, stop
        try:
            with os.scandir(f"{root}/{rel_dir}") as it:
                entries = list(it)
        except OSError:
            return True
        subdirs: list[str] = []
        links: list[os.DirEntry] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # through a symlink, as os.walk decides
            except OSError:
                is_dir = False
            if is_dir and entry.is_symlink():
                links.append(entry)
                continue
            if is_dir:
                subdirs.append(entry.name)
                continue
            found[f"{rel_dir}/{entry.name}"] = entry.stat(follow_symlinks=False)
            if len(found) > limit:
                return False
        for link in sorted(links, key=lambda e: e.name):
            found[f"{rel_dir}/{link.name}"] = link.stat(follow_symlinks=False)
            if len(found) > limit:
                return False
        return all(visit(f"{rel_dir}/{name}") for name in sorted(subdirs))

    for top in tops:
        if not visit(top):
            break
    return found


def skip_tool_dirs(name: str) -> bool:
    """VCS, build and hidden directories: not the user's sources (audit, aliases, check)."""
    return name in SKIP_DIRS or name.startswith(".")


def source_files(roots: Iterable[str | os.PathLike[str]], *, exclude: str | os.PathLike[str] | None = None,
                 follow_external: bool = False, skip_dir: Callable[[str], bool] | None = skip_tool_dirs,
                 ) -> tuple[list[str], list[str]]:
    """(absolute paths of the regular files under each root, sorted; "PATH: why" for each entry
    not returned). A root that is itself a file is returned as given when it is regular."""
    found: list[str] = []
    problems: list[str] = []
    out_real = os.path.realpath(exclude) if exclude is not None else None
    for raw in roots:
        root = os.path.abspath(os.fspath(raw))
        if not os.path.isdir(root):
            if os.path.isfile(root):
                found.append(root)
            else:
                problems.append(f"{root}: not a regular file or directory")
            continue
        scan = scan_tree(root, exclude=out_real, out_real=out_real, follow_external=follow_external,
                         skip_dir=skip_dir)
        found += sorted(f.path for f in scan.regular())
        problems += scan.problems()
    return found, problems
