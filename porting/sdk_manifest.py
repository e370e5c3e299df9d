"""The compile-only SDK's manifest: every file it holds, with its size, mtime and sha256.

`port sdk fetch` writes ``MANIFEST.json`` after unpacking the pinned wheel, checking the tree's
digest against the pinned one (``sdk_fetch.Pin.tree_sha256``: the unpacked headers and device
libraries of that wheel, the same on every machine). The probe verifies the manifest each time
an SDK is selected, cheaply (every file's size and mtime, and no file added or removed); `port
sdk verify` and every fetch re-hash every file. A directory planted in the SDK cache, a header
edited after the fetch, or a manifest rewritten to match (its tree digest is not the pinned
one) is not used, and what was used is what the reports name.
"""

from __future__ import annotations

import os
import stat

from .errors import PortError
from .parsing import loads_json

MANIFEST = "MANIFEST.json"
SCHEMA = "rocm-port/sdk-manifest/1"
CONTENT_DIRS = ("include", "lib")  # what the SDK is; SOURCE.json and the manifest describe it
_MAX_FILES = 10_000
_MAX_MANIFEST = 4 << 20


class Verdict:
    """The outcome of a manifest check. A plain class, and hashlib imported only where a file is
    hashed: the probe runs the cheap check on every `port detect`, whose start-up is held small."""

    __slots__ = ("ok", "why", "tree_sha256")

    def __init__(self, ok: bool, why: str, tree_sha256: str = "") -> None:
        self.ok = ok
        self.why = why  # one line: what was checked, or what is wrong
        self.tree_sha256 = tree_sha256


def _files(sdk: str) -> dict[str, os.stat_result]:
    """rel path -> lstat of every entry under the content dirs (a symlink or FIFO is listed as itself)."""
    from .walk import list_entries

    return list_entries(sdk, CONTENT_DIRS, _MAX_FILES)


def _sha256(path: str) -> str:
    import hashlib

    from .walk import read_regular

    data = read_regular(path, 256 << 20)
    return hashlib.sha256(data).hexdigest() if data is not None else "unreadable"


def tree_digest(hashes: dict[str, str]) -> str:
    import hashlib

    h = hashlib.sha256()
    for rel in sorted(hashes):
        h.update(f"{rel}\0{hashes[rel]}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def build(sdk: str) -> dict:
    """The manifest of ``sdk`` as it is now (every file hashed)."""
    entries: dict[str, dict] = {}
    hashes: dict[str, str] = {}
    for rel, st in sorted(_files(sdk).items()):
        hashes[rel] = _sha256(os.path.join(sdk, rel)) if stat.S_ISREG(st.st_mode) else "not a regular file"
        entries[rel] = {"sha256": hashes[rel], "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    return {"schema": SCHEMA, "tree_sha256": tree_digest(hashes), "files": entries}


def load(sdk: str) -> dict | None:
    from .walk import read_regular

    data = read_regular(os.path.join(sdk, MANIFEST), _MAX_MANIFEST)
    if data is None:
        return None
    try:
        manifest = loads_json(data.decode("utf-8"), os.path.join(sdk, MANIFEST))
    except (PortError, UnicodeDecodeError):
        return None
    ok = isinstance(manifest, dict) and manifest.get("schema") == SCHEMA and isinstance(manifest.get("files"), dict)
    return manifest if ok else None


def verify(sdk: str, pinned: str | None, full: bool) -> Verdict:
    """Does ``sdk`` hold exactly the files of its manifest, and is that the pinned tree?
    ``full``: re-hash every file; else sizes and mtimes (what the probe does on every use)."""
    manifest = load(sdk)
    if manifest is None:
        return Verdict(False, f"{sdk}/{MANIFEST}: absent or not a manifest (run `port sdk fetch`)")
    listed: dict = manifest["files"]
    if pinned is not None and manifest.get("tree_sha256") != pinned:
        return Verdict(False, f"{sdk}: its manifest's tree is not the pinned SDK ({manifest.get('tree_sha256')!s:.16} "
                              f"!= {pinned:.16})")
    try:
        present = _files(sdk)
    except OSError as exc:
        return Verdict(False, f"{sdk}: cannot list: {exc.strerror or exc}")
    added = sorted(set(present) - set(listed))
    removed = sorted(set(listed) - set(present))
    if added or removed:
        which = (f"added {added[0]}" if added else f"removed {removed[0]}") + (
            f" and {len(added) + len(removed) - 1} more" if len(added) + len(removed) > 1 else "")
        return Verdict(False, f"{sdk}: files differ from its manifest ({which})")
    for rel, st in present.items():
        entry = listed[rel]
        if not isinstance(entry, dict) or not stat.S_ISREG(st.st_mode) or st.st_size != entry.get("size") \
                or (not full and st.st_mtime_ns != entry.get("mtime_ns")):
            return Verdict(False, f"{sdk}: {rel} changed since `port sdk fetch` (size, mtime or type)")
    if full:
        hashes = {rel: _sha256(os.path.join(sdk, rel)) for rel in present}
        bad = sorted(rel for rel, digest in hashes.items() if digest != listed[rel].get("sha256"))
        if bad:
            return Verdict(False, f"{sdk}: {bad[0]} does not match its sha256 in the manifest")
        if tree_digest(hashes) != manifest.get("tree_sha256"):
            return Verdict(False, f"{sdk}: the manifest's tree digest does not match its files")
    how = "every file re-hashed" if full else "sizes and mtimes of every file"
    return Verdict(True, f"{sdk}: matches its manifest ({how}; tree sha256 {manifest['tree_sha256'][:16]})",
                   str(manifest["tree_sha256"]))


def write(sdk: str) -> dict:
    """Write ``sdk``'s manifest (atomically) and return it."""
    from .atomic import write_json

    manifest = build(sdk)
    write_json(os.path.join(sdk, MANIFEST), manifest)
    return manifest
