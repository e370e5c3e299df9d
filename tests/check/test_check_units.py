"""Units and flags from a compile database or the tree (no compiler needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porting.check.units import from_compile_commands, from_tree
from porting.errors import InputError


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    (src / "include").mkdir()
    (src / "kernels" / "a.cu").write_text("__global__ void k() {}\n")
    (src / "host.cpp").write_text('#include <cuda_runtime.h>\nint main() { return 0; }\n')
    (src / "plain.cpp").write_text("#include <vector>\nint f() { return 1; }\n")
    (src / "include" / "h.cuh").write_text("#pragma once\n")
    return src


def test_tree_units_are_cu_files_and_cuda_including_cpp(tmp_path):
    src = _tree(tmp_path)
    units = from_tree(src)
    assert [u.source for u in units] == ["host.cpp", "kernels/a.cu"]
    assert units[0].includes == [str(src), str(src / "include")]


def test_compile_commands_arguments_and_command_forms(tmp_path):
    src = _tree(tmp_path)
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([
        {"directory": str(src / "kernels"), "file": "a.cu",
         "arguments": ["nvcc", "-DUSE_ROCM=1", "-D", "N=4", "-I../include", "-isystem", "/opt/x/include",
                       "-std=c++20", "-gencode=arch=compute_90,code=sm_90", "-c", "a.cu"]},
        {"directory": str(src), "file": "host.cpp", "command": "g++ -DHOST -I include -c host.cpp"},
        {"directory": str(tmp_path), "file": "elsewhere.cu", "command": "nvcc -c elsewhere.cu"},
        {"directory": str(src), "file": "plain.cpp", "command": "g++ -c plain.cpp"},
    ]))
    units, notes = from_compile_commands(db, src)
    a, host = {u.source: u for u in units}["kernels/a.cu"], {u.source: u for u in units}["host.cpp"]
    assert a.defines == ["USE_ROCM=1", "N=4"]
    assert a.includes == [str(src / "include"), "/opt/x/include"]
    assert a.std == "c++20"
    assert host.defines == ["HOST"] and host.includes == [str(src / "include")]
    assert [u.source for u in units] == ["host.cpp", "kernels/a.cu"]  # plain.cpp includes no CUDA header
    assert len(notes) == 2 and "elsewhere.cu" in notes[0] and "outside" in notes[0]
    assert notes[1].startswith("1 host-only file(s)")


@pytest.mark.parametrize("text, what", [("{", "not valid JSON"), ("{}", "not a JSON array"),
                                        ('[{"directory": "/"}]', "no 'file'"),
                                        ('[{"file": "a.cu"}]', "neither 'arguments' nor 'command'")])
def test_bad_compile_commands_name_the_file(tmp_path, text, what):
    db = tmp_path / "cc.json"
    db.write_text(text)
    with pytest.raises(InputError) as err:
        from_compile_commands(db, tmp_path)
    assert str(db) in str(err.value)
    if what != "not valid JSON":
        assert what in str(err.value)


def test_tree_skips_the_output_directory(tmp_path):
    src = _tree(tmp_path)
    (src / "port-check" / "hipified").mkdir(parents=True)
    (src / "port-check" / "hipified" / "a.cu").write_text("__global__ void k() {}\n")
    assert [u.source for u in from_tree(src, src / "port-check")] == ["host.cpp", "kernels/a.cu"]


def test_no_rocm_toolchain_is_a_one_line_platform_error(tmp_path):
    from porting.check import CheckRequest, run_check
    from porting.errors import PlatformError
    from porting.plan import Toolchain

    src = _tree(tmp_path)
    none = Toolchain("hipified-cuda", None, None, False, False, "no ROCm installation found", "rocm")

    class Plan:
        def toolchain(self, path: str) -> Toolchain:
            return none

    with pytest.raises(PlatformError, match="no ROCm toolchain can compile here: no ROCm installation found"):
        run_check(CheckRequest(src, tmp_path / "out", ["gfx942"]), Plan(), None)
    assert not (tmp_path / "out").exists()  # nothing written
