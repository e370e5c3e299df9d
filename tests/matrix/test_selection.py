"""Deterministic sharding (--shard I/N)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porting.errors import UsageError
from porting.matrix.selection import parse_shard, select


@given(ids=st.lists(st.text(min_size=1, max_size=12), unique=True, max_size=60), total=st.integers(1, 7))
def test_shards_partition_the_ids_evenly(ids, total):
    shards = [select(ids, i, total) for i in range(1, total + 1)]
    flat = [n for s in shards for n in s]
    assert sorted(flat) == sorted(ids)  # every id in exactly one shard
    sizes = [len(s) for s in shards]
    assert max(sizes) - min(sizes) <= 1


def test_result_does_not_depend_on_collection_order():
    ids = [f"test_matrix/p/test_{i % 7}.py::t[{i}]" for i in range(100)]
    shuffled = ids[:]
    random.Random(3).shuffle(shuffled)
    for i in (1, 2, 3):
        assert sorted(select(ids, i, 3)) == sorted(select(shuffled, i, 3))


def test_keeps_original_order_within_a_shard():
    ids = ["b", "a", "d", "c"]
    assert select(ids, 1, 2) == ["a", "c"] and select(ids, 2, 2) == ["b", "d"]


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "x/2", "1", "1/2/3", ""])
def test_bad_shard_is_a_usage_error(text):
    with pytest.raises(UsageError, match="--shard"):
        parse_shard(text)


def test_parse_shard():
    assert parse_shard("2/4") == (2, 4) and parse_shard("1/1") == (1, 1)
