"""Remote functions of the tensor-engine pack (test_matrix/tensor_engine/).

They live in the package, not next to the pack: Monarch's tensor-engine workers resolve a
remote function by importing its module by name (they do not unpickle it by value).

Each ``remote`` carries a ``propagate`` function: the client runs it on fake tensors to learn
the result's shape and dtype without waiting for the workers.
"""

from __future__ import annotations

import torch
from monarch import remote


@remote(propagate=lambda x: x)
def raise_value_error(x):
    raise ValueError("tensor-engine pack: raised on purpose")


@remote(propagate=lambda r: r.float())
def fail_where_rank_is_one(r):
    if int(r) == 1:
        raise RuntimeError("tensor-engine pack: only rank one fails")
    return r.float()


@remote(propagate=lambda x, k: x)
def scale_and_shift(x, k):
    return x * k + 1


@remote(propagate=lambda x: (x, x.sum()))
def pair_and_sum(x):
    return x.clone(), x.sum()


@remote(propagate=lambda x: x.to(torch.int64))
def to_int64(x):
    return x.to(torch.int64)


relu_by_name = remote("torch.nn.functional.relu", propagate=lambda x: x)
