"""`port detect` against synthetic machines built under tmp_path."""

from __future__ import annotations

import pytest

from porting.errors import PlatformError
from porting.probe.gpus import gfx_name


@pytest.mark.parametrize("target,arch", [(90402, "gfx942"), (90500, "gfx950"), (90010, "gfx90a"),
                                         (110000, "gfx1100"), (90008, "gfx908")])
def test_kfd_target_version_names(target, arch):
    assert gfx_name(target) == arch


@pytest.mark.parametrize("version,target,arch", [("7.0.2", 90402, "gfx942"), ("7.1.1", 90500, "gfx950")])
def test_rocm7_behind_symlink_with_instinct_gpu_takes_native_hip(fake, project, version, target, arch, detect):
    home = fake.rocm(version)
    fake.amd_gpu(target)
    rec = detect(fake, project)
    assert rec["path"] == "native-hip"
    assert rec["device"] == "rocm"
    assert rec["rocm"] == {**rec["rocm"], "found": True, "home": home, "version": version, "gate_ok": True}
    assert rec["rocm"]["version_source"] == f"{home}/.info/version"
    assert [g["arch"] for g in rec["gpus"]] == [arch]
    assert rec["gpu_archs"] == [arch]
    hip = next(t for t in rec["toolchains"] if t["path"] == "native-hip")
    assert hip["can_run"] and hip["version"] == version
    assert any(f"/opt/rocm -> {home}" in e for e in rec["evidence"]["rocm"])


def test_cuda_sources_on_rocm_take_hipified_cuda(fake, project, detect):
    fake.rocm("7.0.2")
    fake.amd_gpu(90402)
    (project / "native").mkdir()
    (project / "native" / "copy.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {}\n")
    (project / "native" / "shard.cpp").write_text('#include "hip_aliases/gpu_runtime.h"\n')
    rec = detect(fake, project)
    assert rec["path"] == "hipified-cuda"
    assert rec["sources"] == {"hip": 0, "portable": 1, "cuda": 1}
    (project / "native" / "copy.cu").unlink()
    assert detect(fake, project)["path"] == "native-hip"


@pytest.mark.parametrize("version", ["6.4.1", "6.4"])
def test_rocm_6_4_is_refused_with_version_and_location(fake, project, version, detect):
    home = fake.rocm(version)
    fake.amd_gpu(90402)
    rec = detect(fake, project)
    assert rec["path"] == "cpu" and rec["device"] == "none"
    assert rec["rocm"]["found"] and not rec["rocm"]["gate_ok"]
    text = " ".join(rec["reasons"])
    assert f"ROCm {version} at {home}" in text and "below the required 7.0" in text
    assert "-> cpu" in text


def test_debian_layout_rocm_5_2_is_found_under_usr_and_refused(fake, project, detect):
    fake.debian_hip(5, 2, 21153)
    rec = detect(fake, project)
    assert rec["rocm"]["home"] == "/usr"
    assert rec["rocm"]["version"] == "5.2.21153"
    assert rec["rocm"]["version_source"] == "/usr/share/hip/version"
    assert rec["path"] == "cpu"
    assert "below the required 7.0" in " ".join(rec["reasons"])
    # HIP 5.2 is kept only for this refusal: it compiles nothing for the ROCm 7 targets
    hip = next(t for t in rec["toolchains"] if t["path"] == "hipified-cuda")
    assert not hip["can_compile"] and not hip["can_run"] and hip["compiler"] is None
    assert "below the required 7.0" in hip["reason"] and "no compile-only ROCm 7 SDK" in hip["reason"]


def test_rocm7_sdk_with_clang_is_a_compile_only_hip_toolchain(fake, project, detect):
    fake.debian_hip(5, 2, 21153)
    sdk = fake.rocm7_sdk()
    fake.clang(22)
    rec = detect(fake, project)
    assert rec["path"] == "cpu"
    for path in ("native-hip", "hipified-cuda"):
        tc = next(t for t in rec["toolchains"] if t["path"] == path)
        assert (tc["can_compile"], tc["can_run"], tc["toolchain"]) == (True, False, "rocm7-sdk")
        assert tc["compiler"] == "/usr/bin/clang++-22" and tc["version"] == "7.1.25424"
        assert tc["headers"].startswith(f"{sdk}/include (from triton-x.whl, sha256 abababababab, tree sha256 ")
        assert tc["headers"].endswith(" verified)")
    assert f"{sdk}/include/hip/hip_version.h: 7.1.25424" in rec["evidence"]["rocm_sdk"]


def test_rocm7_sdk_needs_a_clang_that_knows_gfx950_and_its_tools(fake, project, detect):
    fake.rocm7_sdk(source=False)
    fake.clang(15)
    tc = next(t for t in detect(fake, project)["toolchains"] if t["path"] == "native-hip")
    assert not tc["can_compile"] and "new enough for gfx950" in tc["reason"]
    fake.clang(22, bundler=False)
    rec = detect(fake, project)
    assert not next(t for t in rec["toolchains"] if t["path"] == "native-hip")["can_compile"]
    assert "clang++-22: no clang-offload-bundler-22 on PATH" in rec["evidence"]["rocm_sdk"]
    fake.clang(22)
    rec = detect(fake, project)
    assert next(t for t in rec["toolchains"] if t["path"] == "native-hip")["toolchain"] == "rocm7-sdk"
    assert any("SOURCE.json: absent" in e for e in rec["evidence"]["rocm_sdk"])


def test_a_real_rocm_7_install_wins_over_the_sdk(fake, project, detect):
    home = fake.rocm("7.0.2")
    fake.rocm7_sdk()
    fake.clang(22)
    rec = detect(fake, project)
    tc = next(t for t in rec["toolchains"] if t["path"] == "native-hip")
    assert tc["toolchain"] == "rocm" and tc["compiler"] == f"{home}/bin/hipcc" and tc["version"] == "7.0.2"
    assert tc["can_compile"] and not tc["can_run"]  # no GPU here


def test_min_rocm_gate_is_configurable(fake, project, detect):
    fake.rocm("6.4.1")
    fake.amd_gpu(90402)
    assert detect(fake, project, min_rocm="6.4")["path"] == "native-hip"


@pytest.mark.parametrize("version,min_rocm,gate_ok", [
    ("7.0.0", "7.0", True),  # the gate is >=: ROCm exactly at the minimum is accepted
    ("7.0.2", "7.1", False),  # the minor version counts, not only the major
    ("7.1.0", "7.1", True),
    ("7.1.0", "7.1.1", False),
])
def test_rocm_gate_boundaries(fake, project, detect, version, min_rocm, gate_ok):
    home = fake.rocm(version)
    fake.amd_gpu(90402)
    rec = detect(fake, project, min_rocm=min_rocm)
    assert rec["rocm"]["gate_ok"] is gate_ok
    assert rec["path"] == ("native-hip" if gate_ok else "cpu")
    word = "meets" if gate_ok else "is below"
    assert f"ROCm {version} at {home} (from {home}/.info/version) {word} the required {min_rocm}" in rec["reasons"][
        int(gate_ok)]  # ok: after "ROCm runs here"; refused: first


def test_both_cuda_and_rocm_is_an_error_naming_the_override(fake, project, detect):
    fake.rocm("7.0.2")
    fake.amd_gpu(90402)
    fake.cuda("12.8")
    fake.nvidia_gpu()
    with pytest.raises(PlatformError, match="PORT_GPU_PLATFORM=cuda\\|rocm"):
        detect(fake, project)
    rec = detect(fake, project, platform="cuda")
    assert (rec["path"], rec["device"]) == ("cuda", "cuda")
    assert rec["gpu_archs"] == ["sm_90"]
    fake.env["PORT_GPU_PLATFORM"] = "rocm"
    rec = detect(fake, project)
    assert (rec["path"], rec["device"]) == ("native-hip", "rocm")
    assert rec["platform_request"] == "rocm"
    assert detect(fake, project, platform="none")["path"] == "cpu"


def test_cli_exits_2_on_both_platforms_without_override(fake, project, port):
    fake.rocm("7.0.2")
    fake.amd_gpu(90402)
    fake.cuda("12.8")
    fake.nvidia_gpu()
    proc = port("detect", "--root", str(fake.root), env=fake.env, cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "--platform cuda|rocm" in proc.stderr
    ok = port("detect", "--root", str(fake.root), "--platform", "rocm", env=fake.env, cwd=project)
    assert ok.returncode == 0 and "path: native-hip" in ok.stdout


def test_cuda_with_driver_and_device_is_the_reference_path(fake, project, detect):
    fake.cuda("12.8")
    fake.nvidia_gpu("NVIDIA H200")
    rec = detect(fake, project)
    assert rec["path"] == "cuda"
    assert rec["cuda"]["version"] == "12.8" and rec["cuda"]["driver"].endswith("libcuda.so.1")


def test_cuda_toolkit_without_driver_is_compile_only(fake, project, detect):
    fake.cuda("13.0", driver=False)
    rec = detect(fake, project)
    assert rec["path"] == "cpu"
    cuda = next(t for t in rec["toolchains"] if t["path"] == "cuda")
    assert cuda["can_compile"] and not cuda["can_run"]
    assert "no libcuda driver" in cuda["reason"]


def test_requested_platform_that_cannot_run_is_an_error(fake, project, detect):
    fake.rocm("6.4.1")
    with pytest.raises(PlatformError, match="ROCm 6.4.1 at /opt/rocm-6.4.1 .* below the required 7.0"):
        detect(fake, project, platform="rocm")


def test_broken_opt_rocm_symlink_is_reported_not_fatal(fake, project, detect):
    fake.link("/opt/rocm", "/opt/rocm-7.0.2")  # target never created
    rec = detect(fake, project)
    assert not rec["rocm"]["found"]
    assert rec["path"] == "cpu"
    assert any("broken symlink" in w for w in rec["warnings"])


def test_garbage_version_file_falls_back_to_the_header(fake, project, detect):
    home = fake.rocm("7.0.2", info="garbage\n")
    rec = detect(fake, project)
    assert rec["rocm"]["version"] == "7.0.2"
    assert rec["rocm"]["version_source"] == f"{home}/include/hip/hip_version.h"
    assert any("unparseable 'garbage'" in e for e in rec["evidence"]["rocm"])


def test_rocm_with_no_readable_version_is_refused(fake, project, detect):
    fake.file("/opt/rocm-7.0.0/.info/version", "\x00\x01binary")
    fake.file("/opt/rocm-7.0.0/lib/libamdhip64.so", "")
    fake.env["ROCM_PATH"] = "/opt/rocm-7.0.0"
    fake.amd_gpu(90402)
    rec = detect(fake, project)
    assert rec["rocm"]["found"] and rec["rocm"]["version"] is None
    assert rec["rocm"]["home"] == "/opt/rocm-7.0.0"
    assert rec["path"] == "cpu"
    assert "no readable version" in " ".join(rec["reasons"])


def test_hipcc_symlink_loop_is_reported(fake, project, detect, port):
    fake.link("/opt/loop/bin/hipcc", "/opt/loop/bin/hipcc2")
    fake.link("/opt/loop/bin/hipcc2", "/opt/loop/bin/hipcc")
    fake.add_path("/opt/loop/bin")
    rec = detect(fake, project)
    assert rec["path"] == "cpu"
    assert any("symlink loop" in w for w in rec["warnings"])
    proc = port("detect", "--root", str(fake.root), env=fake.env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "symlink loop" in proc.stdout


def test_kfd_topology_without_dev_kfd_cannot_run(fake, project, detect):
    fake.rocm("7.0.2")
    fake.amd_gpu(90402)
    (fake.root / "dev" / "kfd").unlink()
    rec = detect(fake, project)
    assert rec["path"] == "cpu"
    assert any("/dev/kfd is missing" in w for w in rec["warnings"])


def test_torch_flavour_is_read_from_version_py(fake, project, detect):
    fake.torch("2.9.0+rocm7.0", hip="7.0.51831")
    rec = detect(fake, project)
    assert rec["torch"] == {"found": True, "version": "2.9.0+rocm7.0", "cuda": None, "hip": "7.0.51831",
                            "flavour": "rocm"}
    fake.torch("2.8.0+cu128", cuda="12.8", hip=None)
    assert detect(fake, project)["torch"]["flavour"] == "cuda"


def test_hipcc_platform_trap(fake, project, detect):
    fake.debian_hip()
    fake.cuda("13.0", driver=False)
    rec = detect(fake, project)
    assert rec["hip_platform"]["trap"] and rec["hip_platform"]["selected"] == "nvidia"
    assert "only clang++-15" in rec["hip_platform"]["reason"]
    assert any("HIP_PLATFORM=amd" in w for w in rec["warnings"])
    fake.env["HIP_PLATFORM"] = "amd"
    rec = detect(fake, project)
    assert not rec["hip_platform"]["trap"] and rec["hip_platform"]["selected"] == "amd"


def test_rdma_nics_and_collectives(fake, project, detect):
    fake.rocm("7.0.2")
    fake.file("/opt/rocm-7.0.2/lib/librccl.so.1", "")
    fake.file("/sys/class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n")
    fake.file("/sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n")
    rec = detect(fake, project)
    assert rec["collectives"]["rccl"] == "/opt/rocm-7.0.2/lib/librccl.so.1"
    assert rec["rdma"]["backend"] == "ibverbs"
    assert rec["rdma"]["nics"] == [{"name": "mlx5_0", "link_layer": "Ethernet", "state": "4: ACTIVE"}]


def test_require_expression(fake, project, port):
    fake.rocm("7.0.2")
    ok = port("detect", "--root", str(fake.root), "--require", "rocm>=7.0", env=fake.env, cwd=project)
    assert ok.returncode == 0, ok.stderr
    bad = port("detect", "--root", str(fake.root), "--require", "rocm>=7.1", env=fake.env, cwd=project)
    assert bad.returncode == 1
    assert "rocm>=7.1 not met: rocm 7.0.2 at /opt/rocm-7.0.2" in bad.stderr
    usage = port("detect", "--root", str(fake.root), "--require", "rocm=>7", env=fake.env, cwd=project)
    assert usage.returncode == 2 and "--require 'rocm=>7'" in usage.stderr


def test_missing_rocm_fails_requirement_with_evidence(fake, project, port):
    proc = port("detect", "--root", str(fake.root), "--require", "rocm>=7.0", env=fake.env, cwd=project)
    assert proc.returncode == 1
    assert "no ROCm found" in proc.stderr and "/opt/rocm" in proc.stderr
