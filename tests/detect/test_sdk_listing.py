"""The SDK manifest lists its tree through walk.list_entries: every non-directory entry with its
lstat, a symlink or FIFO as itself (a planted one must show up in the manifest), never followed."""

from __future__ import annotations

import os

from porting import sdk_manifest
from porting.walk import list_entries


def _reference(root: str, tops: tuple[str, ...]) -> dict[str, os.stat_result]:
    """The listing as os.walk gives it (what the manifest used before): files in listing order,
    then symlinked directories, then the subdirectories, sorted."""
    found: dict[str, os.stat_result] = {}
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in [*filenames, *(d for d in dirnames if os.path.islink(os.path.join(dirpath, d)))]:
                full = os.path.join(dirpath, name)
                found[os.path.relpath(full, root)] = os.lstat(full)
    return found


def _tree(tmp_path) -> str:
    root = tmp_path / "sdk"
    for d in ("include/b/c", "include/a", "lib", "other"):
        (root / d).mkdir(parents=True)
    for f in ("include/x.h", "include/b/y.h", "include/b/c/z.h", "lib/ocml.bc", "include/a/w", "other/o"):
        (root / f).write_text(f)
    (root / "include/zlink").symlink_to("/etc")
    (root / "include/alink").symlink_to(root / "include/b")
    (root / "include/broken").symlink_to("/no/such/target")
    (root / "include/xl.h").symlink_to("x.h")
    os.mkfifo(root / "include/b/fifo")
    return str(root)


def test_every_entry_as_itself_in_walk_order(tmp_path):
    root = _tree(tmp_path)
    got = list_entries(root, ("include", "lib"), 100)
    want = _reference(root, ("include", "lib"))
    assert list(got) == list(want) and got == want
    assert {"include/b/fifo", "include/zlink", "include/alink", "include/broken"} <= set(got)
    assert "include/b/y.h" in got and "include/alink/y.h" not in got  # a symlinked dir is not entered
    assert "other/o" not in got
    assert os.path.islink(os.path.join(root, "include/zlink")) and got["include/zlink"].st_size == len("/etc")


def test_the_limit_stops_the_listing_one_past_it(tmp_path):
    root = _tree(tmp_path)
    assert len(list_entries(root, ("include", "lib"), 3)) == 4


def test_a_planted_fifo_fails_the_manifest(tmp_path):
    root = str(tmp_path / "sdk")
    for rel in ("include/hip/hip_version.h", "lib/ocml.bc"):
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as fh:
            fh.write(rel)
    sdk_manifest.write(root)
    assert sdk_manifest.verify(root, None, full=False).ok
    os.mkfifo(os.path.join(root, "include/planted"))
    verdict = sdk_manifest.verify(root, None, full=False)
    assert not verdict.ok and "added include/planted" in verdict.why
