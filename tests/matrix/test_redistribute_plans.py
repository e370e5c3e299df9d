"""The 2-D redistribute cases of the sharding pack are distinct in torch's own terms (issue 27).

test_matrix/sharding/test_redistribute.py keeps, of the 135 pairs of 2x2-mesh placements
(source != target), only pairs whose plan no other kept pair shares, and runs a subset of
them over NCCL that holds every distinct step. Both lists are data in the pack; this test
asks the installed torch's planner (the one DTensor.redistribute calls, on a fake process
group of 4 ranks, no communication) for every pair's plan and checks the lists against it,
so a torch upgrade that changes the plans fails here instead of silently leaving repeats
or gaps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.assets import matrix_dir
from porting.matrix.monarch_util import load_file

SHAPE = (7, 6)  # the shape the 2-D cases redistribute: dim 0 uneven over 2, dim 1 even


@pytest.fixture(scope="module")
def planner():
    """(plan signature of a pair) with torch's planner on a fake 2x2 mesh."""
    torch = pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor import _redistribute as redistribute
    from torch.distributed.tensor._dtensor_spec import DTensorSpec, TensorMeta
    from torch.testing._internal.distributed.fake_pg import FakeStore

    if dist.is_initialized():
        pytest.skip("a process group is already initialised in this process")
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=4)
    mesh = init_device_mesh("cpu", (2, 2))
    names = {"S0": Shard(0), "S1": Shard(1), "R": Replicate(), "Psum": Partial("sum")}
    meta = TensorMeta(torch.Size(SHAPE), (SHAPE[1], 1), torch.float32)

    def step(info) -> tuple:
        # What decides the code path of one step in redistribute_local_tensor: the branch
        # (source and target kinds; a Shard -> Shard moving the dim), the mesh dim (its
        # communicator), whether the shard splits the step's logical shape unevenly (the
        # padded collectives) and whether that shape is a nested shard's (not the global one).
        src, dst = info.src_dst_placements
        logical = tuple(info.logical_shape)

        def kind(p) -> str:
            if p.is_shard():
                return "S" + ("uneven" if logical[p.dim] % mesh.size(info.mesh_dim) else "even")
            return "R" if p.is_replicate() else "P"

        moved = src.is_shard() and dst.is_shard() and src.dim != dst.dim
        return (type(info).__name__, info.mesh_dim, kind(src), kind(dst), moved, logical != SHAPE)

    def plan(src: list[str], dst: list[str]) -> tuple:
        a = DTensorSpec(mesh, tuple(names[n] for n in src), tensor_meta=meta)
        b = DTensorSpec(mesh, tuple(names[n] for n in dst), tensor_meta=meta)
        infos = redistribute._gen_transform_infos(a, b)
        return tuple(step(i) for i in redistribute._optimize_transform_infos(infos, mesh, a.placements, b.placements))

    yield plan
    dist.destroy_process_group()


@pytest.fixture(scope="module")
def pack():
    return load_file(Path(matrix_dir()) / "sharding" / "test_redistribute.py", "port_test_redistribute_plans_pack")


def _pairs(pack, keys):
    return {k: tuple(pack._names(x) for x in k.split("-")) for k in keys}


def test_every_kept_pair_has_its_own_plan_and_every_plan_is_kept(planner, pack):
    kept = _pairs(pack, pack.TWO_D_KEPT)
    plans = {k: planner(*v) for k, v in kept.items()}
    repeats = [k for k in kept if list(plans.values()).count(plans[k]) > 1]
    assert not repeats, f"kept 2-D pairs that share a plan: {repeats}"
    every = {planner(list(a), list(b)): f"{''.join(a)}-{''.join(b)}" for a, b in pack.TWO_D_PAIRS if a != b}
    missing = sorted(name for sig, name in every.items() if sig not in set(plans.values()))
    assert not missing, f"2-D plans no kept pair takes: {missing}"
    assert len(kept) == len(pack.TWO_D_KEPT), "a pair is listed twice"


def test_the_nccl_pairs_hold_every_step_each_one_its_own(planner, pack):
    kept = _pairs(pack, pack.TWO_D_KEPT)
    assert set(pack.TWO_D_NCCL) <= set(kept), sorted(set(pack.TWO_D_NCCL) - set(kept))
    steps = {k: set(planner(*kept[k])) for k in pack.TWO_D_NCCL}
    every_step = set().union(*(set(planner(*v)) for v in kept.values()))
    assert set().union(*steps.values()) == every_step, sorted(every_step - set().union(*steps.values()))
    for k, own in steps.items():
        others = set().union(*(s for j, s in steps.items() if j != k))
        assert own - others, f"{k} over NCCL takes no step another NCCL pair does not"


def test_a_repeated_pair_is_caught(planner, pack):
    """The rule's breaking input: S0S1->S0R all-gathers the same even nested shard on mesh
    dim 1 as the kept S0S0->S0R."""
    assert planner(["S0", "S1"], ["S0", "R"]) == planner(["S0", "S0"], ["S0", "R"])
    assert "S0S1-S0R" not in pack.TWO_D_KEPT
