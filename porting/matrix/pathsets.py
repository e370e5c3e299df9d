"""Record the code paths each DTensor matrix case takes, and find the cases that repeat
another (issue 27: "a case stays only if it takes a path no other case takes").

A case's *path* is, on every rank it runs on, the set of source lines it executes in the
traced scope (torch.distributed and the sharding pack's own helpers) plus the sequence of
collectives it issues (name, reduce op, dtype, group): the redistribute plan as the process
groups see it. Two cases with the same path on every rank are repeats.

Three parts:

* ``Tracer``: ``sys.settrace`` restricted to files under the scope prefixes (other frames get
  no local tracer, so they cost one call event each), recording lines and collective calls.
* ``traced``: runs in a rank (``RankPool.run`` loads this file by path): runs the case once
  untraced, so that lazy first-use set-up is out of the way, clears DTensor's sharding and
  planning caches (a cache hit would skip the strategy lines and make a case's path depend on
  the cases before it), then runs it again under the tracer.
* the pytest plugin (``-p porting.matrix.pathsets --port-pathsets OUT.json``) routes every
  ``rank_pool.run`` of the session through ``traced`` and writes the records at the end;
  ``python -m porting.matrix.pathsets OUT.json`` groups them and prints the repeats.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import hashlib
import json
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import Any

from .. import atomic

# Calls recorded as collectives: funcol's entry points (DTensor's redistribute steps) and
# c10d's (mesh_scatter/mesh_broadcast in distribute_tensor, the checkpoint's object
# collectives) and DTensor's all-to-all. Names only of functions defined in these files.
COLLECTIVE_FILES = ("torch/distributed/_functional_collectives.py", "torch/distributed/distributed_c10d.py",
                    "torch/distributed/tensor/_collective_utils.py")
COLLECTIVES = frozenset({
    "all_gather_tensor", "all_gather_tensor_autograd", "all_gather_single", "reduce_scatter_tensor",
    "reduce_scatter_tensor_autograd", "reduce_scatter_single", "all_reduce", "all_to_all_single",
    "all_to_all_single_autograd", "broadcast", "scatter", "gather", "all_gather", "all_gather_into_tensor",
    "reduce_scatter", "all_gather_object", "gather_object", "broadcast_object_list", "scatter_object_list",
    "barrier", "send", "recv",
    # DTensor's Shard(i) -> Shard(j) all-to-all goes to a C++ op from here, not through funcol.
    "shard_dim_alltoall",
})


def default_scope() -> list[str]:
    """torch.distributed (DTensor, its collectives, DeviceMesh, checkpoint) and the sharding
    pack's helpers (test_matrix/sharding)."""
    import torch

    from porting.assets import matrix_dir

    return [os.path.join(os.path.dirname(torch.__file__), "distributed") + os.sep,
            os.path.join(str(matrix_dir()), "sharding") + os.sep]


def _tensor_tag(value: Any) -> str | None:
    dtype = getattr(value, "dtype", None)
    return str(dtype).replace("torch.", "") if dtype is not None else None


def _group_tag(group: Any) -> str:
    """A process group as the ranks see it: mesh dim and size, a rank list, or its ranks."""
    if isinstance(group, tuple) and len(group) == 2 and hasattr(group[0], "size"):
        mesh, dim = group
        names = getattr(mesh, "mesh_dim_names", None) or ()
        name = names[dim] if isinstance(dim, int) and dim < len(names) else dim
        return f"mesh{tuple(mesh.mesh.shape)}:{name}"
    if isinstance(group, (list, tuple)):
        return f"ranks{list(group)}"
    if group is None:
        return "world"
    try:
        import torch.distributed as dist

        return f"ranks{dist.get_process_group_ranks(group)}"
    except Exception:  # a group name string or an object c10d cannot resolve: its type says enough
        return type(group).__name__


def collective_tag(name: str, local: dict[str, Any]) -> tuple[str, ...]:
    """(name, reduce op, dtype of the first tensor argument, group) of one collective call."""
    op = local.get("reduceOp", local.get("op"))
    op_tag = str(op).split(".")[-1].lower() if op is not None else ""
    dtype = next((t for t in map(_tensor_tag, (local.get(k) for k in ("self", "tensor", "input", "output_tensor",
                                                                        "input_tensor"))) if t), "")
    group = local.get("group", local.get("mesh"))
    if "mesh" in local and isinstance(local.get("mesh_dim"), int):
        group = (local["mesh"], local["mesh_dim"])
    return (name, op_tag, dtype, _group_tag(group) if group is not None or "group" in local else "")


class Tracer:
    """Lines executed in files under ``scope`` and collective calls, while started. (A plain
    class: the ranks load this file by path, outside sys.modules, where dataclasses fail.)"""

    def __init__(self, scope: Sequence[str]) -> None:
        self.scope = tuple(scope)
        self.lines: dict[str, set[int]] = defaultdict(set)
        self.collectives: list[tuple[str, ...]] = []
        self._in_scope: dict[str, bool] = {}
        self._previous: Any = None
        self._gc_was_enabled = True

    def _wanted(self, filename: str) -> bool:
        hit = self._in_scope.get(filename)
        if hit is None:
            hit = self._in_scope[filename] = filename.startswith(self.scope)
        return hit

    def _local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            self.lines[frame.f_code.co_filename].add(frame.f_lineno)
        return self._local

    def _global(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        code = frame.f_code
        if code.co_name in COLLECTIVES and code.co_filename.endswith(COLLECTIVE_FILES):
            self.collectives.append(collective_tag(code.co_name, frame.f_locals))
        if not self._wanted(code.co_filename):
            return None
        self.lines[code.co_filename].add(frame.f_lineno)
        return self._local

    def __enter__(self) -> Tracer:
        # No collection while traced: a finalizer in scope (an async collective's wait, a
        # planner-cache weakref) would add lines wherever the collector happens to run.
        self._gc_was_enabled = gc.isenabled()
        gc.collect()
        gc.disable()
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._previous)
        if self._gc_was_enabled:
            gc.enable()

    def record(self, root_of: Callable[[str], str]) -> dict[str, Any]:
        """JSON-able: {"lines": {file relative to its scope root: sorted lines}, "collectives": [...]}."""
        return {"lines": {root_of(f): sorted(v) for f, v in sorted(self.lines.items())},
                "collectives": [list(c) for c in self.collectives]}


def clear_dtensor_caches() -> None:
    """Every cache whose hit would skip lines of a later case: the C++ dispatch fast path's,
    the sharding propagator's (per op schema and tensor meta) and the redistribute planner's."""
    import torch
    from torch.distributed.tensor import DTensor, _redistribute

    torch._C._clear_DTensor_sharding_propagator_cache()
    propagator = DTensor._op_dispatcher.sharding_propagator
    propagator.propagate_op_sharding.cache_clear()
    cached_meta = getattr(type(propagator), "_propagate_tensor_meta_cached", None)
    if cached_meta is not None:
        cached_meta.cache_clear()
    _redistribute._gen_transform_infos.cache_clear()
    _redistribute.clear_redistribute_planner_cache()


def _relative(scope: Sequence[str]) -> Callable[[str], str]:
    def root_of(filename: str) -> str:
        for prefix in scope:
            if filename.startswith(prefix):
                return os.path.basename(os.path.dirname(prefix.rstrip(os.sep))) + "/" + \
                    os.path.basename(prefix.rstrip(os.sep)) + "/" + filename[len(prefix):]
        return filename
    return root_of


_CASES: dict[str, Any] = {}


def traced(ctx: Any, target_path: str, target_func: str, kwargs: dict[str, Any], scope: list[str],
           warmup: bool = True, clear: bool = True) -> dict[str, Any]:
    """Run one case on this rank twice (warm-up, then traced); its result and its path.

    Without the warm-up a case may record first-use lines (a lazy import, a warn-once) that
    a later case of the same path does not: that only ever splits a repeat into two paths,
    never merges two paths, so a repeat found without it is still a repeat."""
    from porting.matrix.rank_pool import _load

    fn = getattr(_load(target_path, _CASES), target_func)
    if warmup:
        fn(ctx, **kwargs)
    if clear:
        clear_dtensor_caches()
    with Tracer(scope) as tracer:
        result = fn(ctx, **kwargs)
    return {"result": result, "path": tracer.record(_relative(scope))}


# ---- grouping ---------------------------------------------------------------------------


def signature(paths: Sequence[dict[str, Any]], files: Callable[[str], bool] = lambda f: True) -> str:
    """One hash of the per-rank paths (in rank order), lines restricted to ``files``."""
    h = hashlib.sha256()
    for path in paths:
        lines = {f: v for f, v in path["lines"].items() if files(f)}
        h.update(json.dumps([sorted(lines.items()), path["collectives"]], sort_keys=True).encode())
        h.update(b"|")
    return h.hexdigest()[:16]


def case_paths(record: dict[str, Any]) -> list[dict[str, Any]]:
    """All runs of one test, rank paths concatenated in call order (most tests run once)."""
    return [p for call in record["calls"] for p in call]


def group_repeats(records: Iterable[dict[str, Any]], files: Callable[[str], bool] = lambda f: True
                  ) -> list[list[str]]:
    """Node ids grouped by identical signature, each group in input order; only groups of
    two or more (the repeats), largest first. Records without calls (skipped) are ignored."""
    groups: dict[str, list[str]] = defaultdict(list)
    for record in records:
        if record["calls"]:
            groups[signature(case_paths(record), files)].append(record["id"])
    return sorted((g for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), g[0]))


def collective_steps(record: dict[str, Any]) -> set[tuple[str, ...]]:
    """The distinct collectives (name, reduce op, dtype, group) a case issues on any rank."""
    return {tuple(c) for path in case_paths(record) for c in path["collectives"]}


def collective_cover(records: Sequence[dict[str, Any]], twins: dict[str, str],
                     split: Callable[[str], str] = lambda twin: "") -> list[str]:
    """Device-mesh twins to keep so that every collective step the twins issue stays issued.

    ``twins`` maps a twin's node id (an NCCL case, which this host cannot run) to the node id
    of its gloo case, whose recorded collectives are the twin's: DTensor's propagation and
    planning are device-independent, so what the device mesh adds is each collective on the
    device's communicator. ``split(twin)`` is appended to each of its steps, so that a step is
    kept once per value (e.g. even and padded shards). Greedy cover, largest new set first,
    ties in ``twins`` order."""
    by_id = {r["id"]: r for r in records}
    missing = sorted(g for g in twins.values() if g not in by_id or not by_id[g]["calls"])
    if missing:
        raise ValueError(f"no recorded path for the gloo case(s) of twins: {', '.join(missing[:5])}")
    steps = {twin: {(*step, split(twin)) for step in collective_steps(by_id[gloo])} for twin, gloo in twins.items()}
    uncovered = set().union(*steps.values()) if steps else set()
    kept: list[str] = []
    while uncovered:
        best = max(steps, key=lambda t: len(steps[t] & uncovered))
        kept.append(best)
        uncovered -= steps[best]
    return kept


def module_of(node_id: str) -> str:
    return node_id.split("::", 1)[0].rsplit("/", 1)[-1]


def function_of(node_id: str) -> str:
    return node_id.split("[", 1)[0]


def summary(records: Sequence[dict[str, Any]], files: Callable[[str], bool] = lambda f: True,
            key: Callable[[str], str] = function_of) -> dict[str, dict[str, int]]:
    """Per key (test function by default): cases traced and distinct path sets."""
    sigs: dict[str, set[str]] = defaultdict(set)
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        if record["calls"]:
            counts[key(record["id"])] += 1
            sigs[key(record["id"])].add(signature(case_paths(record), files))
    return {k: {"cases": counts[k], "distinct": len(sigs[k])} for k in sorted(counts)}


def load_records(path: str) -> list[dict[str, Any]]:
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            data = json.load(f)
    except (ValueError, EOFError, gzip.BadGzipFile) as exc:
        raise ValueError(f"{path}: not a pathsets record file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise ValueError(f"{path}: not a pathsets record file (no 'records' list)")
    return data["records"]


def write_atomic(path: str, payload: dict[str, Any]) -> None:
    """The record file, gzip-compressed for a ``.gz`` name, through the project's atomic writer
    (mode by the umask, never half a file)."""
    data = json.dumps(payload).encode()
    atomic.write_bytes(path, gzip.compress(data) if path.endswith(".gz") else data)


# ---- pytest plugin ----------------------------------------------------------------------


class Recorder:
    """Routes rank_pool.run through ``traced``; one record per test (its calls' rank paths)."""

    def __init__(self, out: str, scope: list[str], warmup: bool = True) -> None:
        self.out, self.scope, self.warmup = out, scope, warmup
        self.records: list[dict[str, Any]] = []
        self.current: dict[str, Any] | None = None

    def run_case(self, pool: Any, fn: Callable[..., Any], ranks: Sequence[int] | None = None,
                 **kwargs: Any) -> list[Any]:
        import inspect

        target = inspect.getsourcefile(fn)
        if target is None:
            raise ValueError(f"{fn!r}: not defined in a file")
        out = pool.run(os.path.abspath(__file__), "traced", ranks=ranks, target_path=os.path.abspath(target),
                       target_func=fn.__name__, kwargs=kwargs, scope=self.scope,
                       warmup=self.warmup)
        if self.current is not None:
            self.current["calls"].append([o["path"] for o in out])
        return [o["result"] for o in out]

    def pytest_runtest_setup(self, item: Any) -> None:
        self.current = {"id": item.nodeid, "calls": [], "outcome": "passed"}
        self.records.append(self.current)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if self.current is not None and report.nodeid == self.current["id"] and report.outcome != "passed":
            self.current["outcome"] = report.outcome

    def pytest_sessionfinish(self, session: Any) -> None:
        write_atomic(self.out, {"scope": self.scope, "warmup": self.warmup, "records": self.records})


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--port-pathsets", default=None, metavar="OUT.json[.gz]",
                     help="record each DTensor case's code path on every rank (porting.matrix.pathsets)")
    parser.addoption("--port-pathsets-no-warmup", action="store_true",
                     help="trace each case's only run (half the time; may split a repeat, never merges paths)")


def pytest_configure(config: Any) -> None:
    out = config.getoption("--port-pathsets")
    if not out:
        return
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        raise SystemExit(f"--port-pathsets {out}: its directory does not exist")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if getattr(config.option, "numprocesses", None) and not worker:
        return  # the xdist controller runs no case; each worker writes OUT.<worker id>
    from porting.matrix import rank_pool

    recorder = Recorder(f"{out}.{worker}" if worker else out, default_scope(),
                        warmup=not config.getoption("--port-pathsets-no-warmup"))
    rank_pool.run_case = recorder.run_case
    config.pluginmanager.register(recorder, "port-pathsets-recorder")


# ---- command line -----------------------------------------------------------------------


def _files_filter(name: str) -> Callable[[str], bool]:
    if name == "all":
        return lambda f: True
    if name == "tensor":  # torch/distributed/tensor/** and the pack's helpers only
        return lambda f: f.startswith(("torch/distributed/tensor/", "test_matrix/sharding/"))
    if name == "torch":  # torch.distributed only: not the pack's table rows (an op's lambda line)
        return lambda f: f.startswith("torch/distributed/")
    raise ValueError(f"--files {name}: expected all, torch or tensor")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m porting.matrix.pathsets",
                                     description="group recorded DTensor case paths and list the repeats")
    parser.add_argument("records", nargs="+", help="files written by --port-pathsets")
    parser.add_argument("--files", default="all",
                        help="all (default), torch (torch.distributed only) or tensor (DTensor and the helpers)")
    parser.add_argument("--json", dest="json_out", default=None, help="write the summary and groups here")
    args = parser.parse_args(argv)
    try:
        files = _files_filter(args.files)
        records = [r for path in args.records for r in load_records(path)]
    except (OSError, ValueError) as exc:
        print(f"pathsets: {exc}", file=sys.stderr)
        return 2
    failed = [r["id"] for r in records if r["outcome"] == "failed"]
    per_function = summary(records, files)
    groups = group_repeats(records, files)
    for name, row in per_function.items():
        print(f"{row['cases']:5d} cases {row['distinct']:5d} distinct  {name}")
    print(f"{sum(r['cases'] for r in per_function.values())} cases traced, "
          f"{len(set(signature(case_paths(r), files) for r in records if r['calls']))} distinct paths, "
          f"{sum(len(g) - 1 for g in groups)} repeats in {len(groups)} groups; {len(failed)} failed")
    for group in groups:
        print(f"  {len(group)}: {group[0]}  <=  " + ", ".join(g.split("::", 1)[-1] for g in group[1:]))
    if args.json_out:
        write_atomic(args.json_out, {"summary": per_function, "groups": groups, "failed": failed})
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
