"""DTensor beyond single ops: autograd through DTensor, tensor parallel styles, distributed
checkpoint resharding, the DeviceMesh API and DTensor API edges (api_cases)."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file
from porting.matrix.params import BACKENDS, GLOO_ONLY

pytestmark = [pytest.mark.component("sharding")]

_here = Path(__file__).resolve().parent
api = load_file(_here / "api_cases.py", "port_matrix_api_cases")
helpers = load_file(_here / "conftest.py", "port_matrix_sharding_helpers")
FOUR = pytest.mark.requires(world_size=4)
ALL = [0, 1, 2, 3]  # cases below that use the whole world (run_check, DCP) run on every rank


def _mesh(klass: str) -> str:
    return "2d-2x2" if klass == "2d" else "1d-4"


# Distinct per op (each has its own backward op and backward strategy) and per class (the
# backward of another forward branch: grads of a shard on / off the op's dim, replicated,
# or kept on one mesh dim of the 2x2 mesh while the other is redistributed).
BACKWARD = [pytest.param(name, klass, marks=FOUR, id=f"{name}-{klass}")
            for name in api.BACKWARD for klass in api.backward_classes(name)]


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("name,klass", BACKWARD)
def test_backward(rank_pool, name, klass):
    mesh = _mesh(klass)
    out = rank_pool.run(api.backward, ranks=helpers.mesh_ranks(mesh), mesh=mesh, name=name, klass=klass)
    assert len(set(map(str, out))) == 1, f"ranks disagree on the grad placements: {out}"


# Distinct per style: each parallel style shards other parameters and converts inputs and
# outputs with other layouts (torch.distributed.tensor.parallel.style).
TP_STYLES = ["colwise", "rowwise", "mlp", "colwise_local_output_false", "sequence_parallel", "prepare_input_output",
             "embedding_rowwise", "embedding_colwise"]


@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("style", [pytest.param(s, marks=FOUR) for s in TP_STYLES])
def test_tensor_parallel(rank_pool, style):
    out = rank_pool.run(api.tensor_parallel, ranks=helpers.mesh_ranks("1d-4"), mesh="1d-4", style=style)
    assert len(set(map(tuple, out))) == 1, f"sharded parameters per rank: {out}"


# Distinct per mesh: class-sharded logits only, or also batch-sharded on the 2x2 mesh (the
# loss then keeps the batch shard).
@pytest.mark.parametrize("backend", GLOO_ONLY)
@pytest.mark.parametrize("mesh", [helpers.mesh_param("1d-4"), helpers.mesh_param("2d-2x2")])
def test_loss_parallel(rank_pool, mesh):
    rank_pool.run(api.loss_parallel, ranks=helpers.mesh_ranks(mesh), mesh=mesh)


# Distinct per pair: the loader maps the saved chunks onto another set of requested chunks
# (another shard dim, replicated <-> sharded, 1-D <-> 2-D, uneven pieces).
RESHARD = {
    "S0-to-S1": (("1d-4", ["S0"]), ("1d-4", ["S1"])),
    "S0-to-R": (("1d-4", ["S0"]), ("1d-4", ["R"])),
    "R-to-S1": (("1d-4", ["R"]), ("1d-4", ["S1"])),
    "S1-to-2d.S0.S1": (("1d-4", ["S1"]), ("2d-2x2", ["S0", "S1"])),
    "2d.S0.S1-to-S0": (("2d-2x2", ["S0", "S1"]), ("1d-4", ["S0"])),
    "2d.R.S0-to-2d.S1.R": (("2d-2x2", ["R", "S0"]), ("2d-2x2", ["S1", "R"])),
    "2d.S0.S0-to-2d.S1.S1": (("2d-2x2", ["S0", "S0"]), ("2d-2x2", ["S1", "S1"])),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pair", [pytest.param(k, marks=FOUR) for k in RESHARD])
def test_checkpoint_reshard(rank_pool, tmp_path, pair):
    save, load = RESHARD[pair]
    rank_pool.run(api.checkpoint_reshard, ranks=ALL, directory=str(tmp_path / "ckpt"), save=save, load=load)


# Distinct per check: each is another DeviceMesh method (names/sizes, sub-mesh slicing,
# local rank, coordinate, per-dim process groups, a DTensor on a sub-mesh, flattening).
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("check", [pytest.param(k, marks=FOUR) for k in api.MESH_CHECKS])
def test_device_mesh(rank_pool, check):
    rank_pool.run(api.mesh_api, ranks=ALL, check=check)


# Distinct per check: each is another DTensor API entry point or refusal (api_cases.API_CHECKS
# docstrings say which behaviour each asserts).
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("check", [pytest.param(k, marks=FOUR) for k in api.API_CHECKS])
def test_dtensor_api(rank_pool, check):
    rank_pool.run(api.api_edge, ranks=ALL, check=check)
