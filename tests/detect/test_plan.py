"""porting.plan, in-process: the whole plan (path, every toolchain and its reason, the reasons in
order) of one synthetic machine per situation the gate and the path choice tell apart."""

from __future__ import annotations

import pytest

from porting import registry
from porting.config import load_config
from porting.errors import ConfigError, PlatformError
from porting.plan import ASSESS, Plan, assess_cuda, assess_rocm, make_plan, rocm_gate
from porting.probe import probe_machine
from porting.probe.rocm_sdk import MIN_CLANG_MAJOR
from porting.sources import scan_sources

NO_CUDA = "no CUDA toolkit found; no libcuda driver; no NVIDIA device"
NO_AMD = "no AMD GPU in the KFD topology"
NO_SDK = (f"no compile-only ROCm 7 SDK toolchain: no clang++ new enough for gfx950 ({MIN_CLANG_MAJOR}+) "
          "(`port sdk fetch`)")
FALLBACK = "no GPU platform can build and run here -> cpu (the CPU fallback)"
ROCM = "ROCm 7.0.2 at /opt/rocm-7.0.2 (from /opt/rocm-7.0.2/.info/version)"
HIPCC, ROCM_HEADERS = "/opt/rocm-7.0.2/bin/hipcc", "/opt/rocm-7.0.2/include (ROCm 7.0.2)"
# the fake SDK (conftest) carries a manifest as `port sdk fetch` leaves it: its tree digest is of its files
SDK_HEADERS = ("/home/u/.cache/rocm-port/rocm7-sdk/triton-3.9.0/include (from triton-x.whl, sha256 abababababab, "
               "tree sha256 b72ee7f9f6c3 verified)")
SDK_REASON = ("compile-only: clang++-22 with the ROCm 7.1.25424 SDK headers (no ROCm runtime, nothing built with "
              "it runs)")
COMPILE_ONLY_HIP = "compile-only toolchains: native-hip, hipified-cuda (`port build --path P` still uses them)"

# toolchain columns: (toolchain, can_compile, can_run, compiler, version, reason, headers)
NVCC_NONE = ("nvcc", False, False, None, None, NO_CUDA, None)
HOST_NONE = ("host", False, False, None, None, "no host C++ compiler found", None)


def plan_of(fake, project, **cli) -> Plan:
    machine = probe_machine(fake.root, fake.env)
    return make_plan(machine, load_config(cli=cli, env=fake.env, project_dir=project), project)


def toolchains(plan: Plan) -> dict[str, tuple]:
    return {t["path"]: (t["toolchain"], t["can_compile"], t["can_run"], t["compiler"], t["version"], t["reason"],
                        t["headers"]) for t in plan.to_json()["toolchains"]}


def hip(*columns) -> dict[str, tuple]:
    """The same toolchain for both HIP paths (one ROCm serves native-hip and hipified-cuda)."""
    return {"native-hip": columns, "hipified-cuda": columns}


def _rocm_gpu(fake):
    fake.rocm("7.0.2")
    fake.amd_gpu(90402)


def _drop(fake, path):
    (fake.root / path.lstrip("/")).unlink()


MACHINES = {
    "nothing": (lambda f: None, "cpu", [
        f"ROCm cannot run: no ROCm installation found; {NO_AMD}", f"CUDA cannot run: {NO_CUDA}", FALLBACK],
        {"cuda": NVCC_NONE, **hip("rocm", False, False, None, None, f"no ROCm installation found; {NO_AMD}; {NO_SDK}",
                                   None), "cpu": HOST_NONE}),
    "rocm with a GPU": (_rocm_gpu, "native-hip", [
        "ROCm runs here: 1 AMD GPU(s) (gfx942)", f"{ROCM} meets the required 7.0",
        "sources: 0 HIP and 0 portable-header file(s), no plain CUDA -> native-hip"],
        {"cuda": NVCC_NONE, **hip("rocm", True, True, HIPCC, "7.0.2", "builds and runs", ROCM_HEADERS),
         "cpu": HOST_NONE}),
    "rocm without a GPU": (lambda f: f.rocm("7.0.2"), "cpu", [
        f"{ROCM} meets the required 7.0", f"ROCm cannot run: {NO_AMD}", f"CUDA cannot run: {NO_CUDA}", FALLBACK,
        COMPILE_ONLY_HIP],
        {"cuda": NVCC_NONE, **hip("rocm", True, False, HIPCC, "7.0.2", f"compile-only: {NO_AMD}", ROCM_HEADERS),
         "cpu": HOST_NONE}),
    "rocm without /dev/kfd": (lambda f: (_rocm_gpu(f), _drop(f, "/dev/kfd")), "cpu", [
        f"{ROCM} meets the required 7.0", "ROCm cannot run: /dev/kfd missing", f"CUDA cannot run: {NO_CUDA}",
        FALLBACK, COMPILE_ONLY_HIP],
        {"cuda": NVCC_NONE, **hip("rocm", True, False, HIPCC, "7.0.2", "compile-only: /dev/kfd missing",
                                   ROCM_HEADERS), "cpu": HOST_NONE}),
    "rocm without hipcc": (lambda f: (_rocm_gpu(f), _drop(f, "/opt/rocm-7.0.2/bin/hipcc")), "cpu", [
        f"{ROCM} meets the required 7.0", "ROCm cannot run: no hipcc", f"CUDA cannot run: {NO_CUDA}", FALLBACK],
        {"cuda": NVCC_NONE, **hip("rocm", False, False, None, None, f"no hipcc; {NO_SDK}", None), "cpu": HOST_NONE}),
    "rocm without its runtime": (lambda f: (_rocm_gpu(f), _drop(f, "/opt/rocm-7.0.2/lib/libamdhip64.so.7")), "cpu", [
        f"{ROCM} meets the required 7.0", "ROCm cannot run: no libamdhip64", f"CUDA cannot run: {NO_CUDA}",
        FALLBACK, COMPILE_ONLY_HIP],
        {"cuda": NVCC_NONE, **hip("rocm", True, False, HIPCC, "7.0.2", "compile-only: no libamdhip64", ROCM_HEADERS),
         "cpu": HOST_NONE}),
    "rocm below the gate": (lambda f: (f.rocm("6.4.1"), f.amd_gpu(90402)), "cpu", [
        "ROCm 6.4.1 at /opt/rocm-6.4.1 (from /opt/rocm-6.4.1/.info/version) is below the required 7.0; GPU paths "
        "refused for ROCm",
        "ROCm cannot run: ROCm 6.4.1 at /opt/rocm-6.4.1 (from /opt/rocm-6.4.1/.info/version) is below the "
        "required 7.0", f"CUDA cannot run: {NO_CUDA}", FALLBACK],
        {"cuda": NVCC_NONE, **hip("rocm", False, False, None, None, "ROCm 6.4.1 at /opt/rocm-6.4.1 (from "
                                   f"/opt/rocm-6.4.1/.info/version) is below the required 7.0; {NO_SDK}", None),
         "cpu": HOST_NONE}),
    "cuda": (lambda f: (f.cuda("12.8"), f.nvidia_gpu()), "cuda", [
        "CUDA 12.8 runs here (driver /usr/lib/x86_64-linux-gnu/libcuda.so.1, 1 NVIDIA GPU(s)) -> cuda, the "
        "reference path"],
        {"cuda": ("nvcc", True, True, "/usr/local/cuda-12.8/bin/nvcc", "12.8", "builds and runs",
                  "/usr/local/cuda-12.8/include (CUDA 12.8)"),
         **hip("rocm", False, False, None, None, f"no ROCm installation found; {NO_AMD}; {NO_SDK}", None),
         "cpu": HOST_NONE}),
    "cuda without driver": (lambda f: f.cuda("13.0", driver=False), "cpu", [
        f"ROCm cannot run: no ROCm installation found; {NO_AMD}",
        "CUDA cannot run: no libcuda driver; no NVIDIA device", FALLBACK,
        "compile-only toolchains: cuda (`port build --path P` still uses them)"],
        {"cuda": ("nvcc", True, False, "/usr/local/cuda-13.0/bin/nvcc", "13.0",
                  "compile-only: no libcuda driver; no NVIDIA device", "/usr/local/cuda-13.0/include (CUDA 13.0)"),
         **hip("rocm", False, False, None, None, f"no ROCm installation found; {NO_AMD}; {NO_SDK}", None),
         "cpu": HOST_NONE}),
    "cuda without nvcc": (lambda f: (f.cuda("12.8"), f.nvidia_gpu(), _drop(f, "/usr/local/cuda-12.8/bin/nvcc")),
                          "cpu", [f"ROCm cannot run: no ROCm installation found; {NO_AMD}",
                                  "CUDA cannot run: no nvcc", FALLBACK],
                          {"cuda": ("nvcc", False, False, None, "12.8", "no nvcc", None),
                           **hip("rocm", False, False, None, None, f"no ROCm installation found; {NO_AMD}; {NO_SDK}",
                                 None), "cpu": HOST_NONE}),
    "rocm 7 sdk and a host compiler": (lambda f: (f.rocm7_sdk(), f.clang(22), f.exe("/usr/bin/g++")), "cpu", [
        f"ROCm cannot run: no ROCm installation found; {NO_AMD}", f"CUDA cannot run: {NO_CUDA}", FALLBACK,
        COMPILE_ONLY_HIP],
        {"cuda": NVCC_NONE,
         **hip("rocm7-sdk", True, False, "/usr/bin/clang++-22", "7.1.25424", SDK_REASON, SDK_HEADERS),
         "cpu": ("host", True, True, "/usr/bin/g++", None, "host C++ compiler", None)}),
    "clang without the sdk": (lambda f: f.clang(22), "cpu", [
        f"ROCm cannot run: no ROCm installation found; {NO_AMD}", f"CUDA cannot run: {NO_CUDA}", FALLBACK],
        {"cuda": NVCC_NONE, **hip("rocm", False, False, None, None, f"no ROCm installation found; {NO_AMD}; no "
                                   "compile-only ROCm 7 SDK toolchain: the SDK is missing (`port sdk fetch`)", None),
         "cpu": HOST_NONE}),
}


@pytest.mark.parametrize("name", list(MACHINES))
def test_plan_of_each_machine(fake, project, name):
    build, path, reasons, expected = MACHINES[name]
    build(fake)
    plan = plan_of(fake, project)
    assert (plan.path, plan.reasons) == (path, reasons)
    assert toolchains(plan) == expected
    assert plan.toolchain("cpu").reason == expected["cpu"][5]


def test_plan_json_of_a_rocm_machine(fake, project):
    """Every key of the plan, on the machine ROCm runs on."""
    _rocm_gpu(fake)
    (project / "native").mkdir()
    (project / "native" / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {}\n")
    fake.env["PORT_GPU_ARCHS"] = "gfx950"
    plan = plan_of(fake, project)
    rocm = {"compiler": HIPCC, "version": "7.0.2", "can_compile": True, "can_run": True, "reason": "builds and runs",
            "toolchain": "rocm", "headers": ROCM_HEADERS}
    assert plan.to_json() == {
        "schema": 1, "path": "hipified-cuda", "device": "rocm", "platform_request": "auto", "request_origin": "default",
        "min_rocm": "7.0", "rocm_gate_ok": True,
        "toolchains": [{"path": "cuda", **dict(zip(("toolchain", "can_compile", "can_run", "compiler", "version",
                                                      "reason", "headers"), NVCC_NONE))},
                       {"path": "native-hip", **rocm}, {"path": "hipified-cuda", **rocm},
                       {"path": "cpu", **dict(zip(("toolchain", "can_compile", "can_run", "compiler", "version",
                                                     "reason", "headers"), HOST_NONE))}],
        "gpu_archs": ["gfx950"], "sources": scan_sources(["native"], project).to_json(),
        "reasons": ["ROCm runs here: 1 AMD GPU(s) (gfx942)", f"{ROCM} meets the required 7.0",
                    "sources: 1 plain-CUDA file(s) need hipify -> hipified-cuda (0 HIP, 0 portable-header file(s) "
                    "compile as they are)"],
        "warnings": []}


def test_requested_platforms(fake, project):
    """An override names its origin; a requested platform that cannot run says why, in one line."""
    with pytest.raises(PlatformError) as rocm:
        plan_of(fake, project, platform="rocm")
    assert str(rocm.value) == (f"platform rocm requested (cli) but ROCm cannot run here: no ROCm installation "
                               f"found; {NO_AMD}")
    with pytest.raises(PlatformError) as cuda:
        plan_of(fake, project, platform="cuda")
    assert str(cuda.value) == f"platform cuda requested (cli) but CUDA cannot run here: {NO_CUDA}"
    _rocm_gpu(fake)
    plan = plan_of(fake, project, platform="none")
    assert (plan.path, plan.device, plan.gpu_archs) == ("cpu", "none", [])
    assert plan.reasons == [f"{ROCM} meets the required 7.0", "platform none requested (cli)",
                            "GPU platforms disabled by the override -> cpu"]
    fake.env["PORT_GPU_PLATFORM"] = "rocm"
    plan = plan_of(fake, project)
    assert (plan.path, plan.platform_request, plan.request_origin) == ("native-hip", "rocm", "env:PORT_GPU_PLATFORM")
    assert plan.reasons[:3] == ["ROCm runs here: 1 AMD GPU(s) (gfx942)", f"{ROCM} meets the required 7.0",
                                "platform rocm requested (env:PORT_GPU_PLATFORM)"]


def test_both_platforms_running_is_a_choice_for_the_user(fake, project):
    _rocm_gpu(fake)
    fake.cuda("12.8")
    fake.nvidia_gpu()
    with pytest.raises(PlatformError) as both:
        plan_of(fake, project)
    assert str(both.value) == ("both CUDA and ROCm can run here; choose one with --platform cuda|rocm or "
                               "PORT_GPU_PLATFORM=cuda|rocm (or platform = \"...\" in [tool.port])")
    plan = plan_of(fake, project, platform="cuda")
    assert (plan.path, plan.device, plan.gpu_archs) == ("cuda", "cuda", ["sm_90"])
    assert plan.reasons == ["CUDA 12.8 runs here (driver /usr/lib/x86_64-linux-gnu/libcuda.so.1, 1 NVIDIA GPU(s)) "
                            "-> cuda, the reference path", f"{ROCM} meets the required 7.0",
                            "platform cuda requested (cli)"]


def test_a_min_rocm_that_is_not_a_version_names_its_origin(fake, project):
    with pytest.raises(ConfigError) as bad:
        plan_of(fake, project, min_rocm="seven")
    assert str(bad.value) == "min_rocm: 'seven' is not a version (from cli)"


def test_a_rocm_without_a_readable_version_is_refused(fake, project):
    fake.file("/opt/rocm-7.0.0/.info/version", "\x00\x01binary")
    fake.file("/opt/rocm-7.0.0/lib/libamdhip64.so", "")
    fake.env["ROCM_PATH"] = "/opt/rocm-7.0.0"
    plan = plan_of(fake, project)
    assert plan.reasons[0] == ("ROCm at /opt/rocm-7.0.0 has no readable version; 7.0+ cannot be confirmed; GPU "
                               "paths refused for ROCm")
    assert not plan.rocm_gate_ok and plan.min_rocm == "7.0"


def test_probe_problems_and_the_hip_platform_trap_are_warnings(fake, project):
    fake.debian_hip()
    fake.cuda("13.0", driver=False)
    fake.link("/opt/rocm", "/opt/rocm-9.9.9")  # a broken symlink: a ROCm probe problem
    machine = probe_machine(fake.root, fake.env)
    plan = make_plan(machine, load_config(env=fake.env, project_dir=project), project)
    assert machine.hip_platform.trap and machine.rocm.problems
    assert plan.warnings == [*machine.rocm.problems, *machine.cuda.problems, *machine.devices.problems,
                             machine.hip_platform.reason]


def test_every_declared_toolchain_is_assessed_under_its_own_name(fake):
    """Whatever a path's order of candidates, a toolchain that cannot compile here is never chosen
    as one that can, nor as one that runs, and says which toolchain it is."""
    machine = probe_machine(fake.root, fake.env)
    rocm = assess_rocm(machine, *rocm_gate(machine, (7, 0)))
    assert list(ASSESS) == list(registry.TOOLCHAIN_NAMES)
    for name in registry.TOOLCHAIN_NAMES:
        t = ASSESS[name](machine, rocm, assess_cuda(machine))
        assert (t.toolchain, t.can_compile, t.can_run, t.compiler, t.headers) == (name, False, False, None, None)


def test_the_cpu_path_reports_the_host_compilers_version(fake, project):
    """The version is asked of the compiler only on the real root: here it is set on the probe's record."""
    fake.exe("/usr/bin/g++")
    machine = probe_machine(fake.root, fake.env)
    machine.host_compiler.version = "13.2.0"
    plan = make_plan(machine, load_config(env=fake.env, project_dir=project), project)
    cpu = plan.toolchain("cpu")
    assert (cpu.compiler, cpu.version, cpu.can_compile, cpu.can_run) == ("/usr/bin/g++", "13.2.0", True, True)


def test_rocm_names_each_gpu_architecture_once(fake, project):
    fake.rocm("7.0.2")
    fake.amd_gpu(90500, node=1)
    fake.amd_gpu(90402, node=2)
    fake.amd_gpu(90402, node=3)
    plan = plan_of(fake, project)
    assert plan.reasons[0] == "ROCm runs here: 3 AMD GPU(s) (gfx942, gfx950)"
    assert plan.gpu_archs == ["gfx942", "gfx950"]
