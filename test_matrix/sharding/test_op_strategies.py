"""Op sharding strategies (op_cases.OPS): each op under the placement classes that take
different branches of its registered DTensor strategy; full_tensor() against the
single-process op, and the output kept sharded where the input is sharded off the op's dim."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file
from porting.matrix.params import GLOO_ONLY

# gloo only: the strategy is device-independent and its collectives are the redistribute
# cases over NCCL (params.GLOO_ONLY).
pytestmark = [pytest.mark.component("sharding"), pytest.mark.parametrize("backend", GLOO_ONLY)]

_here = Path(__file__).resolve().parent
ops = load_file(_here / "op_cases.py", "port_matrix_op_cases")
helpers = load_file(_here / "conftest.py", "port_matrix_sharding_helpers")


def _mesh(klass: str) -> str:
    # 1d-4 with (5, 7): one rank holds an empty shard of dim 0, dim 1 splits unevenly; "2d"
    # keeps one mesh dim's shard while the other is redistributed.
    return "2d-2x2" if klass == "2d" else "1d-4"


# Distinct per value: each op has its own registered strategy (or decomposition), and each
# class takes another branch of it (op_cases' docstring: on / other / rep / partial / 2d);
# op_cases.Op.placement_classes drops the classes that are the same branch for that op.
# porting.matrix.pathsets recorded one path for each folded case and the case it runs in:
# the same lines in torch.distributed and the same collectives on every rank (only their
# table rows' lambdas differ; 2026-12-07, docs/matrix.md Balance): conv2d sharded on the batch
# runs the local convolution through conv1d's strategy branch.
FOLDS = {"conv1d-other": ["conv2d-other"]}
_FOLDED = {f for folds in FOLDS.values() for f in folds}
CASES = [pytest.param(name, klass, marks=pytest.mark.requires(world_size=helpers.MESH_WORLD[_mesh(klass)]),
                      id=f"{name}-{klass}")
         for name, op in ops.OPS.items() for klass in op.placement_classes() if f"{name}-{klass}" not in _FOLDED]


@pytest.mark.parametrize("name,klass", CASES)
def test_op_strategy(rank_pool, name, klass):
    mesh = _mesh(klass)
    variants = [(v, {"mesh": mesh, "name": v.rsplit("-", 1)[0], "klass": klass})
                for v in [f"{name}-{klass}", *FOLDS.get(f"{name}-{klass}", [])]]
    for label, out in zip(variants, helpers.run_folded(rank_pool, ops.run_op, helpers.mesh_ranks(mesh), variants)):
        assert len(set(map(str, out))) == 1, f"{label[0]}: ranks disagree on the output placements: {out}"


# One case: the ops whose replicated run takes the path of their ``other`` class
# (op_cases.Op.placement_classes), each run on Replicate inputs and named when it fails.
REPLICATED_FOLDED = sorted(name for name, op in ops.OPS.items() if op.folds_rep())


@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-4")])
def test_op_strategy_replicated_inputs(rank_pool, mesh):
    out = rank_pool.run(ops.run_replicated, ranks=helpers.mesh_ranks(mesh), mesh=mesh, names=REPLICATED_FOLDED)
    assert set(out) == {"ok"}, out
