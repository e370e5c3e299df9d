"""porting.matrix.pathsets: the recorder of case paths and the repeat finder (issue 27)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from porting.matrix import pathsets

CASES = '''
def case(values, order=("all_reduce", "all_gather_tensor")):
    import funcol_stub as funcol
    total = 0
    for v in values:
        if v < 0:
            total -= v
        else:
            total += v
    for name in order:
        getattr(funcol, name)(total)
    return total
'''

# A stand-in for torch's funcol: the recorder knows collectives by function name and file.
FUNCOL = '''
def all_reduce(self, reduceOp="sum", group=None):
    return self

def all_gather_tensor(self, gather_dim=0, group=None):
    return self
'''


@pytest.fixture
def synthetic(tmp_path, monkeypatch):
    """A case module in a traced scope, and a funcol stub at a path the recorder reads as
    torch's _functional_collectives.py."""
    scope = tmp_path / "scope"
    scope.mkdir()
    (scope / "cases.py").write_text(CASES)
    stub_dir = tmp_path / "torch" / "distributed"
    stub_dir.mkdir(parents=True)
    (stub_dir / "_functional_collectives.py").write_text(FUNCOL)
    spec = importlib.util.spec_from_file_location("funcol_stub", stub_dir / "_functional_collectives.py")
    funcol = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(funcol)
    monkeypatch.setitem(__import__("sys").modules, "funcol_stub", funcol)
    spec = importlib.util.spec_from_file_location("synthetic_cases", scope / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, [str(scope) + "/"]


def record(module, scope, case_id, *calls) -> dict:
    """One case: each call is (args, kwargs) run on one 'rank' under the tracer."""
    paths = []
    for args, kwargs in calls:
        with pathsets.Tracer(scope) as tracer:
            module.case(*args, **kwargs)
        paths.append(tracer.record(lambda f: f))
    return {"id": case_id, "calls": [paths], "outcome": "passed"}


def test_same_branches_other_data_is_a_repeat(synthetic):
    module, scope = synthetic
    a = record(module, scope, "t.py::case[a]", (([1, 2],), {}))
    b = record(module, scope, "t.py::case[b]", (([5, 7, 9],), {}))
    assert pathsets.group_repeats([a, b]) == [["t.py::case[a]", "t.py::case[b]"]]
    assert a["calls"][0][0]["collectives"] == [["all_reduce", "sum", "", "world"],
                                               ["all_gather_tensor", "", "", "world"]]


def test_another_branch_is_not_a_repeat(synthetic):
    module, scope = synthetic
    a = record(module, scope, "t.py::case[a]", (([1, 2],), {}))
    b = record(module, scope, "t.py::case[b]", (([1, -2],), {}))
    assert pathsets.group_repeats([a, b]) == []
    assert pathsets.summary([a, b]) == {"t.py::case": {"cases": 2, "distinct": 2}}


def test_same_lines_with_collectives_in_another_order_is_not_a_repeat(synthetic):
    """The input that breaks a line-set-only comparison: both cases execute exactly the same
    lines, but issue the collectives in another order (another redistribute plan)."""
    module, scope = synthetic
    a = record(module, scope, "t.py::case[a]", (([1],), {}))
    b = record(module, scope, "t.py::case[b]", (([1],), {"order": ("all_gather_tensor", "all_reduce")}))
    assert a["calls"][0][0]["lines"] == b["calls"][0][0]["lines"]
    assert pathsets.group_repeats([a, b]) == []


def test_a_branch_taken_on_one_rank_only_is_not_a_repeat(synthetic):
    """Paths compare rank by rank: the same union of lines over ranks is not the same case."""
    module, scope = synthetic
    a = record(module, scope, "t.py::case[a]", (([1],), {}), (([-1],), {}))
    b = record(module, scope, "t.py::case[b]", (([-1],), {}), (([1],), {}))
    assert pathsets.group_repeats([a, b]) == []


def test_a_skipped_case_is_not_grouped(synthetic):
    module, scope = synthetic
    a = record(module, scope, "t.py::case[a]", (([1],), {}))
    assert pathsets.group_repeats([a, {"id": "t.py::case[s]", "calls": [], "outcome": "skipped"}]) == []


def test_the_tensor_filter_ignores_lines_outside_dtensor():
    """--files tensor: two cases that differ only in a checkpoint file's lines are repeats."""
    def rec(case_id, ckpt_line):
        path = {"lines": {"torch/distributed/tensor/_api.py": [1, 2],
                          "torch/distributed/checkpoint/planner.py": [ckpt_line]}, "collectives": []}
        return {"id": case_id, "calls": [[path]], "outcome": "passed"}
    records = [rec("t.py::c[a]", 10), rec("t.py::c[b]", 11)]
    assert pathsets.group_repeats(records) == []
    assert pathsets.group_repeats(records, pathsets._files_filter("tensor")) == [["t.py::c[a]", "t.py::c[b]"]]


def test_cleared_caches_make_a_warm_run_take_the_cold_path(tmp_path):
    """DTensor's sharding propagation is cached per op schema: without clearing, the second
    run of one op skips the strategy lines, so a case's path would depend on the cases run
    before it. After clear_dtensor_caches a warm run records the path of a run after clearing."""
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import DeviceMesh
    from torch.distributed.tensor import Shard, distribute_tensor

    if dist.is_initialized():
        pytest.skip("a process group is already initialised in this process")
    dist.init_process_group("gloo", store=dist.FileStore(str(tmp_path / "store"), 1), rank=0, world_size=1)
    try:
        mesh = DeviceMesh("cpu", torch.arange(1))
        x = distribute_tensor(torch.ones(4, 3), mesh, [Shard(0)])
        scope = pathsets.default_scope()[:1]

        def run() -> dict:
            with pathsets.Tracer(scope) as tracer:
                (x * 2).sum(dim=1).full_tensor()
            return {"id": "c", "calls": [[tracer.record(lambda f: f)]], "outcome": "passed"}

        run()  # first use: lazy set-up lines (pathsets.traced runs every case once untraced too)
        pathsets.clear_dtensor_caches()
        cold = run()
        warm = run()
        pathsets.clear_dtensor_caches()
        cleared = run()
    finally:
        dist.destroy_process_group()
    sig = pathsets.signature
    assert sig(cold["calls"][0]) != sig(warm["calls"][0])
    assert sig(cold["calls"][0]) == sig(cleared["calls"][0])
    assert any(f.endswith("_sharding_prop.py") for f in cold["calls"][0][0]["lines"])


def test_main_groups_a_record_file(tmp_path, capsys):
    path = {"lines": {"a.py": [1]}, "collectives": []}
    records = [{"id": f"m/test_x.py::t[{i}]", "calls": [[path]], "outcome": "passed"} for i in "ab"]
    pathsets.write_atomic(str(tmp_path / "r.json.gz"), {"scope": [], "records": records})
    assert pathsets.main([str(tmp_path / "r.json.gz"), "--json", str(tmp_path / "g.json")]) == 0
    assert "1 repeats in 1 groups" in capsys.readouterr().out
    assert json.loads((tmp_path / "g.json").read_text())["groups"] == [[r["id"] for r in records]]


@pytest.mark.parametrize("content", ["[]", "{\"records\": 3}", "not json"])
def test_main_refuses_a_file_that_is_not_a_record_file(tmp_path, capsys, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert pathsets.main([str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pathsets: ") and "\n" not in err and str(bad) in err


def test_main_names_a_missing_file(tmp_path, capsys):
    assert pathsets.main([str(tmp_path / "absent.json")]) == 2
    assert "absent.json" in capsys.readouterr().err


def test_main_refuses_an_unknown_filter(tmp_path, capsys):
    assert pathsets.main([str(Path(tmp_path) / "x.json"), "--files", "bogus"]) == 2
    assert "--files bogus" in capsys.readouterr().err


def _rec(case_id, *collectives):
    return {"id": case_id, "calls": [[{"lines": {}, "collectives": [list(c) for c in collectives]}]],
            "outcome": "passed"}


def test_collective_cover_keeps_a_twin_per_collective_step():
    """The twin whose steps another kept twin already issues is dropped; one with a step of
    its own (another reduce op, dtype or group) is kept."""
    ar_sum = ("all_reduce", "sum", "float32", "mesh(4,):x")
    records = [_rec("t[a-gloo]", ar_sum), _rec("t[b-gloo]", ar_sum),
               _rec("t[c-gloo]", ar_sum, ("all_reduce", "sum", "int64", "mesh(4,):x")),
               _rec("t[d-gloo]", ("all_reduce", "max", "float32", "mesh(4,):x"))]
    twins = {r["id"].replace("gloo", "nccl"): r["id"] for r in records}
    assert pathsets.collective_cover(records, twins) == ["t[c-nccl]", "t[d-nccl]"]


def test_collective_cover_refuses_a_twin_without_a_recorded_gloo_case():
    with pytest.raises(ValueError, match="t\\[x-gloo\\]"):
        pathsets.collective_cover([_rec("t[a-gloo]")], {"t[x-nccl]": "t[x-gloo]"})


def test_collective_cover_keeps_a_step_once_per_split_value():
    """The same all-gather on even and on padded shards: kept once per value of ``split``."""
    ag = ("all_gather_single", "", "float32", "mesh(4,):x")
    records = [_rec("t[even-a-gloo]", ag), _rec("t[even-b-gloo]", ag), _rec("t[uneven-gloo]", ag)]
    twins = {r["id"].replace("gloo", "nccl"): r["id"] for r in records}
    assert pathsets.collective_cover(records, twins) == ["t[even-a-nccl]"]
    kept = pathsets.collective_cover(records, twins, split=lambda t: t.split("[")[1].split("-")[0])
    assert kept == ["t[even-a-nccl]", "t[uneven-nccl]"]
