"""Benchmark the native shard kernels on the cpu build path.

For each case, one run measures (best of --repeat, wall time) the bytes of one shard moved by:
  native     porting.native.gather_shard / scatter_shard / reduce (ctypes -> C++)
  memcpy     libc memmove of the same number of bytes (ctypes.memmove), single-threaded: the
             bandwidth ceiling for one contiguous copy; the ratio column is against this
  torch.cat  torch.cat of the narrowed view(s)  (gather reference)
  contiguous tensor.narrow(...).contiguous()     (gather reference; a no-op view for dim-0
             chunks of a contiguous tensor, so reported but not a copy there)
  copy_      a preallocated out.copy_(view)       (gather/scatter reference)
  torch      torch.add / torch.maximum into the same preallocated output, one buffer at a time
             (reduce reference: the same allocation policy as ours, nothing allocated per call)
  stack      torch.stack(bufs).sum(0) / .amax(0): allocates and copies every call (shown for
             comparison only; it is not the baseline of the reduce ratio)

    .venv/bin/python bench/bench_native.py [--mib 64] [--repeat 15] [--threads 1] \
        [--build-dir build/port] [--json out.json]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import time
from collections.abc import Callable


def best(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Best-of-``repeat`` wall time of each function, run round-robin so that a noisy
    neighbour slows every candidate alike instead of whichever ran at the wrong moment."""
    for fn in fns.values():
        fn()  # warm up (page faults, allocator)
    times: dict[str, float] = {name: float("inf") for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name] = min(times[name], time.perf_counter() - t0)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64, help="size of the full tensor in MiB (default 64)")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--build-dir", default="build/port")
    ap.add_argument("--threads", type=int, default=1,
                    help="host threads the native library may use per copy above 4 MiB, and torch's "
                         "intra-op threads for the baselines (default 1)")
    ap.add_argument("--json", default=None, metavar="FILE")
    args = ap.parse_args()

    import torch

    from porting import native

    t_build = time.perf_counter()
    lib = native.ensure_built("cpu", args.build_dir)
    lib.set_num_threads(args.threads)
    torch.set_num_threads(max(args.threads, 1))  # the baselines get the threads ours gets
    build_s = time.perf_counter() - t_build
    n = args.mib * 1024 * 1024 // 4
    side = int(n ** 0.5)
    cube = int(round(n ** (1 / 3)))
    torch.manual_seed(0)
    square = torch.randn(side, side)
    cubic = torch.randn(cube, cube, cube)
    cases = [  # name, tensor, dim, chunks, index
        ("contiguous chunk (dim 0 of 2-d, 4-way)", square, 0, 4, 1),
        ("row-strided chunk (dim 1 of 2-d, 4-way)", square, 1, 4, 1),
        ("uneven inner chunk (dim 2 of 3-d, 3-way)", cubic, 2, 3, 2),
        ("transposed input (dim 0 of t(), 4-way)", square.t(), 0, 4, 1),
    ]
    rows: list[dict[str, object]] = []

    def add(op: str, case: str, nbytes: int, timings: dict[str, float]) -> None:
        memcpy = timings["memcpy"]
        row = {"op": op, "case": case, "bytes": nbytes,
               "gbps": {k: nbytes / v / 1e9 for k, v in timings.items()},
               "ratio_vs_memcpy": {k: memcpy / v for k, v in timings.items()}}
        rows.append(row)

    for name, t, dim, chunks, index in cases:
        start, length = native.chunk_bounds(t.shape[dim], chunks, index)
        view = t.narrow(dim, start, length)
        out = torch.empty(view.shape, dtype=t.dtype)
        nbytes = out.numel() * out.element_size()
        # the same number of bytes from the same source tensor into the same destination
        memcpy = lambda: ctypes.memmove(out.data_ptr(), t.data_ptr(), nbytes)  # noqa: E731
        timings = best({
            "native": lambda: native.gather(t, dim, start, length, out=out, lib=lib),
            "memcpy": memcpy,
            "torch.cat": lambda: torch.cat([view], dim=dim),
            "contiguous": lambda: view.contiguous(),
            "copy_": lambda: out.copy_(view),
        }, args.repeat)
        assert torch.equal(out, view)
        add("gather", name, nbytes, timings)
        dst = t.clone()
        staging = view.contiguous().clone()
        dview = dst.narrow(dim, start, length)
        timings = best({
            "native": lambda: native.scatter(staging, dst, dim, start, length, lib=lib),
            "memcpy": memcpy,
            "copy_": lambda: dview.copy_(staging),
        }, args.repeat)
        add("scatter", name, nbytes, timings)

    k = 4
    bufs = [torch.randn(n // k) for _ in range(k)]
    red_out = torch.empty_like(bufs[0])
    nbytes = sum(b.numel() * 4 for b in bufs)
    big_src, big_dst = torch.empty(nbytes // 4), torch.empty(nbytes // 4)
    def inplace(fn: Callable[..., object]) -> Callable[[], object]:
        def run() -> object:  # out = b0 op b1, then out = out op bi: reads and writes what ours does
            fn(bufs[0], bufs[1], out=red_out)
            for b in bufs[2:]:
                fn(red_out, b, out=red_out)
            return red_out
        return run

    for op, ref, stack in (("sum", inplace(torch.add), lambda: torch.stack(bufs).sum(0)),
                           ("max", inplace(torch.maximum), lambda: torch.stack(bufs).amax(0))):
        timings = best({
            "native": lambda: native.reduce(bufs, op, out=red_out, lib=lib),
            "memcpy": lambda: ctypes.memmove(big_dst.data_ptr(), big_src.data_ptr(), nbytes),
            "torch": ref,
            "stack": stack,
        }, args.repeat)
        native.reduce(bufs, op, out=red_out, lib=lib)
        assert torch.equal(red_out, ref()), f"reduce {op}: native and the in-place torch baseline differ"
        row_case = f"{k} x {n // k * 4 >> 20} MiB float32"
        add(f"reduce {op}", row_case, nbytes, timings)
        rows[-1]["ratio_vs_torch"] = timings["torch"] / timings["native"]

    print(f"cpu build: {build_s:.2f}s (incl. up-to-date check); native threads {lib.num_threads()}; "
          f"torch threads {torch.get_num_threads()}; "
          f"{os.cpu_count()} cores; {platform.processor() or platform.machine()}")
    print(f"{'op':<11} {'case':<42} {'MiB':>5}  " + "  ".join(f"{c:>18}" for c in
                                                              ("native", "memcpy", "torch.cat", "contiguous",
                                                               "copy_", "torch", "stack")))
    for row in rows:
        cells = []
        for col in ("native", "memcpy", "torch.cat", "contiguous", "copy_", "torch", "stack"):
            g = row["gbps"].get(col)  # type: ignore[union-attr]
            r = row["ratio_vs_memcpy"].get(col)  # type: ignore[union-attr]
            cells.append(f"{g:6.2f} GB/s {r:5.2f}x" if g is not None else " " * 18)
        print(f"{row['op']:<11} {row['case']:<42} {int(row['bytes']) >> 20:>5}  " + "  ".join(cells))
    print("ratios are against memcpy of the same bytes (higher is faster)")
    for row in rows:
        if "ratio_vs_torch" in row:
            print(f"{row['op']}: native / in-place torch (torch time / native time) = {row['ratio_vs_torch']:.2f}x")
    if args.json:
        from porting.atomic import write_json

        write_json(args.json, {"schema": 1, "bench": "native", "mib": args.mib, "repeat": args.repeat,
                               "torch_threads": torch.get_num_threads(),
                               "native_threads": lib.num_threads(), "cores": os.cpu_count(),
                               "build_seconds": build_s, "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
