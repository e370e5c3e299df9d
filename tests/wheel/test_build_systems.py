"""What users' build systems get from us: `port aliases --include-dir`, the CMake module
(cmake/RocmPort.cmake: `port hipify` at build time + our include dir), compiled for real.

What runs where (this machine has no GPU): the CPU backend program is executed; nvcc compiles
the CUDA backend (no driver to run it); the CMake project is hipified, compiled and linked
against the HIP headers and libamdhip64 on the machine (Debian's HIP 5.2) and executed, where
the HIP runtime reports its device count or its error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porting import assets

KERNEL = r"""
#include "hip_aliases/gpu_runtime.h"
#include <cstdio>
__global__ void scale(float* x, float a, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) x[i] *= a;
}
int main() {
  const int n = 100;
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  float* d = nullptr;
  GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&d), sizeof h));
  GPU_CHECK(gpuMemcpy(d, h, sizeof h, gpuMemcpyHostToDevice));
  GPU_LAUNCH_KERNEL(scale, dim3(4), dim3(32), 0, 0, d, 3.0f, n);
  GPU_CHECK(gpuMemcpy(h, d, sizeof h, gpuMemcpyDeviceToHost));
  GPU_CHECK(gpuFree(d));
  std::printf("%s %g %g\n", GPU_RUNTIME_BACKEND_NAME, h[1], h[99]);
}
"""

DEVICES = "#include <cuda_runtime.h>\nint devices() {\n  int n = 0;\n  cudaError_t e = cudaGetDeviceCount(&n);\n" \
          "  return e == cudaSuccess ? n : -1000 - static_cast<int>(e);\n}\n"
MAIN = r"""
#include "hip_aliases/gpu_runtime.h"
#include <cstdio>
int devices();
int main() { std::printf("%s %d\n", GPU_RUNTIME_BACKEND_NAME, devices()); }
"""
CMAKELISTS = """cmake_minimum_required(VERSION 3.19)
project(demo LANGUAGES CXX)
execute_process(COMMAND "${ROCM_PORT_EXECUTABLE}" aliases --cmake-dir
                OUTPUT_VARIABLE port_cmake OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
list(APPEND CMAKE_MODULE_PATH "${port_cmake}")
include(RocmPort)
add_executable(demo src/main.cpp src/devices.cpp)
rocm_port_hipify(demo SOURCE_DIR src)
# host code against the HIP runtime: a host compiler with the HIP headers and libamdhip64
target_compile_definitions(demo PRIVATE __HIP_PLATFORM_AMD__)
target_include_directories(demo PRIVATE ${HIP_INCLUDE})
target_link_directories(demo PRIVATE ${HIP_LIB})
target_link_libraries(demo PRIVATE amdhip64)
"""


def port_command(tmp_path: Path) -> Path:
    """A `port` executable for this interpreter and this checkout (what a build system calls)."""
    script = tmp_path / "bin" / "port"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m porting \"$@\"\n")
    script.chmod(0o755)
    return script


def run(argv: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, argv))}\n{proc.stdout}\n{proc.stderr}"
    return proc


def include_dir(tmp_path: Path) -> str:
    out = run([str(port_command(tmp_path)), "aliases", "--include-dir"]).stdout.strip()
    assert Path(out) == assets.aliases_include()
    return out


def test_include_dir_builds_and_runs_a_kernel_on_the_cpu_backend(tmp_path):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    src = tmp_path / "scale.cpp"
    src.write_text(KERNEL)
    run([cxx, "-std=c++17", f"-I{include_dir(tmp_path)}", str(src), "-o", str(tmp_path / "scale")])
    assert run([str(tmp_path / "scale")]).stdout.split() == ["cpu", "3", "297"]


def test_include_dir_compiles_a_cuda_source_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
                                    else None)
    if nvcc is None:
        pytest.skip("no nvcc")
    src = tmp_path / "scale.cu"
    src.write_text(KERNEL + "#if !defined(GPU_RUNTIME_CUDA)\n#error backend\n#endif\n")
    run([nvcc, "-std=c++17", f"-I{include_dir(tmp_path)}", "-c", str(src), "-o", str(tmp_path / "scale.o")])
    assert (tmp_path / "scale.o").stat().st_size > 0


def _hip_install() -> tuple[Path, Path] | None:
    for inc, lib in ((Path("/opt/rocm/include"), Path("/opt/rocm/lib")),
                     (Path("/usr/include"), Path("/usr/lib/x86_64-linux-gnu"))):
        if (inc / "hip" / "hip_runtime.h").is_file() and (lib / "libamdhip64.so").exists():
            return inc, lib
    return None


def test_cmake_module_hipifies_at_build_time_and_adds_our_include_dir(tmp_path):
    hip = _hip_install()
    if shutil.which("cmake") is None or hip is None:
        pytest.skip("needs cmake and the HIP headers + libamdhip64")
    proj, build = tmp_path / "proj", tmp_path / "build"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "devices.cpp").write_text(DEVICES)
    (proj / "src" / "main.cpp").write_text(MAIN)
    (proj / "CMakeLists.txt").write_text(CMAKELISTS)
    run(["cmake", "-S", str(proj), "-B", str(build), f"-DROCM_PORT_EXECUTABLE={port_command(tmp_path)}",
         f"-DHIP_INCLUDE={hip[0]}", f"-DHIP_LIB={hip[1]}"])
    log = run(["cmake", "--build", str(build), "--verbose"]).stdout
    hipified = build / "demo.hipified" / "devices_hip.cpp"
    assert "hipGetDeviceCount" in hipified.read_text() and "cudaGetDeviceCount" not in hipified.read_text()
    assert "devices_hip.cpp" in log and f"-I{assets.aliases_include()}" in log
    assert "src/devices.cpp" not in log.replace("demo.hipified", "")  # the CUDA file itself is not compiled
    backend, count = run([str(build / "demo")]).stdout.split()
    assert backend == "hip"  # gpu_runtime.h from our include dir took the HIP backend
    assert int(count) >= 0 or int(count) == -1100  # devices, or -1000 - hipErrorNoDevice (100) on no GPU

    # A changed CUDA source is hipified again by the build, not by hand.
    changed = proj / "src" / "devices.cpp"
    changed.write_text(DEVICES.replace("-1000", "-2000"))
    later = hipified.stat().st_mtime + 10  # newer than every output, whatever the clock's granularity
    os.utime(changed, (later, later))
    run(["cmake", "--build", str(build)])
    assert "-2000" in hipified.read_text()
    count = int(run([str(build / "demo")]).stdout.split()[1])
    assert count >= 0 or count == -2100


def test_cargo_package_accepts_the_crate_offline(tmp_path):
    """`cargo package --offline` with its verification build (no --no-verify); --allow-dirty
    because a working tree under test may hold uncommitted edits: the contents are checked here."""
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not os.access(cargo, os.X_OK):
        pytest.skip("no cargo")
    crate = Path(run([str(port_command(tmp_path)), "aliases", "--crate-dir"]).stdout.strip())
    assert crate == assets.rust_crate()
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target"), "PORT_GPU_PLATFORM": "none"}
    proc = subprocess.run([cargo, "package", "--offline", "--allow-dirty", "--package", "hip-aliases"],
                          cwd=crate, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Verifying hip-aliases" in proc.stderr
    [packed] = (tmp_path / "target" / "package").glob("hip-aliases-*.crate")
    import tarfile

    with tarfile.open(packed) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames()}
    assert {"Cargo.toml", "README.md", "build.rs", "src/lib.rs", "src/build.rs", "src/table.rs"} <= names


SCALE_CU = r"""#include <cuda_runtime.h>
#include <cstdio>
#include "hip_aliases/gpu_runtime.h"

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  float* d = nullptr;
  cudaError_t e = cudaMalloc(&d, 64 * sizeof(float));
  if (e == cudaSuccess) {
    scale<<<1, 64>>>(d, 2.0f, 64);
    e = cudaDeviceSynchronize();
    cudaFree(d);
  }
  std::printf("%s %s\n", GPU_RUNTIME_BACKEND_NAME, cudaGetErrorName(e));
}
"""
CMAKELISTS_KERNEL = """cmake_minimum_required(VERSION 3.19)
project(kernel LANGUAGES CXX)
list(APPEND CMAKE_MODULE_PATH "${PORT_CMAKE_DIR}")
include(RocmPort)
add_executable(scale src/scale.cu)
rocm_port_hipify(scale SOURCE_DIR src)   # scale.cu -> scale.hip, compiled as CXX by hipcc
target_compile_options(scale PRIVATE -x hip --offload-arch=gfx90a)
"""


def test_cmake_module_builds_a_cuda_kernel_with_hipcc(tmp_path):
    """A .cu file with a <<<>>> launch through rocm_port_hipify(), compiled and linked by hipcc
    (Debian's HIP 5.2 here, for gfx90a: the module's mechanics, not ROCm 7) and executed."""
    hipcc = shutil.which("hipcc")
    if shutil.which("cmake") is None or hipcc is None:
        pytest.skip("needs cmake and hipcc")
    proj, build = tmp_path / "proj", tmp_path / "build"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "scale.cu").write_text(SCALE_CU)
    (proj / "CMakeLists.txt").write_text(CMAKELISTS_KERNEL)
    cmake_dir = run([str(port_command(tmp_path)), "aliases", "--cmake-dir"]).stdout.strip()
    # hipcc 5.2 leaves empty mkdtemp directories behind (CMakeCXXCompilerABI-XXXXXX): keep them
    # in the test's own directory, not in the machine's /tmp.
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "HIP_PLATFORM": "amd", "TMPDIR": str(tmp_path / "tmp")}
    for argv in (["cmake", "-S", str(proj), "-B", str(build), f"-DCMAKE_CXX_COMPILER={hipcc}",
                  f"-DROCM_PORT_EXECUTABLE={port_command(tmp_path)}", f"-DPORT_CMAKE_DIR={cmake_dir}"],
                 ["cmake", "--build", str(build)]):
        proc = subprocess.run(argv, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    hip = (build / "scale.hipified" / "scale.hip").read_text()
    assert "hipLaunchKernelGGL" in hip and "<<<" not in hip and "hipMalloc" in hip
    backend, status = run([str(build / "scale")]).stdout.split()
    assert backend == "hip" and status.startswith("hip")  # hipSuccess on an AMD GPU, else the runtime's error


CHECK_CMAKELISTS = """cmake_minimum_required(VERSION 3.19)
project(ready LANGUAGES CXX)
execute_process(COMMAND "${ROCM_PORT_EXECUTABLE}" aliases --cmake-dir
                OUTPUT_VARIABLE port_cmake OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
list(APPEND CMAKE_MODULE_PATH "${port_cmake}")
include(RocmPort)
rocm_port_rocm7_check(kernels SOURCE_DIR src ARCHS gfx942 gfx950)
"""
CHECK_CU = ("#include <cuda_runtime.h>\n__global__ void scale(float* x, float a, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= a;\n}\n"
            "cudaError_t launch(float* x, int n) {\n  scale<<<(n + 63) / 64, 64>>>(x, 2.0f, n);\n"
            "  return cudaDeviceSynchronize();\n}\n")
BROKEN_CU = ("#include <cuda_runtime.h>\nvoid broken(float* x) {\n"
             "  x[0] = 1.0f;\n  undeclared_in_rocm7(x);\n}\n")


def _rocm7_toolchain() -> bool:
    from porting.probe.rocm_sdk import probe_rocm_sdk

    return probe_rocm_sdk(Path("/"), os.environ).found


def test_cmake_rocm7_check_target_compiles_each_unit_for_both_archs(tmp_path):
    if shutil.which("cmake") is None or not _rocm7_toolchain():
        pytest.skip("needs cmake, clang 22 and the ROCm 7 SDK (`port sdk fetch`)")
    proj, build = tmp_path / "proj", tmp_path / "build"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "scale.cu").write_text(CHECK_CU)
    (proj / "CMakeLists.txt").write_text(CHECK_CMAKELISTS)
    run(["cmake", "-S", str(proj), "-B", str(build), f"-DROCM_PORT_EXECUTABLE={port_command(tmp_path)}"])
    run(["cmake", "--build", str(build), "--target", "kernels_rocm7_check"])
    report = __import__("json").loads((build / "kernels.rocm7-check" / "check.json").read_text())
    assert report["archs"] == ["gfx942", "gfx950"]
    assert [(u["source"], u["class"], sorted(u["per_arch"])) for u in report["units"]] == [
        ("scale.cu", "compiles", ["gfx942", "gfx950"])]
    # a unit that does not compile for ROCm 7 fails the target
    (proj / "src" / "broken.cu").write_text(BROKEN_CU)
    run(["cmake", "-S", str(proj), "-B", str(build)])
    proc = subprocess.run(["cmake", "--build", str(build), "--target", "kernels_rocm7_check"],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "broken.cu" in proc.stdout + proc.stderr
