"""Monarch's shape algebra (the ndslice crate through monarch_hyperactor.shape, torchmonarch
0.7.0): every mesh slice, rank and point of the actor pack is computed by it, and these cases
reach the functions the mesh API does not expose one by one: strided slices with an offset,
the inverse maps (value -> index, value -> coordinates, coordinates -> value), the
decomposition of a rank list into strided slices, Shape.at/select/index, regions and their
base ranks, extents and points, the bincode pickles, and each constructor's refusals. No
process is spawned: each case is a call into the extension and its assertions.
"""

from __future__ import annotations

import pickle

import pytest

pytestmark = pytest.mark.component("actor")


def _shape():
    from monarch._rust_bindings.monarch_hyperactor.shape import Shape, Slice

    return Shape(["host", "gpu"], Slice.new_row_major([2, 4]))


def test_a_strided_slice_with_an_offset_enumerates_row_major():
    from monarch._rust_bindings.monarch_hyperactor.shape import Slice

    s = Slice(offset=5, sizes=[2, 3], strides=[10, 2])
    assert (s.ndim, s.offset, s.sizes, s.strides, len(s)) == (2, 5, [2, 3], [10, 2], 6)
    assert list(s) == [5, 7, 9, 15, 17, 19]
    assert [s.get(i) for i in range(6)] == list(s) == [s[i] for i in range(6)]
    # the inverse maps: value -> index and value -> coordinates, and back through nditem
    assert [s.index(v) for v in s] == list(range(6))
    assert [s.coordinates(v) for v in s] == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    assert [s.nditem(s.coordinates(v)) for v in s] == list(s)


def test_a_value_outside_a_slice_has_no_index_or_coordinates():
    from monarch._rust_bindings.monarch_hyperactor.shape import Slice

    s = Slice(offset=5, sizes=[2, 3], strides=[10, 2])
    for lookup in (s.index, s.coordinates):
        for value in (6, 4, 21):  # between strides, before the offset, past the end
            with pytest.raises(ValueError, match=f"value {value} not in slice"):
                lookup(value)


def test_positional_access_past_the_end_is_refused_and_nditem_is_not_bounds_checked():
    """get() raises ValueError, [] raises IndexError, a negative index is a TypeError (the
    binding takes an unsigned index); nditem checks the number of coordinates but not their
    range: a coordinate past its size gives a value outside the slice (pinned for 0.7.0)."""
    from monarch._rust_bindings.monarch_hyperactor.shape import Slice

    s = Slice(offset=5, sizes=[2, 3], strides=[10, 2])
    with pytest.raises(ValueError, match="index 6 out of range 6"):
        s.get(6)
    with pytest.raises(IndexError, match="index 6 out of range 6"):
        s[6]
    with pytest.raises(TypeError):
        s[-1]
    with pytest.raises(IndexError, match="invalid dims: expected 2, got 1"):
        s.nditem([1])
    assert s.nditem([2, 0]) == 25 and 25 not in list(s)


def test_slice_construction_refusals():
    from monarch._rust_bindings.monarch_hyperactor.shape import Slice

    with pytest.raises(ValueError, match="invalid dims: expected 2, got 1"):
        Slice(offset=0, sizes=[2, 3], strides=[1])
    with pytest.raises(ValueError, match="nonunique strides"):
        Slice(offset=0, sizes=[2, 3], strides=[1, 1])
    assert Slice.new_row_major([2, 3, 4]).strides == [12, 4, 1]


def test_a_rank_list_decomposes_into_maximal_strided_slices():
    from monarch._rust_bindings.monarch_hyperactor.shape import Slice

    parts = Slice.from_list([0, 1, 2, 5, 7, 9, 20])
    assert [(p.offset, p.sizes, p.strides) for p in parts] == [(0, [3], [1]), (5, [3], [2]), (20, [1], [1])]
    assert [list(p) for p in Slice.from_list([3, 1, 2])] == [[1, 2, 3]]  # sorted first
    assert Slice.from_list([]) == []


def test_shape_ranks_and_coordinates_are_inverse():
    shape = _shape()
    assert (str(shape), shape.labels, len(shape)) == ("{host=2,gpu=4}", ["host", "gpu"], 8)
    assert [shape.coordinates(r) for r in shape.ranks()] == [{"host": h, "gpu": g} for h in range(2) for g in range(4)]
    with pytest.raises(ValueError, match="value 8 not in slice"):
        shape.coordinates(8)


def test_shape_at_drops_the_dimension_and_refuses_bad_input():
    shape = _shape()
    at = shape.at("gpu", 2)
    assert (at.labels, at.ranks()) == (["host"], [2, 6])
    assert shape.at("host", 1).at("gpu", 3).ranks() == [7] and shape.at("host", 1).at("gpu", 3).labels == []
    with pytest.raises(ValueError, match="out of range 4:5:1 for dimension gpu of size 4"):
        shape.at("gpu", 4)
    with pytest.raises(ValueError, match="invalid labels"):
        shape.at("nope", 0)


def test_shape_select_keeps_the_dimension_with_python_slice_semantics():
    shape = _shape()
    assert shape.select("gpu", slice(1, 3)).ranks() == [1, 2, 5, 6]
    assert shape.select("gpu", slice(0, 4, 2)).ranks() == [0, 2, 4, 6]
    assert shape.select("gpu", slice(-3, None)).ranks() == [1, 2, 3, 5, 6, 7]
    assert shape.select("gpu", slice(2, 10)).ranks() == [2, 3, 6, 7]  # clamped at the size
    assert shape.select("gpu", slice(1, 3)).labels == ["host", "gpu"]
    for empty in (slice(2, 2), slice(3, 0, -1)):  # an empty range and a reversed one
        with pytest.raises(ValueError, match="empty range"):
            shape.select("gpu", empty)


def test_shape_index_selects_several_labels_at_once():
    shape = _shape()
    assert shape.index(host=1, gpu=1).ranks() == [5]
    assert shape.index(gpu=0).ranks() == [0, 4] and shape.index(gpu=0).labels == ["host"]
    with pytest.raises(ValueError, match="invalid labels"):
        shape.index(zz=1)


def test_shape_construction_and_the_unit_shape():
    from monarch._rust_bindings.monarch_hyperactor.shape import Shape, Slice

    with pytest.raises(ValueError, match="label slice dimension mismatch: 1 != 2"):
        Shape(["a"], Slice.new_row_major([2, 3]))
    unity = Shape.unity()
    assert (unity.labels, unity.ranks(), len(unity)) == ([], [0], 1)


def test_a_region_maps_base_ranks_to_points_of_the_region():
    """A selected shape keeps the base ranks; its region numbers them 0.. and refuses a base
    rank outside it."""
    sub = _shape().select("gpu", slice(1, 3))
    region = sub.region
    mapped = [(r, region.point_of_base_rank(r).rank, dict(region.point_of_base_rank(r))) for r in sub.ranks()]
    assert mapped == [(1, 0, {"host": 0, "gpu": 0}), (2, 1, {"host": 0, "gpu": 1}),
                      (5, 2, {"host": 1, "gpu": 0}), (6, 3, {"host": 1, "gpu": 1})]
    with pytest.raises(ValueError, match="base rank 4 does not belong to this region"):
        region.point_of_base_rank(4)
    assert region.as_shape() == sub


def test_an_extent_is_an_ordered_mapping_of_labels_to_sizes():
    from monarch._rust_bindings.monarch_hyperactor.shape import Extent

    e = Extent(["a", "b"], [2, 3])
    assert (str(e), e.labels, e.sizes, e.nelements) == ("{a: 2, b: 3}", ["a", "b"], [2, 3], 6)
    assert dict(e) == {"a": 2, "b": 3}
    assert e == Extent(["a", "b"], [2, 3]) and e != Extent(["b", "a"], [3, 2])  # order matters
    assert Extent(["a"], [0]).nelements == 0
    assert e.region.as_shape().ranks() == list(range(6))
    assert _shape().extent == Extent(["host", "gpu"], [2, 4])
    with pytest.raises(ValueError, match="label/sizes dimension mismatch: 1 != 2"):
        Extent(["a"], [2, 3])
    with pytest.raises(ValueError, match="Dimension 'z' not found"):
        e["z"]


def test_a_point_is_a_rank_of_an_extent_in_row_major_order():
    from monarch._rust_bindings.monarch_hyperactor.shape import Extent, Point

    e = Extent(["a", "b"], [2, 3])
    points = [Point(r, e) for r in range(6)]
    assert [dict(p) for p in points] == [{"a": i, "b": j} for i in range(2) for j in range(3)]
    assert all(p.rank == r and p.extent == e for r, p in enumerate(points))
    assert (points[4].size("a"), points[4].size("b")) == (2, 3)
    # a rank past the extent is accepted by the constructor and refused when a coordinate is
    # read (pinned for 0.7.0)
    outside = Point(6, e)
    assert outside.rank == 6
    for read in (lambda: dict(outside), lambda: outside["a"], lambda: repr(outside)):
        with pytest.raises(ValueError, match="total ranks 6; does not contain rank 6"):
            read()


# The shape types cross processes inside every message; each pickles through its own
# serialiser (Slice by its constructor arguments, Shape and Point as bincode bytes read back by
# from_bytes, Region by its own __reduce__).
@pytest.mark.parametrize("kind", ["slice", "shape", "point", "region"])
def test_shape_types_round_trip_through_pickle(kind):
    from monarch._rust_bindings.monarch_hyperactor.shape import Extent, Point, Slice

    value = {"slice": lambda: Slice(offset=5, sizes=[2, 3], strides=[10, 2]),
             "shape": lambda: _shape().select("gpu", slice(1, 3)),
             "point": lambda: Point(4, Extent(["a", "b"], [2, 3])),
             "region": lambda: _shape().select("gpu", slice(1, 3)).region}[kind]()
    back = pickle.loads(pickle.dumps(value))
    if kind == "point":  # Point has no __eq__: compare what it holds
        assert (back.rank, dict(back), back.extent) == (value.rank, dict(value), value.extent)
    else:
        assert back == value and back is not value
