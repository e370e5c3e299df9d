"""`port check` end to end on real CUDA code and on the known failure kinds, with the toolchain
found here (syntax-checked for gfx942 and gfx950 against the ROCm 7.1 headers; nothing runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from porting.assets import schema as schema_path
from porting.cli import main

DATA = Path(__file__).parent / "data"
CUDA_KERNELS = Path(__file__).parents[1] / "emulate" / "programs" / "public" / "cuda_kernels-0.2.0"
SARIF_SCHEMA = Path(__file__).parents[1] / "audit" / "data" / "sarif-schema-2.1.0.json"
ARCHS = ["gfx942", "gfx950"]


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _check(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", *args, "-j", "2", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory, toolchain):
    """One cold run over the known failure kinds (a copy: the incremental test edits it)."""
    root = tmp_path_factory.mktemp("kinds")
    src = copy_tree(DATA / "kinds", root / "src")
    code = main(["check", str(src), "--out", str(root / "out"), "-j", "2", "--format", "json"])
    return root, src, code, json.loads((root / "out" / "check.json").read_text())


def _unit(data: dict, source: str) -> dict:
    return next(u for u in data["units"] if u["source"] == source)


def test_each_kind_is_classified(kinds):
    _, _, code, data = kinds
    assert code == 1  # units fail: problems found
    classes = {u["source"]: u["class"] for u in data["units"]}
    assert classes == {"saxpy.cu": "compiles", "warp_mask.cu": "fails", "leftover_header.cu": "fails",
                       "builtin_no_header.cu": "fails", "project_define.cu": "fails", "fp16.cu": "not-checkable"}
    assert all(set(u["per_arch"]) == set(ARCHS) for u in data["units"])
    assert data["archs"] == ARCHS and data["mode"] == "syntax-only"
    assert "syntax-checked" in data["evidence"] and "nothing was run on an AMD GPU" in data["evidence"]


def test_errors_land_on_the_cuda_lines(kinds):
    _, _, _, data = kinds
    (mask,) = [d for d in _unit(data, "warp_mask.cu")["diagnostics"] if d["severity"] == "error"]
    # the static_assert fires in ROCm's header; the error belongs on the user's call
    assert (mask["file"], mask["line"]) == ("warp_mask.cu", 7) and "64-bit" in mask["message"]
    assert mask["archs"] == ARCHS and mask["hip_file"] == "warp_mask.hip"
    (left,) = _unit(data, "leftover_header.cu")["diagnostics"]
    assert (left["kind"], left["header"], left["line"]) == ("leftover-cuda-header", "cuda_fp8.h", 2)
    (builtin,) = _unit(data, "builtin_no_header.cu")["diagnostics"]
    assert builtin["line"] == 3 and "threadIdx" in builtin["message"]


def test_missing_sdk_header_is_named_and_never_blamed(kinds):
    _, _, _, data = kinds
    fp16 = _unit(data, "fp16.cu")
    assert fp16["missing_rocm_headers"] == ["hip/hip_fp16.h"]
    counted = [d for d in fp16["diagnostics"] if d["severity"] == "error" and d["kind"] != "missing-rocm-header"
               and not d["after_missing_header"]]
    assert counted == []
    (row,) = [w for w in data["worklist"] if w["file"] == "fp16.cu"]
    assert row["errors"] == 0 and row["not_checkable"] == ["hip/hip_fp16.h"]


def test_project_define_makes_it_compile(kinds, tmp_path, capsys):
    _, src, _, _ = kinds
    one = copy_tree(src, tmp_path / "one")
    for f in one.iterdir():
        if f.name != "project_define.cu":
            f.unlink()
    code, data = _check(capsys, str(one), "--out", str(tmp_path / "o"), "-D", "USE_ROCM=1")
    assert code == 0 and [u["class"] for u in data["units"]] == ["compiles"]


def test_reports_validate(kinds):
    root, _, _, data = kinds
    jsonschema.validate(data, json.loads(schema_path("check-1").read_text()))
    sarif = json.loads((root / "out" / "check.sarif").read_text())
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()))
    results = sarif["runs"][0]["results"]
    mask = [r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "warp_mask.cu"]
    assert mask and mask[0]["level"] == "error" and mask[0]["locations"][0]["physicalLocation"]["region"][
        "startLine"] == 7
    sdk = [r for r in results if r["ruleId"] == "rocm-header-not-in-sdk"]
    assert sdk and all(r["level"] == "note" for r in sdk)
    html = (root / "out" / "check.html").read_text()
    assert "Content-Security-Policy" in html and "warp_mask.cu" in html and "<script" not in html
    text = (root / "out" / "check.txt").read_text()
    assert "warp_mask.cu:7:" in text and "not checkable" in text


def test_warm_rerun_compiles_nothing_and_an_edit_recompiles_one_unit(kinds, capsys):
    root, src, _, cold = kinds
    assert cold["summary"]["compiled"] == 6 * len(ARCHS) and cold["summary"]["cached"] == 0
    _, warm = _check(capsys, str(src), "--out", str(root / "out"))
    assert warm["summary"]["compiled"] == 0 and warm["summary"]["cached"] == 6 * len(ARCHS)
    assert [u["class"] for u in warm["units"]] == [u["class"] for u in cold["units"]]
    saxpy = src / "saxpy.cu"
    saxpy.write_text(saxpy.read_text().replace("a * x[i] + y[i]", "a * x[i] - y[i]"))
    _, edited = _check(capsys, str(src), "--out", str(root / "out"))
    assert edited["summary"]["compiled"] == len(ARCHS)
    assert _unit(edited, "saxpy.cu")["cached_compiles"] == 0


def test_real_positive_control_has_no_errors(toolchain, tmp_path, capsys):
    """cuda-kernels 0.2.0 (PyPI, MIT): compiles; ROCm 7's nodiscard warnings on its unchecked calls."""
    src = copy_tree(CUDA_KERNELS, tmp_path / "src")
    code, data = _check(capsys, str(src), "--out", str(tmp_path / "o"))
    assert code == 0
    assert {u["source"]: u["class"] for u in data["units"]} == {"reduction.cu": "warnings",
                                                                 "autocorrelation.cu": "warnings"}
    warn = [d for d in _unit(data, "reduction.cu")["diagnostics"] if d["kind"] == "rocm7-warning"]
    lines = src.joinpath("reduction.cu").read_text().splitlines()
    assert warn and all("cuda" in lines[d["line"] - 1] for d in warn)  # on the CUDA call, not the HIP copy
    malloc = [d for d in warn if {"hip": "hipMalloc", "cuda": "cudaMalloc"} in d["names"]]
    assert malloc and "cudaMalloc" in lines[malloc[0]["line"] - 1]


def test_real_ggml_with_compile_commands_is_not_checkable(toolchain, tmp_path, capsys):
    """ggml from llama-cpp-python 0.3.2 (MIT): needs hip_fp16.h and hipBLAS, absent from the SDK."""
    src = copy_tree(DATA / "ggml", tmp_path / "ggml")
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(src / "src" / "ggml-cuda"), "file": f,
                               "arguments": ["nvcc", "-I../../include", "-I..", "-DGGML_CUDA_F16", "-std=c++17",
                                             "-c", f]} for f in ("acc.cu", "scale.cu")]))
    code, data = _check(capsys, str(src), "--compile-commands", str(db), "--out", str(tmp_path / "o"))
    assert code == 0
    for u in data["units"]:
        assert u["class"] == "not-checkable" and "hip/hip_fp16.h" in u["missing_rocm_headers"]
        assert u["defines"] == ["GGML_CUDA_F16"] and u["std"] == "c++17"
    assert all(w["errors"] == 0 for w in data["worklist"])
    # port audit's findings are joined in (ggml's common.cuh: a 32-bit mask error and 32-lane notes)
    assert any(sum(w["hazards"].values()) for w in data["worklist"])


def test_bad_arguments(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope")]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["check", str(tmp_path), "--compile-commands", str(tmp_path / "cc.json")]) == 2
    assert main(["check", str(tmp_path), "--arch", "sm_90"]) == 2
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    assert main(["check", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert "is SRC itself" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]  # nothing written


def test_out_inside_src_is_not_checked_and_codegen_compiles_device_code(toolchain, tmp_path, capsys, monkeypatch):
    """`port check .` with the default --out (port-check/ in the tree): its hipified copies are
    neither units nor audited; --codegen generates device code for each arch."""
    src = tmp_path / "tree"
    src.mkdir()
    for name in ("saxpy.cu", "warp_mask.cu"):
        (src / name).write_text((DATA / "kinds" / name).read_text())
    monkeypatch.chdir(src)
    for _ in range(2):  # the second run finds port-check/hipified/*.hip from the first
        code, data = _check(capsys, ".", "--codegen")
        assert code == 1 and sorted(u["source"] for u in data["units"]) == ["saxpy.cu", "warp_mask.cu"]
        assert all(not f["path"].startswith("port-check") for f in data["findings"])
        assert data["mode"] == "codegen" and "compiled to device code" in data["evidence"]
    assert _unit(data, "saxpy.cu")["class"] == "compiles" and data["summary"]["compiled"] == 0
    assert (src / "port-check" / "check.json").is_file()
