"""Benchmark `port emulate`'s fiber runtime against the same loops compiled as plain C++.

One generated program (built by `port emulate`'s own pipeline, g++ -O2) runs, in the same
process and run, each workload twice: as a kernel on the emulator and as the equivalent
plain C++ loop (the baseline: what the CPU does without GPU semantics).

  grid-stride   y[i] = a * x[i] + y[i] over N elements, one emulated thread per element
                (N threads in blocks of 256): emulated threads/s vs native loop iterations/s
  barrier       blocks of 256 threads, each thread K times `s[t] += t; __syncthreads();`:
                barrier crossings/s (one per thread per barrier) vs the native double loop

Best of --repeat, at warp 32 and 64 with the hand-rolled x86-64 fiber switch, with the runner
fast path (threads that never wait run one after another on one stack) and without it
(EMU_NO_RUNNER: the fibers-only scheduler it replaced, the baseline of the runner's speed-up),
and at warp 32 with the portable ucontext switch (the fallback on other architectures).
Nothing here ran on a GPU.

    .venv/bin/python bench/bench_emulate.py [--threads 1048576] [--iters 200] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
from pathlib import Path

PROGRAM = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

__global__ void barriers(int iters, int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = 0;
  for (int k = 0; k < iters; ++k) {
    s[t] += t;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + t] = s[t];
}

__attribute__((noinline)) void native_saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

__attribute__((noinline)) void native_barriers(int blocks, int iters, int* out) {
  static int s[256];
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < 256; ++t) s[t] = 0;
    for (int k = 0; k < iters; ++k)
      for (int t = 0; t < 256; ++t) s[t] += t;
    for (int t = 0; t < 256; ++t) out[b * 256 + t] = s[t];
  }
}

template <class F> double best(int repeat, F f) {
  double b = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    b = std::min(b, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return b;
}

int main(int argc, char** argv) {
  int n = std::atoi(argv[1]), iters = std::atoi(argv[2]), repeat = std::atoi(argv[3]), blocks = std::atoi(argv[4]);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), yn(n, 2.0f);
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  double emu_saxpy = best(repeat, [&] { saxpy<<<(n + 255) / 256, 256>>>(n, 0.5f, dx, dy); cudaDeviceSynchronize(); });
  double nat_saxpy = best(repeat, [&] { native_saxpy(n, 0.5f, x.data(), yn.data()); });
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  int *dout, *hout = new int[blocks * 256], *nout = new int[blocks * 256];
  cudaMalloc(&dout, blocks * 256 * sizeof(int));
  double emu_bar = best(repeat, [&] { barriers<<<blocks, 256>>>(iters, dout); cudaDeviceSynchronize(); });
  double nat_bar = best(repeat, [&] { native_barriers(blocks, iters, nout); });
  cudaMemcpy(hout, dout, blocks * 256 * sizeof(int), cudaMemcpyDeviceToHost);
  bool same = y == yn;
  for (int i = 0; i < blocks * 256; ++i) same = same && hout[i] == nout[i];
  printf("{\"emu_saxpy_s\": %.6f, \"native_saxpy_s\": %.6f, \"emu_barrier_s\": %.6f, \"native_barrier_s\": %.6f, "
         "\"same_results\": %s}\n", emu_saxpy, nat_saxpy, emu_bar, nat_bar, same ? "true" : "false");
  return same ? 0 : 1;
}
"""


def measure(warp: int, args: argparse.Namespace, work: Path, switch: str = "asm", runner: bool = True) -> dict:
    """One run of the program through `port emulate`'s own build and run steps; ``runner=False``
    is the fibers-only scheduler (EMU_NO_RUNNER), the emulator before the runner fast path."""
    from porting.emulate import build, run

    src = work / "bench_emulate.cu"
    src.write_text(PROGRAM)
    tool = build.Toolchain(extra=("-DEMU_UCONTEXT",) if switch == "ucontext" else ())
    program = build.prepare(build.read_files([src], [], [], tool), [src], [], [], tool, work / "src")
    [compiled] = build.compile_all(program, tool, [warp], work / "cache").values()
    if compiled.binary is None:
        raise SystemExit(f"benchmark program does not compile: {compiled.error}")
    workdir = work / f"run-{warp}-{switch}-{'runner' if runner else 'fibers'}"
    run.prepare_workdir(workdir, None)
    argv = [str(args.threads), str(args.iters), str(args.repeat), str(args.blocks)]
    launch = run.Launch(argv, "./bench_emulate", None, {} if runner else {"EMU_NO_RUNNER": "1"})
    result = run.run_binary(compiled.binary, warp, launch, workdir, None, 3600.0, [])
    if result.exit != 0:
        raise SystemExit(f"benchmark program failed at warp {warp}: exit {result.exit}\n{result.stderr}")
    m = json.loads(result.stdout)
    crossings = args.blocks * 256 * args.iters
    row = {
        "warp": warp,
        "switch": switch,
        "scheduler": "runner" if runner else "fibers-only",
        "threads": args.threads,
        "emulated_threads_per_s": args.threads / m["emu_saxpy_s"],
        "native_iterations_per_s": args.threads / m["native_saxpy_s"],
        "saxpy_kernel_s": m["emu_saxpy_s"],
        "barrier_crossings": crossings,
        "emulated_crossings_per_s": crossings / m["emu_barrier_s"],
        "native_iterations_per_s_barrier": crossings / m["native_barrier_s"],
        "barrier_kernel_s": m["emu_barrier_s"],
        "same_results": m["same_results"],
    }
    row["saxpy_slowdown"] = m["emu_saxpy_s"] / m["native_saxpy_s"]
    row["barrier_slowdown"] = m["emu_barrier_s"] / m["native_barrier_s"]
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1 << 20, help="elements = emulated threads (default 1M)")
    ap.add_argument("--iters", type=int, default=200, help="barriers per thread (default 200)")
    ap.add_argument("--blocks", type=int, default=64, help="blocks of 256 threads in the barrier kernel")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None, metavar="FILE")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-emulate-") as tmp:
        for warp in (32, 64):
            rows.append(measure(warp, args, Path(tmp)))
            rows.append(measure(warp, args, Path(tmp), runner=False))
        rows.append(measure(32, args, Path(tmp), switch="ucontext"))
    print(f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}; "
          f"best of {args.repeat}; g++ -O2; native = the same loop as plain C++ in the same process")
    for warp in (32, 64):
        fast, slow = (next(r for r in rows if r["warp"] == warp and r["switch"] == "asm" and r["scheduler"] == k)
                      for k in ("runner", "fibers-only"))
        print(f"warp {warp}: runner vs fibers-only: grid-stride "
              f"{slow['saxpy_kernel_s'] / fast['saxpy_kernel_s']:.1f}x faster, "
              f"barrier kernel {slow['barrier_kernel_s'] / fast['barrier_kernel_s']:.2f}x")
    print(f"{'warp':>4} {'switch':>8} {'scheduler':>11} {'grid-stride threads/s':>22} {'native it/s':>12}"
          f" {'slowdown':>9} {'kernel s':>11} {'barrier crossings/s':>20} {'native it/s':>12} {'slowdown':>9}")
    for r in rows:
        print(f"{r['warp']:>4} {r['switch']:>8} {r['scheduler']:>11} {r['emulated_threads_per_s']:>22.3e}"
              f" {r['native_iterations_per_s']:>12.3e} {r['saxpy_slowdown']:>8.0f}x {r['saxpy_kernel_s']:>11.3f}"
              f" {r['emulated_crossings_per_s']:>20.3e} {r['native_iterations_per_s_barrier']:>12.3e}"
              f" {r['barrier_slowdown']:>8.0f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if all(r["same_results"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
