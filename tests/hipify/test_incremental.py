"""Incremental re-runs: nothing redone when nothing changed, changes and deletions propagate."""

from __future__ import annotations

import os
from pathlib import Path

from porting.hipify import HipifyOptions, convert_tree, worker


def _count_tasks(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = worker.run_task

    def spy(task, session):
        seen.append(task.rel)
        return real(task, session)

    monkeypatch.setattr(worker, "run_task", spy)
    return seen


def test_warm_run_does_nothing_and_keeps_bytes(tmp_path: Path, hx, monkeypatch) -> None:
    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    out = tmp_path / "out"
    first = convert_tree(src, out, jobs=1)
    digest = hx.tree_digest(out)
    seen = _count_tasks(monkeypatch)
    second = convert_tree(src, out, jobs=1)
    assert seen == []
    assert hx.tree_digest(out) == digest
    assert [e.to_json() for e in second.files] == [e.to_json() for e in first.files]


def test_changed_header_flips_includers_and_matches_fresh_run(tmp_path: Path, hx, monkeypatch) -> None:
    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    out = tmp_path / "out"
    convert_tree(src, out, jobs=1)
    assert not (out / "util_hip.h").exists()
    assert '#include "util.h"' in (out / "a.hip").read_text()
    # util.h now uses CUDA: it gets a hipified copy, and every includer must point at it
    (src / "util.h").write_text("#pragma once\n#include <cuda_runtime.h>\ncudaError_t e();\n")
    seen = _count_tasks(monkeypatch)
    convert_tree(src, out, jobs=1)
    assert "util.h" in seen and "notes.txt" not in seen
    assert '#include "util_hip.h"' in (out / "a.hip").read_text()
    monkeypatch.undo()
    fresh = tmp_path / "fresh"
    convert_tree(src, fresh, jobs=2)
    assert hx.tree_digest(out) == hx.tree_digest(fresh)
    # and back again: the stale util_hip.h disappears
    (src / "util.h").write_text(hx.EDGE_TREE["util.h"])
    convert_tree(src, out, jobs=1)
    assert not (out / "util_hip.h").exists()
    assert '#include "util.h"' in (out / "a.hip").read_text()


def test_deleted_source_disappears_from_output(tmp_path: Path, hx) -> None:
    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    out = tmp_path / "out"
    convert_tree(src, out, jobs=2)
    assert (out / "host_hip.cpp").exists() and (out / "host.cpp").exists()
    (src / "host.cpp").unlink()
    manifest = convert_tree(src, out, jobs=2)
    assert not (out / "host_hip.cpp").exists() and not (out / "host.cpp").exists()
    assert "host.cpp" not in manifest.by_source()


def test_changed_options_rebuild(tmp_path: Path, hx, monkeypatch) -> None:
    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    out = tmp_path / "out"
    convert_tree(src, out, jobs=1)
    seen = _count_tasks(monkeypatch)
    convert_tree(src, out, jobs=1, options=HipifyOptions(is_pytorch_extension=False))
    assert len(seen) == len(hx.EDGE_TREE)
    assert not (out / "a.hip").exists() and (out / "hip" / "a.hip").exists()
    fresh = tmp_path / "fresh"
    convert_tree(src, fresh, jobs=1, options=HipifyOptions(is_pytorch_extension=False))
    assert hx.tree_digest(out) == hx.tree_digest(fresh)


def test_deleted_output_is_rebuilt_and_touch_without_change_is_cheap(tmp_path: Path, hx, monkeypatch) -> None:
    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    out = tmp_path / "out"
    convert_tree(src, out, jobs=1)
    digest = hx.tree_digest(out)
    (out / "a.hip").unlink()
    seen = _count_tasks(monkeypatch)
    convert_tree(src, out, jobs=1)
    assert seen == ["a.cu"]
    assert hx.tree_digest(out) == digest
    # touching sources (new mtime, same bytes) reprocesses nothing: the content hash decides
    for p in src.rglob("*"):
        if p.is_file():
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))
    seen.clear()
    convert_tree(src, out, jobs=1)
    assert seen == []
    # a real edit is reprocessed
    (src / "sub" / "deep.cpp").write_text(hx.EDGE_TREE["sub/deep.cpp"] + "void more() { cudaFree(0); }\n")
    convert_tree(src, out, jobs=1)
    assert seen == ["sub/deep.cpp"] and "hipFree" in (out / "sub" / "deep_hip.cpp").read_text()


def test_manifest_key_records_hipify_fingerprint(tmp_path: Path, hx) -> None:
    src = hx.write_tree(tmp_path / "src", {"x.cu": "__global__ void k() {}\n"})
    m = convert_tree(src, tmp_path / "out", jobs=1)
    assert m.key["hipify_version"] and len(m.key["hipify_tables_sha256"]) == 64
    assert m.key["options"]["is_pytorch_extension"] is True
    assert os.path.exists(tmp_path / "out" / ".port-hipify-manifest.json")
