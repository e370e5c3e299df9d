"""Deterministic sharding of a collected test set across cluster jobs (``--shard I/N``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import UsageError
from ..junit_contract import MAX_SHARDS


def parse_shard(text: str) -> tuple[int, int]:
    """'2/4' -> (2, 4); 1-based index."""
    try:
        left, right = text.split("/")
        index, total = int(left), int(right)
    except ValueError:
        raise UsageError(f"--shard {text!r}: expected I/N, e.g. 1/4") from None
    if total < 1 or not 1 <= index <= total:
        raise UsageError(f"--shard {text!r}: need 1 <= I <= N")
    if total > MAX_SHARDS:
        raise UsageError(f"--shard {text[:40]!r}: at most {MAX_SHARDS} shards")
    return index, total


def select(nodeids: Sequence[str], index: int, total: int) -> list[str]:
    """The ids of shard ``index`` of ``total`` (1-based), in their original order.

    Tests are dealt round-robin over the sorted ids: the result depends only on the set of
    ids, so every job of a cluster agrees without talking, every test lands in exactly one
    shard, and shard sizes differ by at most one.
    """
    if total == 1:
        return list(nodeids)
    order = {n: i for i, n in enumerate(sorted(set(nodeids)))}
    return [n for n in nodeids if order[n] % total == index - 1]
