"""Benchmark: `port certify` with audit and hipify beside build and matrix (porting.overlap)
vs. the same pipeline with them run before build (the sequential baseline), in one run.

The project is generated: a CUDA tree from gen_cuda_corpus.py (``--files`` units) as native/,
and a matrix pack of ``--tests`` CPU-bound tests. Build is omitted (``--skip build``: the
generated tree is not meant to compile), so both pipelines run detect, audit, hipify, matrix
and report as real subprocesses; runs alternate (sequential, overlapped, ...) so load drifts
evenly. Prints the medians, the ratio (sequential / overlapped) and each stage's started/elapsed
of the last overlapped run; ``--json FILE`` writes them.

Run: .venv/bin/python bench/bench_certify.py [--files 120] [--tests 8] [--repeats 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_cuda_corpus import generate  # noqa: E402

from porting import certify as certify_mod  # noqa: E402

TEST = """
import pytest

@pytest.mark.parametrize("n", range({tests}))
def test_work(n):
    total = 0
    for i in range({loops}):
        total += i * n % 7
    assert total >= 0
"""


def _project(root: Path, files: int, tests: int, loops: int) -> Path:
    generate(root / "native", files=files, seed=0)
    (root / "test_matrix").mkdir()
    (root / "test_matrix" / "test_work.py").write_text(TEST.format(tests=tests, loops=loops))
    return root


def _sequential(self: certify_mod._Pipeline, sources: list[str]) -> object:
    """The baseline: the side thread is joined before build starts, as the stages ran before."""
    side = BESIDE(self, sources)
    side.thread.join()  # type: ignore[attr-defined]
    return side


BESIDE = certify_mod._Pipeline.sources_beside


def _once(project: Path, out: Path, overlapped: bool) -> tuple[float, dict]:
    certify_mod._Pipeline.sources_beside = BESIDE if overlapped else _sequential  # type: ignore[method-assign]
    start = time.perf_counter()
    record = certify_mod.certify(out, ["native"], progress=certify_mod.Progress(stream=io.StringIO()),
                                 cwd=str(project), skip={"build"},
                                 matrix_args=["--matrix-dir", str(project / "test_matrix")])
    wall = time.perf_counter() - start
    certify_mod._Pipeline.sources_beside = BESIDE  # type: ignore[method-assign]
    return wall, record.to_json()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=120, help="CUDA units in native/ (default 120)")
    parser.add_argument("--tests", type=int, default=8, help="tests in the matrix pack (default 8)")
    parser.add_argument("--loops", type=int, default=3_000_000, help="loop iterations per test")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each pipeline (default 2)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"sequential": [], "overlapped": []}
    stages: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-certify-") as tmp:
        project = _project(Path(tmp) / "proj", args.files, args.tests, args.loops)
        for i in range(args.repeats):
            for kind in ("sequential", "overlapped"):
                wall, record = _once(project, Path(tmp) / f"out-{kind}-{i}", kind == "overlapped")
                times[kind].append(wall)
                states = {s["name"]: s["status"] for s in record["stages"]}
                print(f"{kind:10s} run {i + 1}: {wall:7.2f} s  stages {states}", flush=True)
                if kind == "overlapped":
                    stages = [{k: s[k] for k in ("name", "status", "started", "elapsed")} for s in record["stages"]]
    seq, ovl = statistics.median(times["sequential"]), statistics.median(times["overlapped"])
    result = {"files": args.files, "tests": args.tests, "repeats": args.repeats, "load": os.getloadavg(),
              "sequential_s": round(seq, 2), "overlapped_s": round(ovl, 2), "ratio": round(seq / ovl, 2),
              "stages_overlapped": stages}
    print(f"median sequential {seq:.2f} s, overlapped {ovl:.2f} s: {seq / ovl:.2f}x (load {os.getloadavg()})")
    for s in stages:
        print(f"  {s['name']:8s} started {s['started']:7.2f} s  elapsed {s['elapsed']:7.2f} s  {s['status']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
