"""Slicing and reshaping an actor mesh (2 x 3): errors for bad indices, ranges and names,
clamped and negative ranges, step slices, slices of slices, what a call or broadcast on a
slice reaches, the coordinates seen inside and in the ValueMesh, flatten / rename / split,
and the ValueMesh's own slicing and lookup."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_by_value, stop_mesh

pytestmark = pytest.mark.component("actor")
subjects = load_by_value(Path(__file__).with_name("subjects.py"), "port_matrix_actor_subjects")


@pytest.fixture(scope="module")
def grid(fault_log):
    """A 2 x 3 Probe mesh and the pid of the actor at every (x, y)."""
    from monarch.actor import this_host

    procs = this_host().spawn_procs(per_host={"x": 2, "y": 3})
    probes = procs.spawn("grid", subjects.Probe)
    pids = {(p["x"], p["y"]): pid for p, pid in probes.pid.call().get().items()}
    yield probes, pids
    stop_mesh(procs)


def _pids(mesh) -> list[int]:
    return list(mesh.pid.call().get().values())


def test_index_out_of_range_is_an_index_error(grid):
    probes, _ = grid
    failures = []
    for dim, index in (("x", 2), ("y", 3), ("x", -1), ("y", 99)):
        try:
            probes.slice(**{dim: index})
            failures.append(f"{dim}={index} accepted")
        except IndexError as exc:
            if str(exc) != "index out of range":
                failures.append(f"{dim}={index}: {exc}")
    assert not failures, failures


def test_unknown_dimension_is_a_type_error_naming_it(grid):
    probes, _ = grid
    with pytest.raises(TypeError, match="Shape does not have dimension labeled 'gpus'"):
        probes.slice(gpus=0)


def test_an_indexed_dimension_is_gone(grid):
    probes, _ = grid
    row = probes.slice(x=1)
    assert row.sizes == {"y": 3}
    with pytest.raises(TypeError, match="dimension labeled 'x'"):
        row.slice(x=1)


def test_empty_range_is_refused(grid):
    probes, _ = grid
    with pytest.raises(ValueError, match="empty range 2:2:1"):
        probes.slice(y=slice(2, 2))


def test_range_past_the_end_is_clamped(grid):
    probes, pids = grid
    tail = probes.slice(y=slice(1, 10))
    assert tail.sizes == {"x": 2, "y": 2}
    assert _pids(tail) == [pids[(x, y)] for x in range(2) for y in (1, 2)]


def test_negative_range_counts_from_the_end(grid):
    probes, pids = grid
    assert _pids(probes.slice(y=slice(-1, None))) == [pids[(0, 2)], pids[(1, 2)]]


def test_step_slice_is_refused_as_nonrectangular(grid):
    """The shape algebra accepts a step (sizes [2], strides [2]), but an actor mesh region
    refuses it in torchmonarch 0.7.0."""
    from monarch._rust_bindings.monarch_hyperactor.shape import Shape, Slice

    stepped = Shape(["y"], Slice(offset=0, sizes=[3], strides=[1])).select("y", slice(0, 3, 2))
    assert list(stepped.ranks()) == [0, 2]
    probes, _ = grid
    with pytest.raises(ValueError, match="nonrectangular shape"):
        probes.slice(y=slice(0, 3, 2))


def test_slice_of_a_slice_composes(grid):
    probes, pids = grid
    assert _pids(probes.slice(x=1).slice(y=2)) == [pids[(1, 2)]]
    assert _pids(probes.slice(y=slice(1, 3)).slice(y=slice(1, 2))) == [pids[(0, 2)], pids[(1, 2)]]


def test_broadcast_to_a_slice_reaches_only_its_actors(grid):
    probes, _ = grid
    before = {(p["x"], p["y"]): c for p, c in probes.count_now.call().get().items()}
    probes.slice(y=slice(0, 2)).slice(x=1).bump.broadcast()
    after = {(p["x"], p["y"]): c for p, c in probes.count_now.call().get().items()}
    bumped = sorted(k for k in after if after[k] != before[k])
    assert bumped == [(1, 0), (1, 1)] and all(after[k] == before[k] + 1 for k in bumped)


def test_choose_and_stream_stay_inside_the_slice(grid):
    probes, pids = grid
    column = probes.slice(y=1)
    inside = {pids[(0, 1)], pids[(1, 1)]}
    assert {column.pid.choose().get() for _ in range(12)} <= inside
    assert sorted(f.get() for f in column.pid.stream()) == sorted(inside)


def test_points_in_a_slice_are_relative_to_the_slice(grid):
    """Inside the endpoint and in the ValueMesh, a slice is its own mesh: ranks and
    coordinates restart at 0 and the removed dimension is gone."""
    probes, pids = grid
    sub = probes.slice(x=1, y=slice(1, 3))
    seen = sub.where.call().get()
    assert [{k: p[k] for k in p} for p, _ in seen.items()] == [{"y": 0}, {"y": 1}]
    inside = list(seen.values())
    assert [w["point"] for w in inside] == [{"y": 0}, {"y": 1}] and [w["rank"] for w in inside] == [0, 1]
    assert all(w["size"] == {"y": 2} for w in inside)
    assert [w["pid"] for w in inside] == [pids[(1, 1)], pids[(1, 2)]]


def test_flatten_is_row_major_and_reaches_every_actor(grid):
    probes, pids = grid
    flat = probes.flatten("r")
    assert flat.sizes == {"r": 6}
    assert _pids(flat) == [pids[(x, y)] for x in range(2) for y in range(3)]
    assert list(flat.rank.call().get().values()) == list(range(6))


def test_flatten_of_a_sparse_slice_is_refused(grid):
    probes, _ = grid
    with pytest.raises(ValueError, match="cannot flatten sparse mesh"):
        probes.slice(y=slice(1, 3)).flatten("r")


def test_rename_changes_labels_not_actors(grid):
    probes, pids = grid
    renamed = probes.rename(x="host", y="gpu")
    got = {(p["host"], p["gpu"]): pid for p, pid in renamed.pid.call().get().items()}
    assert got == pids
    assert list(renamed.point.call().get().values())[-1] == {"host": 1, "gpu": 2}


def test_split_factors_a_dimension(grid):
    probes, pids = grid
    split = probes.split(x=("a", "b"), b=1)
    assert split.sizes == {"a": 2, "b": 1, "y": 3}
    assert _pids(split.slice(a=1, b=0)) == [pids[(1, y)] for y in range(3)]
    with pytest.raises(ValueError, match="is not evenly divided"):
        probes.split(y=("p", "q"), q=2)


def test_rename_onto_an_existing_name_is_refused(grid):
    probes, _ = grid
    with pytest.raises(ValueError, match="Duplicate dimension name 'y'"):
        probes.rename(x="y")


def test_size_and_extent_of_a_mesh(grid):
    probes, _ = grid
    assert (len(probes), probes.size("y"), probes.size(), probes.sizes) == (6, 3, 6, {"x": 2, "y": 3})
    assert probes.size(("x", "y")) == 6 and probes.slice(y=slice(0, 2)).size(["x", "y"]) == 4
    with pytest.raises(KeyError, match="does not have dimension 'z'"):
        probes.size("z")


def test_valuemesh_item_lookup(grid):
    probes, pids = grid
    vm = probes.pid.call().get()
    assert vm.item(x=1, y=2) == pids[(1, 2)]
    with pytest.raises(KeyError, match="extra dimensions"):
        vm.item(x=0, y=0, z=0)
    with pytest.raises(KeyError):
        vm.item(x=0)


def test_valuemesh_slice_and_flatten_keep_values_with_their_coordinates(grid):
    probes, pids = grid
    vm = probes.pid.call().get()
    column = vm.slice(y=2)
    assert [(p["x"], v) for p, v in column.items()] == [(0, pids[(0, 2)]), (1, pids[(1, 2)])]
    assert list(vm.flatten("r").values()) == [pids[(x, y)] for x in range(2) for y in range(3)]
    assert len(vm.slice(x=1, y=slice(0, 2))) == 2
