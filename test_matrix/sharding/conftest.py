"""Sharding pack helpers: which ranks take part in each named mesh."""

from __future__ import annotations

import pytest

from porting.matrix.rank_pool import mesh_layouts

MESH_WORLD = {"1d-2": 2, "1d-4": 4, "2d-2x2": 4}


def mesh_ranks(name: str) -> list[int]:
    return mesh_layouts(MESH_WORLD[name])[name][0]


def mesh_param(name: str):
    """A mesh name as a parameter carrying its world-size requirement."""
    return pytest.param(name, marks=pytest.mark.requires(world_size=MESH_WORLD[name]), id=name)


def run_folded(rank_pool, fn, ranks, variants):
    """Run ``fn`` once per (label, kwargs) in ``variants``: a kept case and the cases folded
    into it because porting.matrix.pathsets recorded the same path for them (docs/matrix.md,
    Balance). Every variant runs; one AssertionError names each failing one."""
    failures, outs = [], []
    for label, kwargs in variants:
        try:
            outs.append(rank_pool.run(fn, ranks=ranks, **kwargs))
        except AssertionError as exc:  # a RankFailure; a broken pool (PoolBroken) propagates
            failures.append(f"{label}: {exc}")
    assert not failures, f"{len(failures)} of {len(variants)} failed:\n" + "\n".join(failures)
    return outs
