#!/usr/bin/env python3
"""Generate a synthetic CUDA source tree for benchmarking `port hipify` / `port audit`.

The tree looks like a mid-sized CUDA project: kernels (``.cu``) with ``<<<>>>`` launches,
host code (``.cpp``) calling the runtime, cuBLAS and the driver API, CUDA headers
(``.cuh``) and plain C++ headers (``.h``, which hipify leaves unchanged) that include each
other, some of them in ``cuda/`` directories (which hipify renames). Content is
deterministic for a given ``--seed``.

    python bench/gen_cuda_corpus.py OUT_DIR [--files 520] [--lines 400] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

RUNTIME_CALLS = ["cudaMalloc(&ptr, bytes)", "cudaFree(ptr)", "cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost)",
                 "cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream)", "cudaStreamSynchronize(stream)",
                 "cudaDeviceSynchronize()", "cudaGetLastError()", "cudaEventRecord(ev, stream)",
                 "cudaMemsetAsync(ptr, 0, bytes, stream)", "cudaSetDevice(device)"]
BLAS_CALLS = ["cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)",
              "cublasCreate(&handle)", "cublasSetStream(handle, stream)"]
DRIVER_CALLS = ["cuInit(0)", "cuCtxGetCurrent(&ctx)", "cuMemGetAddressRange(&base, &size, dptr)"]
MATH = ["std::max(a, b)", "std::min(a, b)", "std::exp(x)", "std::log(x + 1.0f)", "std::pow(x, 2.0f)"]


def _kernel(rng: random.Random, name: str) -> list[str]:
    body = ["template <typename T>", f"__global__ void {name}(const T* __restrict__ in, T* out, int n) {{",
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "  __shared__ float tile[256];",
            "  if (i >= n) return;",
            "  float v = static_cast<float>(in[i]);"]
    for j in range(rng.randint(6, 14)):
        choice = rng.random()
        if choice < 0.25:
            term = MATH[j % len(MATH)].replace('a, b', 'v, 0.0f').replace('x', 'v')
            body.append(f"  v = v * {rng.uniform(0.5, 2):.3f}f + {term};")
        elif choice < 0.45:
            body.append(f"  v += __shfl_down_sync(0xffffffff, v, {1 << (j % 5)});")
        elif choice < 0.6:
            body.append("  tile[threadIdx.x % 32] = v;  // lane slot")
            body.append("  __syncthreads();")
        elif choice < 0.75:
            body.append(f"  /* step {j}: accumulate across the block */"
                        f" v = tile[(threadIdx.x + {j}) % blockDim.x] + v;")
        else:
            body.append(f"  if (threadIdx.x < {rng.choice([16, 32, 64])}) {{ v = fmaxf(v, __ldg(&in[i])); }}")
    body += ["  out[i] = static_cast<T>(v);", "}", ""]
    return body


def _host(rng: random.Random, fn: str, kernels: list[str]) -> list[str]:
    lines = [f"void {fn}(const float* src, float* dst, int n, cudaStream_t stream) {{",
             "  void* ptr = nullptr; size_t bytes = n * sizeof(float);",
             "  float* d = dst; const float* s = src; void* dst_v = d; const void* src_v = s;",
             "  (void)dst_v; (void)src_v;"]
    for _ in range(rng.randint(4, 10)):
        call = rng.choice(RUNTIME_CALLS).replace("dst, src", "dst_v, src_v")
        lines.append(f"  CHECK_CUDA({call});")
        if kernels and rng.random() < 0.5:
            k = rng.choice(kernels)
            lines.append(f"  {k}<float><<<(n + 255) / 256, 256, 0, stream>>>(s, d, n);")
    lines += ["  CHECK_CUDA(cudaGetLastError());", "}", ""]
    return lines


def generate(out: Path, files: int = 520, lines_per_file: int = 480, seed: int = 0) -> dict[str, int]:
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    n_mods = max(1, files // 13)
    total_files = total_lines = 0
    for m in range(n_mods):
        mod = out / f"mod{m:03d}"
        sub = mod / ("cuda" if m % 3 == 0 else "kernels")
        sub.mkdir(parents=True, exist_ok=True)
        headers: list[tuple[str, list[str]]] = []
        # plain C++ header (hipify leaves it unchanged) and CUDA headers that include each other
        util = ["#pragma once", "#include <cstddef>", "#include <cstdint>", "",
                f"namespace mod{m} {{", "inline int ceil_div(int a, int b) { return (a + b - 1) / b; }", "}", ""]
        headers.append((f"mod{m:03d}/util.h", util))
        common = ["#pragma once", "#include <cuda_runtime.h>", "#include <cublas_v2.h>", '#include "util.h"', "",
                  "#define CHECK_CUDA(expr) do { cudaError_t err_ = (expr); if (err_ != cudaSuccess) { \\",
                  "    fprintf(stderr, \"CUDA error %s\\n\", cudaGetErrorString(err_)); abort(); } } while (0)", ""]
        headers.append((f"mod{m:03d}/common.cuh", common))
        for h in range(3):
            hl = ["#pragma once", '#include "../common.cuh"' if sub.name else '#include "common.cuh"']
            if h > 0:
                hl.append(f'#include "ops{h - 1}.cuh"')
            names = [f"k{m}_{h}_{i}" for i in range(2)]
            for name in names:
                hl += _kernel(rng, name)
            headers.append((f"mod{m:03d}/{sub.name}/ops{h}.cuh", hl))
        for rel, body in headers:
            body = _pad(rng, body, lines_per_file // 2)
            (out / rel).write_text("\n".join(body) + "\n")
            total_files += 1
            total_lines += len(body) + 1
        for f in range(files // n_mods - len(headers)):
            kernels: list[str] = []
            body = [f"// generated translation unit {m}.{f}", "#include <cstdio>", "#include <cstdlib>",
                    f'#include "ops{f % 3}.cuh"', '#include "../util.h"', ""]
            is_cu = f % 2 == 0
            if is_cu:
                for i in range(rng.randint(2, 4)):
                    name = f"tu{m}_{f}_{i}"
                    kernels.append(name)
                    body += _kernel(rng, name)
            for i in range(rng.randint(3, 6)):
                body += _host(rng, f"run{m}_{f}_{i}", kernels)
            if rng.random() < 0.3:
                body += ["void blas_path(cublasHandle_t handle, cudaStream_t stream, int m, int n, int k,",
                         "               const float* a, int lda, const float* b, int ldb, float* c, int ldc) {",
                         "  float alpha = 1.0f, beta = 0.0f;"] + [f"  {c};" for c in BLAS_CALLS] + ["}", ""]
            if rng.random() < 0.2:
                body += ["void driver_path() {", "  CUcontext ctx; CUdeviceptr base, dptr = 0; size_t size;"] + \
                        [f"  (void){c};" for c in DRIVER_CALLS] + ["}", ""]
            body = _pad(rng, body, lines_per_file)
            ext = ".cu" if is_cu else ".cpp"
            (sub / f"tu{f:03d}{ext}").write_text("\n".join(body) + "\n")
            total_files += 1
            total_lines += len(body) + 1
    return {"files": total_files, "lines": total_lines}


def _pad(rng: random.Random, body: list[str], target: int) -> list[str]:
    """Pad with realistic filler (comments, host helpers) up to about ``target`` lines."""
    i = 0
    while len(body) < target:
        i += 1
        if rng.random() < 0.4:
            body += [f"// Note {i}: this helper keeps the launch configuration in one place so that",
                     "// tuning the block size does not require touching every call site."]
        else:
            body += [f"static inline int helper_{i}_{rng.randrange(1 << 30)}(int x) {{",
                     f"  int acc = x * {rng.randint(2, 9)};",
                     f"  for (int j = 0; j < {rng.randint(2, 16)}; ++j) acc ^= (acc << 1) + j;",
                     "  return acc;", "}"]
    return body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=520)
    parser.add_argument("--lines", type=int, default=480, help="approximate lines per translation unit")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    stats = generate(args.out, args.files, args.lines, args.seed)
    print(f"{args.out}: {stats['files']} files, {stats['lines']} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
