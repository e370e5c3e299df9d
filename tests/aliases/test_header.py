"""hip_aliases/gpu_runtime.h on its three backends.

CPU: compiled with g++ and run (runtime_test.cpp covers devices, errors, copies, a kernel,
streams, events, pointer attributes, registration and IPC between two processes).
CUDA: compiled and linked with nvcc, not run (no driver here). HIP: compiled for gfx942 and
gfx950 against ROCm 7.1's headers with clang++-22 and -Werror (the ROCm 7 build's own flags), not
linked or run (the compile-only SDK has no runtime). Every backend must define every portable name
of the API list.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from porting.aliases import cpp_gen
from porting.aliases.table import AliasTable

CPP = Path(__file__).resolve().parent / "cpp"


def compile_cmd(cmd: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
    return proc


def names_program(hip_aliases_dir: Path, table: AliasTable) -> str:
    """A TU that fails to compile if the backend lacks any portable name of the API list."""
    resolved = cpp_gen.resolve_api(cpp_gen.load_api(hip_aliases_dir / "gpu_runtime_api.toml"), table)
    lines = ['#include "hip_aliases/gpu_runtime.h"', "int main() {"]
    for _title, names in resolved:
        for n in names:
            guard = f"#if !defined(GPU_RUNTIME_HIP) || HIP_VERSION_MAJOR >= {n.min_hip}" if n.min_hip else "#if 1"
            lines.append(guard)
            if n.kind == "type":
                lines.append(f"  (void)sizeof({n.portable});")
            else:  # GPU backends: renames are macros; CPU: real functions, enumerators, macros
                lines += ["#if defined(GPU_RUNTIME_CPU)", f"  (void)({n.portable});", "#else",
                          f"#ifndef {n.portable}", f'#error "{n.portable} is not defined"', "#endif", "#endif"]
            lines.append("#endif")
    lines += ["  (void)sizeof(gpuDim3);", "  return 0;", "}", ""]
    return "\n".join(lines)


def test_cpu_backend_runs(gxx: str, hip_aliases_dir: Path, tmp_path: Path) -> None:
    exe = tmp_path / "runtime_test"
    compile_cmd([gxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{hip_aliases_dir / 'include'}",
                 str(CPP / "runtime_test.cpp"), "-o", str(exe)])
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK cpu"


def test_cpu_backend_is_chosen_without_gpu_headers_and_can_be_forced(gxx: str, hip_aliases_dir: Path,
                                                                    tmp_path: Path) -> None:
    src = tmp_path / "which.cpp"
    src.write_text('#include "hip_aliases/gpu_runtime.h"\nint main() { std::puts(GPU_RUNTIME_BACKEND_NAME); }\n')
    for flags, want in (([], "cpu"), (["-DGPU_RUNTIME_FORCE_CPU", "-D__HIP_PLATFORM_AMD__"], "cpu")):
        exe = tmp_path / f"which_{want}_{len(flags)}"
        compile_cmd([gxx, "-std=c++11", *flags, f"-I{hip_aliases_dir / 'include'}", str(src), "-o", str(exe)])
        assert subprocess.run([str(exe)], capture_output=True, text=True).stdout.strip() == want


@pytest.mark.parametrize("throws", [False, True])
def test_gpu_check_reports_file_line_and_error(gxx: str, hip_aliases_dir: Path, tmp_path: Path,
                                               throws: bool) -> None:
    exe = tmp_path / "check_fail"
    flags = ["-DGPU_CHECK_THROWS"] if throws else []
    compile_cmd([gxx, "-std=c++17", *flags, f"-I{hip_aliases_dir / 'include'}", str(CPP / "check_fail.cpp"),
                 "-o", str(exe)])
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    expected_line = 7 if throws else 14
    message = (f"check_fail.cpp:{expected_line}: gpuSetDevice(12345) failed: gpuErrorInvalidDevice: "
               "invalid device ordinal")
    if throws:
        assert proc.returncode == 3 and message in proc.stdout
    else:
        assert proc.returncode != 0 and message in proc.stderr


def test_every_portable_name_on_cpu(gxx: str, hip_aliases_dir: Path, table: AliasTable, tmp_path: Path) -> None:
    src = tmp_path / "names.cpp"
    src.write_text(names_program(hip_aliases_dir, table))
    compile_cmd([gxx, "-std=c++17", "-fsyntax-only", f"-I{hip_aliases_dir / 'include'}", str(src)])


def test_cuda_backend_compiles_with_nvcc(nvcc: str, hip_aliases_dir: Path, table: AliasTable,
                                         tmp_path: Path) -> None:
    include = f"-I{hip_aliases_dir / 'include'}"
    compile_cmd([nvcc, "-std=c++17", "-x", "cu", include, str(CPP / "runtime_test.cpp"), "-o",
                 str(tmp_path / "runtime_test_cuda")])  # linked against cudart; not run (no driver)
    src = tmp_path / "names.cu"
    src.write_text(names_program(hip_aliases_dir, table) + "#if !defined(GPU_RUNTIME_CUDA)\n#error backend\n#endif\n")
    compile_cmd([nvcc, "-std=c++17", include, "-c", str(src), "-o", str(tmp_path / "names.o")])


def _rocm7_compile_head(tmp_path: Path) -> list[str]:
    """The ROCm 7 build's own compile flags (porting.builder.hip_toolchains: clang++-22 against the
    ROCm 7.1 SDK headers, gfx942 + gfx950, -Werror)."""
    from porting.builder import _toolchain_here
    from porting.builder.backends import BuildContext
    from porting.builder.hip_toolchains import ROCM7_SDK
    from porting.probe.rocm_sdk import probe_rocm_sdk

    tc = _toolchain_here("native-hip")
    if tc.toolchain != "rocm7-sdk" or not tc.can_compile:
        pytest.skip(f"the compile-only ROCm 7 toolchain is not here ({tc.reason})")
    ctx = BuildContext(path="native-hip", source_dir=tmp_path, out_dir=tmp_path / "out", compiler=tc.compiler,
                       gpu_archs=["gfx942", "gfx950"], alias_include=tmp_path, jobs=1, headers=[],
                       toolchain="rocm7-sdk", sdk=probe_rocm_sdk(Path("/"), os.environ))
    head, _env = ROCM7_SDK.compile_head(ctx)
    return head


def test_hip_backend_compiles_against_rocm_7_1_with_werror(hip_aliases_dir: Path, table: AliasTable,
                                                           tmp_path: Path) -> None:
    """Compiled (host and device, gfx942/gfx950), not linked or run: the SDK has no runtime."""
    head = _rocm7_compile_head(tmp_path)
    include = f"-I{hip_aliases_dir / 'include'}"
    compile_cmd([*head, include, "-c", str(CPP / "runtime_test.cpp"), "-o", str(tmp_path / "runtime_test.o")])
    src = tmp_path / "names.hip"
    src.write_text(names_program(hip_aliases_dir, table) + "#if !defined(GPU_RUNTIME_HIP)\n#error backend\n#endif\n"
                   "#if HIP_VERSION_MAJOR < 7\n#error not the ROCm 7 headers\n#endif\n")
    compile_cmd([*head, include, "-c", str(src), "-o", str(tmp_path / "names.o")])


def test_hip_backend_on_a_host_compiler(gxx: str, hip_aliases_dir: Path, tmp_path: Path) -> None:
    """g++ with the HIP headers (-D__HIP_PLATFORM_AMD__) takes the HIP backend; host code only."""
    if not Path("/usr/include/hip/hip_runtime.h").exists() and not Path("/opt/rocm/include/hip").exists():
        pytest.skip("HIP headers are not installed")
    src = tmp_path / "host.cpp"
    src.write_text('#include "hip_aliases/gpu_runtime.h"\n#if !defined(GPU_RUNTIME_HIP)\n#error backend\n#endif\n'
                   "int main() { void* p = nullptr; GPU_CHECK(gpuMalloc(&p, 16)); GPU_CHECK(gpuFree(p)); }\n")
    include = [f"-I{hip_aliases_dir / 'include'}", "-I/opt/rocm/include"]
    compile_cmd([gxx, "-std=c++17", "-D__HIP_PLATFORM_AMD__", *include, "-c", str(src), "-o", str(tmp_path / "h.o")])
