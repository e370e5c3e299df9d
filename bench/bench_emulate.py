"""Benchmark `port emulate`'s CPU runtime against today's emulator and against plain C++ loops.

One generated program (built by `port emulate`'s own pipeline, g++ -O2) runs, in one process,
each workload as a kernel on the emulator and as the equivalent plain C++ loop (the native
baseline: what the CPU does without GPU semantics), and checks that both computed the same:

  grid-stride   y[i] = a * x[i] + y[i] over N elements, one emulated thread per element (N threads
                in blocks of 256): emulated threads/s vs native loop iterations/s
  barrier       blocks of 256 threads, each thread K times `s[t] += t; __syncthreads();`:
                barrier crossings/s (one per thread per barrier) vs the native double loop
  matmul        C = A * B (M x M floats) as NVIDIA's tiled matrixMul sample does it: 16 x 16 blocks,
                each loading one tile of A and B into __shared__ memory, __syncthreads, multiplying,
                __syncthreads; vs the plain triple loop (same summation order, same bits)
  warp          blocks of 1024 threads, each thread K times a butterfly over its warp
                (v = (v + __shfl_xor(v, o)) & 0xffff for o = warpSize/2 .. 1): collective
                arrivals/s (one per thread per shuffle) vs the same butterfly over an array per warp

The same program is built against two runtimes in the same run and the ratios printed:
  current   this checkout's runtime (the per-block loop; EMU_NO_RUNNER=1: one thread per loop)
  BASELINE  the runtime of commit --baseline (default c775c26, the emulator issue 25 measured:
            "today's"), exported with git archive, with its runner fast path and with
            EMU_NO_RUNNER=1 (c775c26's fibers-only scheduler)
at warp 32 and 64 with the hand-rolled x86-64 switch, and the current runtime at warp 32 with
the portable ucontext switch. Every configuration runs --rounds times, interleaved, and keeps the
best kernel time of all rounds (each round: best of --repeat in one process; times are the CPU
time of the program's thread, which runs every emulated thread), so a load spike
on a shared machine hits every configuration alike. The load average is recorded before and
after. Nothing here ran on a GPU.

    .venv/bin/python bench/bench_emulate.py [--threads 1048576] [--iters 200] [--blocks 64]
        [--matrix 256] [--warp-iters 20] [--repeat 3] [--rounds 2] [--warps 32,64]
        [--baseline COMMIT] [--no-ucontext] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parent.parent
BASELINE_COMMIT = "c775c26"
RUNTIME_PATH = "porting/emulate/runtime"

PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include <ctime>
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

#define TILE 16
__global__ void matmul(int n, const float* a, const float* b, float* c) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    as[ty][tx] = a[row * n + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

__global__ void warpsum(int iters, int* out) {
  int v = threadIdx.x;
  for (int k = 0; k < iters; ++k)
    for (int o = warpSize / 2; o > 0; o /= 2) v = (v + __shfl_xor(v, o)) & 0xffff;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__attribute__((noinline)) void native_warpsum(int blocks, int iters, int width, int* out) {
  std::vector<int> v(width), w(width);
  for (int b = 0; b < blocks; ++b)
    for (int base = 0; base < 1024; base += width) {
      for (int l = 0; l < width; ++l) v[l] = base + l;
      for (int k = 0; k < iters; ++k)
        for (int o = width / 2; o > 0; o /= 2) {
          for (int l = 0; l < width; ++l) w[l] = (v[l] + v[l ^ o]) & 0xffff;
          v.swap(w);
        }
      for (int l = 0; l < width; ++l) out[b * 1024 + base + l] = v[l];
    }
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

__attribute__((noinline)) void native_matmul(int n, const float* a, const float* b, float* c) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + j];
      c[i * n + j] = acc;
    }
}

// the CPU time of this thread (the emulator runs every GPU thread on it): on a shared, loaded
// machine, time slices given to other processes do not count, as they would in wall-clock time
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

template <class F> double best(int repeat, F f) {
  double b = 1e30;
  for (int r = 0; r < repeat; ++r) {
    double t0 = cpu_seconds();
    f();
    b = std::min(b, cpu_seconds() - t0);
  }
  return b;
}

int main(int argc, char** argv) {
  int n = std::atoi(argv[1]), iters = std::atoi(argv[2]), repeat = std::atoi(argv[3]), blocks = std::atoi(argv[4]);
  int m = std::atoi(argv[5]), witers = std::atoi(argv[6]);
  std::vector<float> x(n, 1.0f), y(n, 2.0f), yn(n, 2.0f);
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  double emu_saxpy = best(repeat, [&] { saxpy<<<(n + 255) / 256, 256>>>(n, 0.5f, dx, dy); cudaDeviceSynchronize(); });
  double nat_saxpy = best(repeat, [&] { native_saxpy(n, 0.5f, x.data(), yn.data()); });
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  bool same = y == yn;

  int *dout, *hout = new int[blocks * 256], *nout = new int[blocks * 256];
  cudaMalloc(&dout, blocks * 256 * sizeof(int));
  double emu_bar = best(repeat, [&] { barriers<<<blocks, 256>>>(iters, dout); cudaDeviceSynchronize(); });
  double nat_bar = best(repeat, [&] { native_barriers(blocks, iters, nout); });
  cudaMemcpy(hout, dout, blocks * 256 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < blocks * 256; ++i) same = same && hout[i] == nout[i];

  std::vector<float> a(m * m), b(m * m), c(m * m), cn(m * m);
  for (int i = 0; i < m * m; ++i) { a[i] = (float)(i % 7) - 3.0f; b[i] = (float)(i % 5) * 0.25f; }
  float *da, *db, *dc;
  cudaMalloc(&da, m * m * sizeof(float));
  cudaMalloc(&db, m * m * sizeof(float));
  cudaMalloc(&dc, m * m * sizeof(float));
  cudaMemcpy(da, a.data(), m * m * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), m * m * sizeof(float), cudaMemcpyHostToDevice);
  dim3 tiles(m / TILE, m / TILE), tile(TILE, TILE);
  double emu_mm = best(repeat, [&] { matmul<<<tiles, tile>>>(m, da, db, dc); cudaDeviceSynchronize(); });
  double nat_mm = best(repeat, [&] { native_matmul(m, a.data(), b.data(), cn.data()); });
  cudaMemcpy(c.data(), dc, m * m * sizeof(float), cudaMemcpyDeviceToHost);
  same = same && c == cn;

  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int *dw, *hw = new int[blocks * 1024], *nw = new int[blocks * 1024];
  cudaMalloc(&dw, blocks * 1024 * sizeof(int));
  double emu_warp = best(repeat, [&] { warpsum<<<blocks, 1024>>>(witers, dw); cudaDeviceSynchronize(); });
  double nat_warp = best(repeat, [&] { native_warpsum(blocks, witers, prop.warpSize, nw); });
  cudaMemcpy(hw, dw, blocks * 1024 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < blocks * 1024; ++i) same = same && hw[i] == nw[i];
  printf("{\"emu_warp_s\": %.6f, \"native_warp_s\": %.6f, ", emu_warp, nat_warp);
  printf("\"emu_saxpy_s\": %.6f, \"native_saxpy_s\": %.6f, \"emu_barrier_s\": %.6f, \"native_barrier_s\": %.6f, "
         "\"emu_matmul_s\": %.6f, \"native_matmul_s\": %.6f, \"same_results\": %s}\n",
         emu_saxpy, nat_saxpy, emu_bar, nat_bar, emu_mm, nat_mm, same ? "true" : "false");
  return same ? 0 : 1;
}
"""

# (key in the program's output, what one unit of work is, units of work for the arguments)
WORKLOADS = {
    "saxpy": ("emulated threads", lambda a, w: a.threads),
    "barrier": ("barrier crossings", lambda a, w: a.blocks * 256 * a.iters),
    "matmul": ("barrier crossings", lambda a, w: a.matrix * a.matrix * 2 * (a.matrix // 16)),
    "warp": ("collective arrivals", lambda a, w: a.blocks * 1024 * a.warp_iters * (w.bit_length() - 1)),
}


@contextlib.contextmanager
def runtime_of(commit: str | None, work: Path) -> Iterator[None]:
    """Builds against the runtime of `commit` (None: this checkout's), exported with git."""
    if commit is None:
        yield
        return
    dest = work / f"runtime-{commit}"
    if not dest.is_dir():
        try:
            tar = subprocess.run(["git", "-C", str(REPO), "archive", commit, RUNTIME_PATH],
                                 check=True, capture_output=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            raise SystemExit(f"bench_emulate: cannot export {RUNTIME_PATH} at {commit} with git: {e}") from None
        (work / "export").mkdir(exist_ok=True)
        subprocess.run(["tar", "-x", "-C", str(work / "export")], input=tar, check=True)
        (work / "export" / RUNTIME_PATH).rename(dest)
    from porting import assets
    from porting.emulate import rewrite

    # that commit's own list of runtime sources (a later checkout may have added a .cpp file), and
    # launches written for it (a runtime before c0c590e has no LaunchConfig::named)
    sources = tuple(sorted(p.name for p in dest.glob("emu_*.cpp")))
    named = "named(" in (dest / "emu_device.h").read_text()
    with mock.patch.object(assets, "emulate_runtime_dir", lambda: dest), \
            mock.patch.object(assets, "EMULATE_RUNTIME_SOURCES", sources), \
            mock.patch.object(rewrite, "NAME_LAUNCHES", named):
        yield


def measure(args: argparse.Namespace, work: Path, config: dict) -> dict:
    """One run of the program through `port emulate`'s own build and run steps."""
    from porting.emulate import build, run

    src = work / "bench_emulate.cu"
    src.write_text(PROGRAM)
    tool = build.Toolchain(extra=("-DEMU_UCONTEXT",) if config["switch"] == "ucontext" else ())
    if config["commit"] is not None:
        tool.opt = args.baseline_opt  # the baseline as it was built (-O2 up to e4c4af0)
    name = f"{config['runtime']}-{config['warp']}-{config['switch']}-{config['scheduler']}"
    with runtime_of(config["commit"], work):
        program = build.prepare(build.read_files([src], [], [], tool), [src], [], [], tool, work / f"src-{name}")
        [compiled] = build.compile_all(program, tool, [config["warp"]], work / "cache").values()
    if compiled.binary is None:
        raise SystemExit(f"benchmark program does not compile ({name}): {compiled.error}")
    workdir = work / f"run-{name}"
    run.prepare_workdir(workdir, None)
    argv = [str(args.threads), str(args.iters), str(args.repeat), str(args.blocks), str(args.matrix),
            str(args.warp_iters)]
    env = {"EMU_NO_RUNNER": "1"} if config["no_runner"] else {}
    result = run.run_binary(compiled.binary, config["warp"], run.Launch(argv, "./bench_emulate", None, env),
                            workdir, None, 3600.0, [])
    if result.exit != 0:
        raise SystemExit(f"benchmark program failed ({name}): exit {result.exit}\n{result.stderr}")
    return json.loads(result.stdout)


def configs(warps: list[int], baseline: str, ucontext: bool) -> list[dict]:
    out = []
    for warp in warps:
        for runtime, commit in (("current", None), (baseline, baseline)):
            for no_runner in (False, True):
                scheduler = ("per-block loop" if runtime == "current" else "runner") if not no_runner else (
                    "one thread per loop" if runtime == "current" else "fibers-only")
                out.append({"runtime": runtime, "commit": commit, "warp": warp, "switch": "asm",
                            "no_runner": no_runner, "scheduler": scheduler})
    if 32 in warps and ucontext:
        out.append({"runtime": "current", "commit": None, "warp": 32, "switch": "ucontext", "no_runner": False,
                    "scheduler": "per-block loop"})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1 << 20, help="elements = emulated threads (default 1M)")
    ap.add_argument("--iters", type=int, default=200, help="barriers per thread (default 200)")
    ap.add_argument("--blocks", type=int, default=64, help="blocks of 256 threads in the barrier kernel")
    ap.add_argument("--matrix", type=int, default=256, help="matrix size M of matmul (a multiple of 16)")
    ap.add_argument("--warp-iters", type=int, default=20, help="butterflies per thread in the warp kernel")
    ap.add_argument("--baseline", default=BASELINE_COMMIT,
                    help=f"the runtime compared with (default {BASELINE_COMMIT})")
    ap.add_argument("--baseline-opt", default="-O2", help="the baseline's -O level (default -O2: its default)")
    ap.add_argument("--no-ucontext", action="store_true", help="leave out the portable-switch row")
    ap.add_argument("--repeat", type=int, default=3, help="kernel runs per process (best kept)")
    ap.add_argument("--rounds", type=int, default=2, help="processes per configuration, interleaved")
    ap.add_argument("--warps", default="32,64")
    ap.add_argument("--json", default=None, metavar="FILE")
    args = ap.parse_args()
    if args.matrix <= 0 or args.matrix % 16:
        ap.error("--matrix must be a positive multiple of 16")
    warps = [int(w) for w in args.warps.split(",")]
    rows = configs(warps, args.baseline, not args.no_ucontext)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-emulate-") as tmp:
        for _ in range(args.rounds):
            for row in rows:
                m = measure(args, Path(tmp), row)
                for key in WORKLOADS:
                    for side in ("emu", "native"):
                        k = f"{side}_{key}_s"
                        row[k] = min(row.get(k, 1e30), m[k])
                row["same_results"] = row.get("same_results", True) and m["same_results"]
    load_after = os.getloadavg()
    report(args, rows, load_before, load_after)
    if args.json:
        out = {"load_before": load_before, "load_after": load_after, "machine": platform.machine(),
               "cpus": os.cpu_count(), "args": vars(args), "rows": rows}
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0 if all(r["same_results"] for r in rows) else 1


def report(args: argparse.Namespace, rows: list[dict], before: tuple, after: tuple) -> None:
    from porting.emulate import build

    print(f"{platform.machine()}, {os.cpu_count()} CPUs, load average {before[0]:.1f} before, {after[0]:.1f} after; "
          f"best of {args.repeat} x {args.rounds} rounds; g++ {build.Toolchain().opt} (baseline "
          f"{args.baseline} {args.baseline_opt}); native = the same loop as plain C++ in the "
          f"same process; emulated on the CPU, nothing ran on a GPU")
    print(f"{'runtime':>8} {'warp':>4} {'switch':>8} {'scheduler':>19}" +
          "".join(f" {k + ' units/s':>19} {'vs native':>10}" for k in WORKLOADS))
    for r in rows:
        cells = ""
        for key, (_, units) in WORKLOADS.items():
            t = r[f"emu_{key}_s"]
            cells += f" {units(args, r['warp']) / t:>19.3e} {t / r[f'native_{key}_s']:>9.0f}x"
        print(f"{r['runtime']:>8} {r['warp']:>4} {r['switch']:>8} {r['scheduler']:>19}{cells}")
    for warp in sorted({r["warp"] for r in rows}):
        pick = {(r["runtime"], r["no_runner"]): r for r in rows if r["warp"] == warp and r["switch"] == "asm"}
        base = args.baseline
        cur, today, runner = pick[("current", False)], pick[(base, True)], pick[(base, False)]
        for key, (what, _) in WORKLOADS.items():
            k = f"emu_{key}_s"
            print(f"warp {warp} {key:>8} ({what}): {today[k] / cur[k]:6.1f}x faster than {base} EMU_NO_RUNNER, "
                  f"{runner[k] / cur[k]:5.2f}x than {base} as it runs by default; "
                  f"{cur[k] / cur[f'native_{key}_s']:.0f}x slower than native C++")


if __name__ == "__main__":
    sys.exit(main())
