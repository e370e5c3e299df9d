"""The plain parts of the CUDA driver API (runtime/emu_driver.h), what stays refused, and peer access
on the one emulated device."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.emulate import Unsupported
from porting.emulate.refuse import scan_text

DRIVER = Path(__file__).parent / "programs" / "driver"


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
            "async copy back 1 2998, event interval nonnegative 1",
            "mem info CUDA_SUCCESS 1",
            "error string: invalid argument",
            "after destroy: CUDA_ERROR_INVALID_CONTEXT",
        ]


def test_loading_a_module_is_refused_by_name(emulate_program):
    with pytest.raises(Unsupported, match=r"module_launch\.cu:12: the CUDA driver API's modules and launches"):
        emulate_program(DRIVER / "module_launch.cu")


def test_a_driver_call_outside_the_subset_is_named(emulate_program, tmp_path: Path):
    src = tmp_path / "register.cu"
    src.write_text("#include <cuda.h>\nint main() {\n  static char buf[64];\n  cuInit(0);\n"
                   "  return cuMemHostRegister(buf, sizeof buf, 0);\n}\n")
    with pytest.raises(Unsupported, match="uses cuMemHostRegister, which port emulate's runtime does not provide"):
        emulate_program(src)


@pytest.mark.parametrize("src, feature", [
    ("void f() { CUmodule m; cuModuleLoadData(&m, image); }", "the CUDA driver API's modules and launches"),
    ("void f() { cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, a, 0); }", "the CUDA driver API's modules and launches"),
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
           "  cuMemFree(p); cuCtxDestroy(c); }\n")
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
