"""The ROCm paths built here with the compile-only ROCm 7 toolchain (clang++-22 + the ROCm 7.1
SDK): a libport_native.so whose offload bundle holds linked gfx942 and gfx950 code objects.

What this proves and what it does not: the code is compiled and device-linked for gfx942/gfx950
against ROCm 7.1's headers with -Werror, and the code objects are inspected; nothing is run on
AMD hardware (there is none here, and the SDK has no runtime).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from porting import assets
from porting.builder import BuildRecord, build
from porting.builder.codeobj import bundle_entries, code_object, library_code_objects
from porting.builder.hip_toolchains import oclc_control_source
from porting.errors import InputError

pytestmark = pytest.mark.component("native")
ARCHS = {"gfx942", "gfx950"}
BUNDLER = "clang-offload-bundler-22"


def _toolchain(path: str):
    from porting.builder import _toolchain_here

    tc = _toolchain_here(path)
    if tc.toolchain != "rocm7-sdk" or not tc.can_compile:
        pytest.skip(f"the compile-only ROCm 7 toolchain is not here ({tc.reason}); ci/setup installs it")
    return tc


@pytest.fixture(scope="module", params=["native-hip", "hipified-cuda"])
def rocm7_build(request, build_dir: Path) -> BuildRecord:
    record = build(request.param, build_dir, toolchain=_toolchain(request.param))
    assert record.ok, f"{record.error}\n{record.error_output}"
    return record


def test_record_names_toolchain_headers_and_each_arch(rocm7_build):
    r = rocm7_build
    assert r.toolchain == "rocm7-sdk" and not r.runnable and r.compiler.endswith("clang++-22")
    assert "rocm7-sdk" in r.headers and "sha256" in r.headers and r.headers.split(" ")[0].endswith("/include")
    assert set(r.gpu_archs) == ARCHS
    assert {c["arch"] for c in r.code_objects} == ARCHS
    for c in r.code_objects:
        image = (Path(r.build_dir) / c["file"]).read_bytes()
        assert hashlib.sha256(image).hexdigest() == c["sha256"] and len(image) == c["size"]


def test_every_gpu_unit_compiles_with_werror_against_the_sdk_only(rocm7_build):
    compiles = [s for s in rocm7_build.steps if s.kind == "compile" and "-fgpu-rdc" in s.command]
    assert {Path(s.source).name for s in compiles} >= {"runtime_gpu.cpp", "shard_kernels.cu", "oclc_control.hip"}
    for step in compiles:
        argv = step.command
        assert "-Werror" in argv and "-nogpuinc" in argv
        assert {"--offload-arch=gfx942", "--offload-arch=gfx950"} <= set(argv)
        include_dirs = [argv[i + 1] for i, a in enumerate(argv) if a in ("-isystem", "-I")]
        assert not any(d.rstrip("/") in ("/usr/include", "/usr/include/hip") for d in include_dirs)
    link = next(s for s in rocm7_build.steps if s.kind == "link")
    assert any(a.endswith("/ocml.bc") for a in link.command) and any(a.endswith("/ockl.bc") for a in link.command)


def _fatbin(library: Path, tmp_path: Path) -> Path:
    out = tmp_path / "fatbin.bin"
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.hip_fatbin", str(library), str(out)], check=True)
    return out


@pytest.mark.skipif(shutil.which(BUNDLER) is None or shutil.which("objcopy") is None,
                    reason="clang-offload-bundler-22 / objcopy missing")
def test_bundler_lists_both_archs_and_unbundles_the_recorded_code_objects(rocm7_build, tmp_path):
    library = Path(rocm7_build.build_dir) / rocm7_build.library
    fatbin = _fatbin(library, tmp_path)
    listed = subprocess.run([BUNDLER, "--list", "--type=o", f"--input={fatbin}"], capture_output=True, text=True,
                            check=True).stdout.split()
    assert {t for t in listed if "amdgcn" in t} == {f"hipv4-amdgcn-amd-amdhsa--{a}" for a in ARCHS}
    for c in rocm7_build.code_objects:
        out = tmp_path / f"{c['arch']}.co"
        subprocess.run([BUNDLER, "--unbundle", "--type=o", f"--input={fatbin}", f"--targets={c['triple']}",
                        f"--output={out}"], check=True)
        assert hashlib.sha256(out.read_bytes()).hexdigest() == c["sha256"]  # the tool and our reader agree


def test_code_objects_are_linked_wave64_kernels(rocm7_build):
    library = Path(rocm7_build.build_dir) / rocm7_build.library
    found = {co.arch: co for co, _ in library_code_objects(library.read_bytes(), str(library))}
    assert set(found) == ARCHS
    for arch, co in found.items():
        assert co.target == f"amdgcn-amd-amdhsa--{arch}"
        assert co.kernels and all("kernel" in k for k in co.kernels)
        assert co.wavefront_sizes == [64] * len(co.kernels)  # metadata: .wavefront_size 64
        assert co.descriptor_wave64 == [True] * len(co.kernels)  # descriptor: ENABLE_WAVEFRONT_SIZE32 clear
        assert co.undefined == []  # a complete device link: nothing left for a loader to resolve
    assert found["gfx942"].kernels == found["gfx950"].kernels


def test_a_compile_only_build_is_never_loaded(rocm7_build):
    from porting import native

    with pytest.raises(native.NativeError, match="compile-only rocm7-sdk toolchain"):
        native.load(rocm7_build.path, Path(rocm7_build.build_dir).parent)


def test_default_load_skips_the_rocm_builds_for_cpu(rocm7_build, lib):
    from porting import native

    chosen = native.load(None, Path(rocm7_build.build_dir).parent)
    assert chosen.usable() or chosen.path == "cpu"


def _unit_command(tmp_path: Path, source_dir: Path, unit: str):
    from porting.builder.backends import BACKENDS, BuildContext
    from porting.builder.sources import header_files
    from porting.probe.rocm_sdk import probe_rocm_sdk
    import os

    tc = _toolchain("native-hip")
    ctx = BuildContext(path="native-hip", source_dir=source_dir, out_dir=tmp_path / "out", compiler=tc.compiler,
                       gpu_archs=sorted(ARCHS), alias_include=assets.aliases_include(), jobs=1,
                       headers=header_files(source_dir), toolchain="rocm7-sdk",
                       sdk=probe_rocm_sdk(Path("/"), os.environ))
    compiles, _ = BACKENDS["native-hip"].commands(ctx)
    return next(c for c in compiles if c.source == unit)


def test_an_ignored_hip_error_fails_the_rocm7_build(tmp_path):
    src = tmp_path / "native"
    shutil.copytree(assets.native_dir(), src)
    unit = src / "src" / "runtime_gpu.cpp"
    unit.write_text(unit.read_text().replace("const char* rt_backend_name() {",
                                             "const char* rt_backend_name() {\n  gpuDeviceSynchronize();", 1))
    cmd = _unit_command(tmp_path, src, "src/runtime_gpu.cpp")
    proc = subprocess.run(cmd.argv, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "nodiscard" in proc.stderr and "-Werror" in proc.stderr


def test_a_header_the_sdk_lacks_is_an_error_not_debians_copy(tmp_path):
    if not Path("/usr/include/hip/hip_fp16.h").is_file():
        pytest.skip("no Debian HIP headers here to shadow the SDK")
    cmd = _unit_command(tmp_path, assets.native_dir(), "src/runtime_gpu.cpp")
    probe = tmp_path / "fp16.hip"
    probe.write_text("#include <hip/hip_fp16.h>\n")
    argv = [a for a in cmd.argv[:cmd.argv.index("-c")] if not a.startswith("-D")] + ["-fsyntax-only", str(probe)]
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "hip/hip_fp16.h is not in the ROCm SDK" in proc.stderr


def test_oclc_control_values_per_arch_and_unknown_archs_refused():
    text = oclc_control_source(["gfx942", "gfx950"])
    assert "#if defined(__gfx942__)\n#define PN_OCLC_ISA 9402" in text
    assert "#elif defined(__gfx950__)\n#define PN_OCLC_ISA 9500" in text
    assert "__oclc_ABI_version, 500" in text
    with pytest.raises(ValueError, match="gfx9999"):
        oclc_control_source(["gfx9999"])


def test_code_object_reader_rejects_what_it_cannot_read():
    with pytest.raises(InputError, match="not an uncompressed clang offload bundle"):
        bundle_entries(b"CCOB" + b"\0" * 40)
    with pytest.raises(InputError, match="not a little-endian ELF64"):
        code_object("hipv4-amdgcn-amd-amdhsa--gfx942", b"not an elf")
    with pytest.raises(InputError, match="no .hip_fatbin"):
        library_code_objects((Path(shutil.which("true") or "/bin/true")).read_bytes(), "/bin/true")
