"""Byte identity with plain torch.utils.hipify, across modes and worker counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.hipify import HipifyOptions, convert_tree


@pytest.mark.parametrize("extension", [True, False])
def test_edge_tree_matches_plain_hipify(tmp_path: Path, extension: bool, hx) -> None:
    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    before = hx.tree_digest(src)
    hx.run_plain_hipify(src, tmp_path / "plain", extension=extension, header_include_dirs=("inc",))
    opts = HipifyOptions(is_pytorch_extension=extension, header_include_dirs=("inc",))
    for jobs in (1, 2):
        out = tmp_path / f"ours{jobs}"
        manifest = convert_tree(src, out, jobs=jobs, options=opts)
        assert manifest.ok
        assert hx.tree_digest(out) == hx.tree_digest(tmp_path / "plain")
    assert hx.tree_digest(src) == before  # SRC untouched


def test_generated_corpus_matches_plain_hipify(tmp_path: Path, generator, hx) -> None:
    src = tmp_path / "corpus"
    stats = generator.generate(src, files=60, lines_per_file=120, seed=3)
    assert stats["files"] >= 50
    before = hx.tree_digest(src)
    hx.run_plain_hipify(src, tmp_path / "plain")
    manifest = convert_tree(src, tmp_path / "ours", jobs=2)
    assert manifest.summary["converted"] > 0 and manifest.summary["unchanged"] > 0
    plain = hx.tree_digest(tmp_path / "plain")
    assert hx.tree_digest(tmp_path / "ours") == plain
    assert hx.tree_digest(src) == before
    # hipify's renames are in the manifest and on disk
    entries = manifest.by_source()
    cu = next(e for s, e in entries.items() if s.endswith(".cu") and "/cuda/" not in s)
    assert cu.status == "converted" and cu.output == cu.source[:-3] + ".hip" and cu.output in plain


def test_hip_clang_launch_option_matches_plain(tmp_path: Path, hx) -> None:
    src = hx.write_tree(tmp_path / "src", {"k.cu": hx.EDGE_TREE["a.cu"], "util.h": hx.EDGE_TREE["util.h"],
                                         "kern.cuh": "#pragma once\n"})
    hx.run_plain_hipify(src, tmp_path / "plain", hip_clang_launch=True)
    convert_tree(src, tmp_path / "ours", jobs=1, options=HipifyOptions(hip_clang_launch=True))
    assert hx.tree_digest(tmp_path / "ours") == hx.tree_digest(tmp_path / "plain")
    assert b"<<<" in (tmp_path / "ours" / "k.hip").read_bytes()


def test_spawned_workers_give_the_same_bytes(tmp_path: Path, hx, monkeypatch) -> None:
    """When fork is unsafe (threads, torch loaded) workers are spawned and get the context
    through the pool initializer; the output must not change."""
    import multiprocessing

    from porting.hipify import convert as convert_mod

    src = hx.write_tree(tmp_path / "src", hx.EDGE_TREE)
    convert_tree(src, tmp_path / "forked", jobs=2)
    monkeypatch.setattr(convert_mod, "mp_context", lambda: multiprocessing.get_context("spawn"))
    convert_tree(src, tmp_path / "spawned", jobs=2)
    assert hx.tree_digest(tmp_path / "spawned") == hx.tree_digest(tmp_path / "forked")


def test_lone_carriage_returns_match_plain_hipify(tmp_path: Path, hx) -> None:
    """Old Mac line ends (a lone ``\\r``) and a mix of all three: plain hipify reads with universal
    newlines, so every ``\\r`` becomes ``\\n``; ours must give the same bytes, not keep the ``\\r``."""
    src = hx.write_tree(tmp_path / "src", {
        "mac.cu": b'#include <cuda_runtime.h>\r__global__ void k(float* x) { x[0] = 1; }\r'
                  b"void run(float* x) { cudaMalloc(&x, 4); k<<<1, 1>>>(x); cudaDeviceSynchronize(); }\r",
        "mixed.cu": b"void a() { cudaFree(0); }\rvoid b() { cudaFree(0); }\r\nvoid c() { cudaFree(0); }\n\r",
    })
    hx.run_plain_hipify(src, tmp_path / "plain")
    convert_tree(src, tmp_path / "ours", jobs=1)
    plain = hx.tree_digest(tmp_path / "plain")
    assert hx.tree_digest(tmp_path / "ours") == plain
    out = (tmp_path / "ours" / "mixed.hip").read_bytes()
    assert b"\r" not in out and out.count(b"hipFree") == 3
