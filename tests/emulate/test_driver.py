"""The plain parts of the CUDA driver API (runtime/emu_driver.h), what stays refused, and peer access
on the one emulated device."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porting.emulate import Unsupported
from porting.emulate.refuse import scan_text

DRIVER = Path(__file__).parent / "programs" / "driver"
MODULES = DRIVER / "modules"


def test_devices_contexts_memory_streams_and_events(emulate_program):
    """The driver's own rules (nothing before cuInit, no memory without a current context, one
    device) and the values: a runtime kernel over cuMemAlloc'd memory, the 8/16/32-bit memsets,
    asynchronous copies on a driver stream."""
    result = emulate_program(DRIVER / "driver_api.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    for run in result.runs:
        assert not run.masked
        assert run.stdout.splitlines() == [
            "before init: CUDA_ERROR_NOT_INITIALIZED CUDA_ERROR_NOT_INITIALIZED",
            "version ok 1, devices 1, get 0 CUDA_SUCCESS, get 1 CUDA_ERROR_INVALID_DEVICE",
            "name set 1, warp as cudaDeviceGetAttribute 1, capability 8.0, multiprocessors>0 1, tpb 1024, mem>0 1",
            "compute mode default 1, prohibited differs 1",
            "no context: CUDA_ERROR_INVALID_CONTEXT",
            "context current 1",
            # sum over i < 1000 of (3i + 1) * 5 + i = 16 * 499500 + 5000
            "kernel over driver memory: ok, sum 7997000",
            "memset d32 deadbeef deadbeef, d16/d8 7f7f 127f 1234",
            "misaligned d32: CUDA_ERROR_INVALID_VALUE",
            "async copy back 1 2998, event interval nonnegative 1, queries CUDA_SUCCESS CUDA_SUCCESS",
            "mem info CUDA_SUCCESS 1",
            "error string: invalid argument",
            "after destroy: CUDA_ERROR_INVALID_CONTEXT",
        ]


def test_a_module_is_built_from_the_tree_and_launched_three_ways(emulate_program):
    """cuModuleLoad of "warp_sum.ptx" runs warp_sum.cu's extern "C" kernel (added to the build:
    only main_same.cpp is named) through kernelParams, `extra` and cuParamSet*/cuLaunchGrid, and
    reads its __device__ variable through cuModuleGetGlobal; the sum of 3 * (i % 7 + 1), i < 1000."""
    result = emulate_program(MODULES / "main_same.cpp")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert any(f.name == "warp_sum.cu" for f in result.files)
    for run in result.runs:
        assert run.stdout.splitlines() == ["unknown kernel: CUDA_ERROR_NOT_FOUND", "global 'scale': 4 bytes",
                                           "kernelParams: 11991", "extra: 11991", "cuLaunchGrid: 11991"]


def test_driver_api_arrays_and_texture_objects_in_a_module_kernel(emulate_program):
    """cuArrayCreate, cuMemcpy2D to an array and from pitched device memory, cuTexObjectCreate
    over the array (point filter, clamp), read by the module's kernel: the array transposed."""
    result = emulate_program(MODULES / "texture_main.cpp")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == ["0 10 20", "1 11 21", "2 12 22", "3 13 23"]


def test_a_module_kernel_with_a_32_lane_assumption_diverges(emulate_program):
    """"warp_sum_bad64.fatbin" resolves to warp_sum_bad.cu (the stem less its bitness), whose
    `(threadIdx.x & 31) == 0` adds lane 32's partial sum a second time at 64 lanes."""
    result = emulate_program(MODULES / "main_bad.cpp")
    assert result.verdict == "diverged"
    assert any(f.name == "warp_sum_bad.cu" for f in result.files)
    assert result.runs[0].stdout.splitlines()[2] == "kernelParams: 11991"
    assert result.runs[1].stdout.splitlines()[2] != "kernelParams: 11991"


def test_a_module_no_cu_of_the_tree_builds_is_refused_by_name(emulate_program):
    with pytest.raises(Unsupported, match=r"module_launch\.cu:13: a driver-API module that no \.cu of the source "
                                          r"tree builds \('kernel\.cubin': no \.cu named kernel\.cu"):
        emulate_program(DRIVER / "module_launch.cu")


@pytest.mark.parametrize("literal, why", [("/tmp/k.ptx", "a path outside the run directory"),
                                          ("../k.ptx", "a path outside the run directory")])
def test_a_module_path_outside_the_run_directory_is_refused(emulate_program, tmp_path: Path, literal, why):
    (tmp_path / "k.cu").write_text('extern "C" __global__ void k() {}\n')
    src = tmp_path / "load.cpp"
    src.write_text(f'#include <cuda.h>\nint main() {{ CUmodule m; cuInit(0);\n'
                   f'  return cuModuleLoad(&m, "{literal}"); }}\n')
    with pytest.raises(Unsupported, match=rf"load\.cpp:3: .*'{re.escape(literal)}': {why}"):
        emulate_program(src)


def test_an_image_the_tree_did_not_build_stops_the_run_named(emulate_program, tmp_path: Path):
    """PTX embedded in the program (cuda-samples' ptxjit) has no .cu here to run."""
    src = tmp_path / "embedded.cpp"
    src.write_text('#include <cuda.h>\nstatic const char ptx[] = ".version 7.0\\n.target sm_80\\n";\n'
                   "int main() { CUdevice d; CUcontext c; CUmodule m; cuInit(0); cuDeviceGet(&d, 0);\n"
                   "  cuCtxCreate(&c, 0, d); return cuModuleLoadData(&m, ptx); }\n")
    with pytest.raises(Unsupported, match="cuModuleLoadData of an image port emulate did not build"):
        emulate_program(src)


def test_a_mangled_kernel_name_stops_the_run_named(emulate_program, tmp_path: Path):
    """Only C-linkage kernels are registered by name; a C++ kernel's mangled name is named as such."""
    (tmp_path / "k.cu").write_text("__global__ void k(int* p) { *p = 1; }\n")
    src = tmp_path / "mangled.cpp"
    src.write_text('#include <cuda.h>\nint main() { CUdevice d; CUcontext c; CUmodule m; CUfunction f; cuInit(0);\n'
                   '  cuDeviceGet(&d, 0); cuCtxCreate(&c, 0, d); cuModuleLoad(&m, "k.ptx");\n'
                   '  return cuModuleGetFunction(&f, m, "_Z1kPi"); }\n')
    with pytest.raises(Unsupported, match="cuModuleGetFunction of '_Z1kPi', a C\\+\\+ \\(mangled\\) kernel name"):
        emulate_program(src)


def test_registrations_follow_c_linkage_definitions_only():
    from porting.emulate.rewrite import rewrite
    text = ('__constant__ float c[16];\n__device__ int g = 3;\n'
            'extern "C" {\n__global__ void a(int* p) { p[0] = 1; }\n}\n'
            'extern "C" __global__ void b(int);\nextern "C" __global__ void d(int) {}\n__global__ void cpp(int*) {}\n'
            'template <class T> __device__ T t;\n__device__ int f(int x) { return x; }\nextern __device__ int e;\n'
            'struct S { __device__ int m(); };\n')
    out = rewrite(text, "r.cu", None, register=True).text
    assert out.count("\n") == text.count("\n")
    assert re.findall(r'register_kernel\("(\w+)"', out) == ["a", "d"]
    assert re.findall(r'register_global\("(\w+)"', out) == ["c", "g"]
    assert "register_" not in rewrite(text, "r.cu", None).text


def test_a_driver_call_outside_the_subset_is_named(emulate_program, tmp_path: Path):
    src = tmp_path / "register.cu"
    src.write_text("#include <cuda.h>\nint main() {\n  static char buf[64];\n  cuInit(0);\n"
                   "  return cuMemHostRegister(buf, sizeof buf, 0);\n}\n")
    with pytest.raises(Unsupported, match="uses cuMemHostRegister, which port emulate's runtime does not provide"):
        emulate_program(src)


@pytest.mark.parametrize("src, feature", [
    ("void f() { cuLinkCreate(0, 0, 0, &state); }", "the CUDA driver API's linker or libraries"),
    ("void f() { cuLibraryLoadData(&lib, image, 0, 0, 0, 0, 0, 0); }", "the CUDA driver API's linker or libraries"),
    ("void f() { cuMemCreate(&h, size, &prop, 0); }", "the driver API's virtual memory management"),
    ("void f() { cuMemAddressReserve(&p, size, 0, 0, 0); }", "the driver API's virtual memory management"),
    ("#include <cudaEGL.h>\n", "graphics interop"),
    ("void f() { cuGraphicsMapResources(1, &r, 0); }", "graphics interop"),
])
def test_what_of_the_driver_api_stays_refused(src, feature):
    [refusal] = scan_text(src, "d.cu")
    assert refusal.feature.startswith(feature)


def test_the_plain_driver_api_is_not_refused():
    src = ("void f() { cuInit(0); cuDeviceGet(&d, 0); cuCtxCreate(&c, 0, d); cuMemAlloc(&p, 64);\n"
           "  cuMemcpyHtoD(p, h, 64); cuMemsetD32(p, 0, 16); cuEventCreate(&e, 0); cuStreamCreate(&s, 0);\n"
           "  cuMemFree(p); cuCtxDestroy(c); cuModuleGetFunction(&k, m, \"k\");\n"
           "  cuLaunchKernel(k, 1, 1, 1, 32, 1, 1, 0, 0, a, 0); }\n")
    assert scan_text(src, "d.cu") == []


def test_peer_access_on_the_one_emulated_device(emulate_program):
    """Multi-GPU programs are run, not refused: one device, no peer of itself (CUDA's answer
    for a device and itself), copies between devices on device 0. sum of 3i for i < 256 = 97920."""
    result = emulate_program(Path(__file__).parent / "programs" / "runtime" / "peer_access.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout.splitlines() == [
        "devices 1, 0->0 0 (cudaSuccess), 0->1 cudaErrorInvalidDevice",
        "enable cudaErrorInvalidDevice, disable cudaErrorPeerAccessNotEnabled",
        "copied sum 97920, to device 1: cudaErrorInvalidDevice",
        "one device: single-GPU path",
    ]


NVRTC = DRIVER / "nvrtc"


def test_nvrtc_runs_the_tree_source_it_names_compiled_ahead(emulate_program):
    """lane_mod.cu is compiled into the program, copied into each run directory (no --cwd) where
    the program reads it, and nvrtcCompileProgram accepts exactly its bytes."""
    result = emulate_program(NVRTC / "main_same.cpp")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert any(f.name == "lane_mod.cu" for f in result.files)
    for run in result.runs:
        assert run.stdout.splitlines() == ["compile: NVRTC_SUCCESS, log 1 byte(s)", "256 of 256 elements hold i % 32"]
        assert (run.workdir / "lane_mod.cu").read_bytes() == (NVRTC / "lane_mod.cu").read_bytes()


def test_an_nvrtc_kernel_reading_the_hardware_lane_id_diverges(emulate_program):
    result = emulate_program(NVRTC / "main_bad.cpp")
    assert result.verdict == "diverged"
    assert [r.stdout.splitlines()[1] for r in result.runs] == ["256 of 256 elements hold i % 32",
                                                               "128 of 256 elements hold i % 32"]


def test_an_nvrtc_source_changed_in_memory_stops_the_run_named(emulate_program):
    with pytest.raises(Unsupported, match="nvrtcCompileProgram of 'lane_mod.cu', a source that is not one of the .cu"):
        emulate_program(NVRTC / "main_edited.cpp")


def test_nvrtc_on_a_string_that_names_no_tree_file_is_refused(emulate_program, tmp_path: Path):
    src = tmp_path / "inline.cpp"
    src.write_text('#include <nvrtc.h>\nstatic const char* k = "extern \\"C\\" __global__ void f() {}";\n'
                   'int main() { nvrtcProgram p; return nvrtcCreateProgram(&p, k, "f", 0, 0, 0); }\n')
    with pytest.raises(Unsupported, match=r"inline\.cpp:1: NVRTC on a source that is not a \.cu file of the tree"):
        emulate_program(src)


@pytest.mark.parametrize("literal, found", [
    ("vectorAdd_kernel64.fatbin", "vectorAdd_kernel.cu"),   # the samples' bitness suffix
    ("data/asyncAPIDrv.sm_10.cubin", "asyncAPIDrv.cu"),      # the CUDA 2 SDK's architecture suffix
    ("k.ptx", "k.cu"),
    ("sub/k.ptx", "sub/k.cu"),                               # the literal's own subdirectory first
    ("other.ptx", None),
])
def test_a_module_name_resolves_to_the_cu_with_its_stem(tmp_path: Path, literal, found):
    from porting.emulate import modules
    for name in ("vectorAdd_kernel.cu", "asyncAPIDrv.cu", "k.cu", "sub/k.cu"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text('extern "C" __global__ void k() {}\n')
    main = tmp_path / "main.cpp"
    main.write_text(f'#include <cuda.h>\nvoid f(CUmodule* m) {{ cuModuleLoad(m, "{literal}"); }}\n')
    loaded, refused = modules.find([main], [tmp_path])
    if found is None:
        assert not loaded and "'other.ptx': no .cu named other.cu" in refused[0].feature
    else:
        assert [m.source for m in loaded] == [(tmp_path / found).resolve()] and not refused


def test_the_cuda_2_driver_forms_and_cutil_macros(emulate_program, tmp_path: Path):
    """CUT_DEVICE_INIT_DRV, CU_SAFE_CALL, cuDeviceGetProperties (SIMDWidth is the run's warp
    width), cuCtxDetach, and a module named as the CUDA 2 SDK did (data/inc.sm_10.cubin) launched
    with cuParamSet*/cuFuncSetBlockShape/cuLaunchGrid."""
    (tmp_path / "inc.cu").write_text('extern "C" __global__ void inc(int* a, int n) {\n'
                                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) a[i] += i;\n}\n")
    src = tmp_path / "old.cpp"
    src.write_text(
        "#include <cuda.h>\n#include <cutil.h>\n#include <cstdio>\n"
        "int main(int argc, char** argv) {\n  CUdevice dev;\n  CUT_DEVICE_INIT_DRV(dev, argc, argv);\n"
        "  CUdevprop p; CU_SAFE_CALL(cuDeviceGetProperties(&p, dev));\n"
        "  CUcontext ctx; CU_SAFE_CALL(cuCtxCreate(&ctx, 0, dev));\n"
        '  CUmodule m; CU_SAFE_CALL(cuModuleLoad(&m, "data/inc.sm_10.cubin"));\n'
        '  CUfunction f; CU_SAFE_CALL(cuModuleGetFunction(&f, m, "inc"));\n'
        "  int n = 1000; CUdeviceptr d; CU_SAFE_CALL(cuMemAlloc(&d, n * sizeof(int)));\n"
        "  CU_SAFE_CALL(cuMemsetD32(d, 1, n));\n  void* ptr = (void*)(size_t)d;\n"
        "  CU_SAFE_CALL(cuParamSetv(f, 0, &ptr, sizeof ptr)); CU_SAFE_CALL(cuParamSeti(f, sizeof ptr, n));\n"
        "  CU_SAFE_CALL(cuParamSetSize(f, sizeof ptr + sizeof(int)));\n"
        "  CU_SAFE_CALL(cuFuncSetBlockShape(f, 128, 1, 1));\n"
        "  CU_SAFE_CALL(cuLaunchGrid(f, (n + 127) / 128, 1));\n"
        "  int h[1000]; CU_SAFE_CALL(cuMemcpyDtoH(h, d, sizeof h));\n"
        "  long s = 0; for (int i = 0; i < n; ++i) s += h[i];\n"
        '  printf("sum %ld, simd width is warpSize-wide %d\\n", s, p.SIMDWidth >= 32);\n'
        "  CU_SAFE_CALL(cuCtxDetach(ctx));\n  return 0;\n}\n")
    result = emulate_program(src)
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    assert result.runs[0].stdout == f"sum {1000 + sum(range(1000))}, simd width is warpSize-wide 1\n"
    assert "Using device 0:" in result.runs[0].stderr


def test_every_error_code_of_the_runtime_and_driver_is_declared_and_named(emulate_program):
    """Error helpers switch over codes the emulator never returns (profiler, mapping, ECC, stream
    capture): every CUresult and cudaError_t of CUDA 13 is declared with its value
    (runtime/emu_errors.h) and cuGetErrorName / cudaGetErrorName name each by its enumerator."""
    result = emulate_program(DRIVER / "error_names.cu")
    assert result.verdict == "same", [d.line() for d in result.differences] + [r.fault for r in result.runs]
    for run in result.runs:
        assert run.stdout.splitlines() == [
            "5 CUDA_ERROR_PROFILER_DISABLED profiler disabled 0",
            "213 CUDA_ERROR_NOT_MAPPED_AS_POINTER not mapped as pointer 0",
            "904 CUDA_ERROR_STREAM_CAPTURE_UNJOINED capture unjoined 0",
            "719 CUDA_ERROR_LAUNCH_FAILED other 0",
            "5 cudaErrorProfilerDisabled profiler disabled",
            "209 cudaErrorNoKernelImageForDevice no image",
            "900 cudaErrorStreamCaptureUnsupported capture",
            "719 cudaErrorLaunchFailure launch failure",
            "unknown: 1",
            "launch: success",
        ]
