"""One rule of what counts (``diagnostics.counted``), and every output agrees with it: the class,
the worklist, the text, the SARIF level and the HTML. Three causes of a missing header are told
apart: the SDK lacks it, a system package is not installed (named), the user's code is wrong."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from porting.check import diagnostics as dg
from porting.check import worklist
from porting.check.html import to_html
from porting.check.sarif import to_sarif
from porting.check.system_headers import system_package


def _d(kind: str, msg: str = "m", line: int = 1, after: bool = False, sev: str = "error", header: str = "",
       package: str = "") -> dg.Diagnostic:
    return dg.Diagnostic(sev, kind, msg, "f.cu", line, 1, ["gfx942"], header=header, after_missing_header=after,
                         package=package)


@pytest.mark.parametrize("header, package", [
    ("omp.h", "libomp-dev"), ("infiniband/verbs.h", "libibverbs-dev"), ("infiniband/efadv.h", "libibverbs-dev"),
    ("mpi.h", "libopenmpi-dev"), ("rdma/rdma_cma.h", "librdmacm-dev"), ("numa.h", "libnuma-dev"),
])
def test_system_headers_name_their_debian_package(header, package):
    pkg = system_package(header)
    assert pkg is not None and pkg.package == package and package in pkg.describe(header)
    assert dg.header_kind(header) == "missing-system-header"


@pytest.mark.parametrize("header", ["mylib.h", "project/omp.h", "kernels/numa.h", "verbs.h"])
def test_the_users_own_headers_stay_the_users(header):
    """A name not in the table (or a well-known file name under the project's own directory) is
    the user's: never excused as a missing package."""
    assert system_package(header) is None and dg.header_kind(header) == "compile-error"


def test_the_three_causes_are_three_classes():
    assert dg.classify([_d("missing-system-header", header="omp.h")]) == "needs-package"
    assert dg.classify([_d("missing-rocm-header", header="hipcub/hipcub.hpp")]) == "not-checkable"
    assert dg.classify([_d("compile-error")]) == "fails"
    # an error following a missing system header may be its consequence: not the user's
    assert dg.classify([_d("missing-system-header"), _d("compile-error", after=True)]) == "needs-package"


@pytest.mark.parametrize("msg, name", [
    ("use of undeclared identifier 'cuCabsf'", "cuCabsf"),
    ("unknown type name 'cuFloatComplex'", "cuFloatComplex"),
    ("use of undeclared identifier 'make_cuFloatComplex'", "make_cuFloatComplex"),
    ("unknown type name 'cudaStream_t'", "cudaStream_t"),
    ("use of undeclared identifier 'my_counter'", ""),
    ("unknown type name 'curve_t'", ""),
])
def test_leftover_cuda_names(msg, name):
    assert dg.leftover_cuda_name(msg) == name
    assert dg.kind_of("error", msg, None) == (("leftover-cuda-name", name) if name else ("compile-error", ""))


def test_leftovers_past_a_missing_header_are_the_users_work():
    """A CUDA header or name hipify left behind fails with or without the missing header."""
    diags = [_d("missing-rocm-header", header="hip/hip_fp8.h"),
             _d("leftover-cuda-header", "'cuda_fp8.h' file not found", 2, after=True, header="cuda_fp8.h"),
             _d("leftover-cuda-name", "unknown type name 'cuFloatComplex'", 3, after=True)]
    assert dg.classify(diags) == "fails" and all(dg.counted(d) for d in diags[1:])


def _result(diags: list[dg.Diagnostic], findings: list | None = None):
    unit = SimpleNamespace(unit=SimpleNamespace(source="f.cu"), verdict=dg.classify(diags), diagnostics=diags,
                           missing_headers=sorted({d.header for d in diags if d.kind == "missing-rocm-header"}),
                           system_packages=sorted({d.package for d in diags if d.package}), per_arch={},
                           cached=0)
    unit.to_json = lambda: {"source": "f.cu", "class": unit.verdict, "per_arch": {"gfx942": unit.verdict},
                            "diagnostics": [d.to_json() for d in diags]}
    tool = SimpleNamespace(kind="rocm7-sdk", compiler="clang++-22", version="7.1", headers="/sdk",
                           describe=lambda: "clang++-22")
    return SimpleNamespace(units=[unit], findings=findings or [], toolchain=tool, archs=["gfx942"],
                           mode="syntax-only", src="/src", notes=[], compiled=1)


def test_every_output_agrees_on_what_follows_a_missing_sdk_header():
    diags = [_d("missing-rocm-header", "'hipcub/hipcub.hpp' file not found", 1, header="hipcub/hipcub.hpp"),
             _d("compile-error", "no member named 'BlockReduce'", 5, after=True),
             _d("rocm7-warning", "ignoring return value of 'hipMalloc' [nodiscard]", 6, after=True, sev="warning"),
             _d("compile-error", "real error", 9)]
    diags[1].after_missing_header = True
    result = _result(diags[:3])
    (entry,) = worklist.build(result)
    assert entry["errors"] == 0 and entry["warnings"] == 0 and entry["effort"] == "none"
    sarif = to_sarif(result)["runs"][0]["results"]
    levels = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r for r in sarif}
    assert levels[5]["level"] == "note" and levels[5]["properties"]["counted"] is False
    assert levels[6]["level"] == "note" and "not counted" in levels[6]["message"]["text"]
    text = worklist.to_text(result)
    assert text.count("not counted") == 2
    html = to_html(json.loads(json.dumps({**worklist.to_json(result)})))
    assert html.count("not counted") == 2
    # the control: the same error before the header counts everywhere
    result = _result([diags[3]])
    assert worklist.build(result)[0]["errors"] == 1
    assert to_sarif(result)["runs"][0]["results"][0]["level"] == "error"


def test_an_audit_finding_and_the_compilers_warning_on_one_line_count_once():
    warn = _d("rocm7-warning", "ignoring return value of function declared with 'nodiscard' attribute", 7,
              sev="warning")
    finding = SimpleNamespace(path="f.cu", line=7, rule="hip-error-ignored", severity="warning",
                              to_json=lambda: {"path": "f.cu", "line": 7, "rule": "hip-error-ignored",
                                               "severity": "warning"})
    (entry,) = worklist.build(_result([warn], [finding]))
    assert entry["warnings"] == 1 and entry["hazards"]["warning"] == 0
    other = SimpleNamespace(**{**finding.__dict__, "line": 8})  # another line: both count
    (entry,) = worklist.build(_result([warn], [other]))
    assert entry["warnings"] == 1 and entry["hazards"]["warning"] == 1


def test_hints_are_the_declarations_the_notes_point_at(tmp_path):
    header = tmp_path / "sdk" / "hip_runtime_api.h"
    header.parent.mkdir()
    header.write_text("#pragma once\n/** doc */\nhipError_t\nhipStreamCreateWithFlags(hipStream_t* stream,\n"
                      "                         unsigned int flags);\n")
    notes = [{"file": str(header), "line": 4, "col": 1, "msg": "candidate function not viable: requires 2 arguments"},
             {"file": str(tmp_path / "user.hip"), "line": 1, "col": 1, "msg": "candidate in the user's code"}]
    hints = dg.declaration_hints(notes, lambda f: "sdk" in f)
    assert hints == ["ROCm 7 declares (hip_runtime_api.h:4): hipError_t hipStreamCreateWithFlags("
                     "hipStream_t* stream, unsigned int flags);"]
    assert dg.declaration_hints([{**notes[0], "msg": "in instantiation of"}], lambda f: True) == []


def test_a_wrong_call_gets_the_rocm7_signature(toolchain, tmp_path, capsys):
    from porting.cli import main

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("#include <cuda_runtime.h>\nint main() { cudaStreamCreateWithFlags(0); return 0; }\n")
    assert main(["check", str(src), "--out", str(tmp_path / "out"), "--arch", "gfx942", "--format", "json"]) == 1
    (diag,) = [d for u in json.loads(capsys.readouterr().out)["units"] for d in u["diagnostics"]]
    assert diag["line"] == 2 and any("hipStreamCreateWithFlags(hipStream_t* stream" in h for h in diag["hints"])
