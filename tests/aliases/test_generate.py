"""The checked-in generated files are reproducible from the table; the header generator."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from porting.aliases import cpp_gen
from porting.aliases.generate import Layout, expected_files, stale_files, write_files
from porting.aliases.table import AliasTable
from porting.cli import main
from porting.errors import ConfigError


def test_checked_in_files_are_up_to_date(hip_aliases_dir: Path, table: AliasTable) -> None:
    expected = expected_files(table, Layout(hip_aliases_dir))
    assert len(expected) == 4
    assert stale_files(expected) == [], "run `port aliases generate` and commit the result"


def copy_layout(hip_aliases_dir: Path, tmp_path: Path) -> Layout:
    root = tmp_path / "hip_aliases"
    shutil.copytree(hip_aliases_dir, root, ignore=shutil.ignore_patterns("target"))
    return Layout(root)


def test_generate_check_detects_and_write_repairs(hip_aliases_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    layout = copy_layout(hip_aliases_dir, tmp_path)
    assert main(["aliases", "generate", "--root", str(layout.root), "--check"]) == 0
    layout.renames.write_text(layout.renames.read_text().replace("#define gpuMalloc hipMalloc\n", ""))
    header = layout.header.read_text()
    layout.header.write_text(header.replace("gpuMalloc, ", ""))
    assert main(["aliases", "generate", "--root", str(layout.root), "--check"]) == 1
    err = capsys.readouterr().err
    assert "gpu_runtime_renames.h" in err and "gpu_runtime.h" in err
    assert main(["aliases", "generate", "--root", str(layout.root)]) == 0
    assert layout.header.read_text() == header
    assert main(["aliases", "generate", "--root", str(layout.root), "--check"]) == 0


def test_api_names_resolve_through_the_table(hip_aliases_dir: Path, table: AliasTable) -> None:
    resolved = dict(cpp_gen.resolve_api(cpp_gen.load_api(hip_aliases_dir / "gpu_runtime_api.toml"), table))
    memory = {n.cuda: n for n in resolved["memory"]}
    assert (memory["cudaMalloc"].hip, memory["cudaMalloc"].portable) == ("hipMalloc", "gpuMalloc")
    assert memory["cudaHostAlloc"].portable == "gpuHostMalloc"
    attrs = {n.cuda: n for n in resolved["pointer attributes"]}
    assert attrs["cudaMemoryTypeUnregistered"].min_hip == 6


def test_renames_guard_new_hip_names_and_type_with_typedef(table: AliasTable) -> None:
    groups = [cpp_gen.ApiGroup("g", ("cudaStream_t", "cudaMemoryTypeUnregistered", "cudaMalloc"))]
    text = cpp_gen.render_renames(cpp_gen.resolve_api(groups, table))
    cuda, hip = text.split("#elif defined(GPU_RUNTIME_HIP)")
    assert "typedef cudaStream_t gpuStream_t;" in cuda and "#define gpuMalloc cudaMalloc" in cuda
    assert "#if HIP_VERSION_MAJOR >= 6\n#define gpuMemoryTypeUnregistered hipMemoryTypeUnregistered\n#endif" in hip
    assert "#define gpuMemoryTypeUnregistered cudaMemoryTypeUnregistered\n" in cuda


def test_unknown_api_name_and_missing_markers_are_errors(table: AliasTable, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cudaNoSuchThing"):
        cpp_gen.resolve_api([cpp_gen.ApiGroup("g", ("cudaNoSuchThing",))], table, "api.toml")
    with pytest.raises(ConfigError, match="markers"):
        cpp_gen.splice_api_list("// no markers\n", "x")
    bad = tmp_path / "api.toml"
    bad.write_text("[[group]]\ntitle = 1\n")
    with pytest.raises(ConfigError, match="needs title"):
        cpp_gen.load_api(bad)
    assert cpp_gen.portable_name("HIP_POINTER_ATTRIBUTE_X") == "GPU_POINTER_ATTRIBUTE_X"


def test_write_files_only_touches_changed(tmp_path: Path) -> None:
    a, b = tmp_path / "a.h", tmp_path / "b.h"
    a.write_text("same")
    assert write_files({a: "same", b: "new"}) == [b] and b.read_text() == "new"


def test_table_command(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["aliases", "table", "CUDA_SUCCESS", "cudaMemoryTypeUnregistered"]) == 0
    out = capsys.readouterr().out
    assert "const    CUDA_SUCCESS -> hipSuccess : hipError_t" in out and "[HIP>=6]" in out
    assert main(["aliases", "table", "--json", "cuInit"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entries"] == [{"cuda": "cuInit", "hip": "hipInit", "kind": "function",
                                "origin": "hipify:CUDA_IDENTIFIER_MAP", "status": "declared"}]
    assert main(["aliases", "table", "cuNope"]) == 2


def test_snapshot_round_trips_the_verified_table(table: AliasTable, tmp_path: Path) -> None:
    from porting.aliases import snapshot

    text = snapshot.render(table)
    assert "/" not in table.held_to and table.held_to.startswith("ROCm HIP 7.")
    assert str(Path.home()) not in text and "include" not in snapshot.load_text(text, "t").headers
    (tmp_path / "t.json").write_text(text)
    back = snapshot.load(tmp_path / "t.json")
    assert back.entries == table.entries and back.dropped == table.dropped
    assert back.held_to == table.held_to and back.torch_version == table.torch_version


def _no_ground_truth(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine where ROCm 7's headers cannot be read: no SDK, no clang on PATH."""
    for var in ("PORT_ROCM7_SDK", "ROCM_PATH", "ROCM_HOME", "HIP_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))


def test_without_rocm_headers_scan_and_table_use_the_shipped_table(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _no_ground_truth(monkeypatch, tmp_path)
    assert main(["aliases", "table", "cudaMalloc", "cublasCreate_v2"]) == 0
    out, err = capsys.readouterr()
    assert "function cudaMalloc -> hipMalloc  (hipify:CUDA_IDENTIFIER_MAP, declared)" in out
    assert "unverified: hipBLAS" in out
    assert "using the table shipped with rocm-port, held to ROCm HIP 7." in err
    (tmp_path / "k.rs").write_text("fn f() { unsafe { cudaMalloc(p, n); } }\n")
    assert main(["aliases", "scan", str(tmp_path / "k.rs")]) == 0
    assert "cudaMalloc" in capsys.readouterr().out


def test_without_rocm_headers_own_overrides_and_generate_still_need_them(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        hip_aliases_dir: Path) -> None:
    _no_ground_truth(monkeypatch, tmp_path)
    for argv in (["aliases", "--overrides", str(hip_aliases_dir / "overrides.toml"), "table", "cudaMalloc"],
                 ["aliases", "generate", "--check"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("port: error: no ROCm >= 7.0 headers") and err.count("\n") == 1, err
