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
        {"directory": str(src), "file": "plain.c", "command": "gcc -std=c11 -c plain.c"},
    ]))
    units, notes = from_compile_commands(db, src)
    a, host = {u.source: u for u in units}["kernels/a.cu"], {u.source: u for u in units}["host.cpp"]
    assert a.defines == ["USE_ROCM=1", "N=4"]
    assert a.includes == [str(src / "include"), "/opt/x/include"]
    assert a.std == "c++20"
    assert host.defines == ["HOST"] and host.includes == [str(src / "include")]
    # the build compiles plain.cpp (it may reach CUDA through a project header): checked too; a C file is not
    assert [u.source for u in units] == ["host.cpp", "kernels/a.cu", "plain.cpp"]
    assert len(notes) == 2 and "elsewhere.cu" in notes[0] and "outside" in notes[0]
    assert notes[1].startswith("1 C file(s)")


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


def _db(tmp_path: Path, entries: list[dict]) -> Path:
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps(entries))
    return db


@pytest.mark.parametrize("args, std", [
    (["-stdlib=libc++"], None),  # not -std with the value "lib=libc++"
    (["-std=c++20", "-stdlib=libc++"], "c++20"),
    (["--std", "gnu++17"], "gnu++17"),
    (["--std=c++14"], "c++14"),
    (["-std=c11"], None),  # a C standard on a .cu unit: HIP is C++, the default is kept (and said)
    (["-std=gnu99"], None),
])
def test_std_is_parsed_exactly(tmp_path, args, std):
    src = _tree(tmp_path)
    db = _db(tmp_path, [{"directory": str(src / "kernels"), "file": "a.cu", "arguments": ["nvcc", *args, "a.cu"]}])
    (unit,), notes = from_compile_commands(db, src)
    assert unit.std == std
    assert any("not a C++ standard" in n for n in notes) == (args[0] in ("-std=c11", "-std=gnu99"))


@pytest.mark.parametrize("where", ["file", "directory", "define", "include", "std", "command"])
def test_nul_bytes_in_a_database_are_one_line_errors(tmp_path, where):
    src = _tree(tmp_path)
    entry: dict = {"directory": str(src / "kernels"), "file": "a.cu", "arguments": ["nvcc", "a.cu"]}
    if where in ("file", "directory"):
        entry[where] += "\0x"
    elif where == "command":
        entry = {"directory": entry["directory"], "file": "a.cu", "command": "nvcc -DA\0=1 a.cu"}
    else:
        entry["arguments"].insert(1, {"define": "-DX\0=1", "include": "-I/x\0y", "std": "-std=c++17\0"}[where])
    with pytest.raises(InputError) as err:
        from_compile_commands(_db(tmp_path, [entry]), src)
    assert "entry 0" in str(err.value) and "NUL" in str(err.value) and "\n" not in str(err.value)


def test_response_files_are_expanded(tmp_path):
    """CMake writes long include lists to @file (nvcc: --options-file): their -I/-D are the unit's."""
    src = _tree(tmp_path)
    (src / "kernels" / "inc.rsp").write_text('-I../include "-DNAME=a b" @more.rsp\n')
    (src / "kernels" / "more.rsp").write_text("-std=c++20\n")
    (src / "kernels" / "opts.txt").write_text("-DFROM_OPTIONS_FILE\n")
    db = _db(tmp_path, [{"directory": str(src / "kernels"), "file": "a.cu",
                         "arguments": ["nvcc", "@inc.rsp", "--options-file", "opts.txt", "a.cu"]}])
    (unit,), _ = from_compile_commands(db, src)
    assert unit.includes == [str(src / "include")]
    assert unit.defines == ["NAME=a b", "FROM_OPTIONS_FILE"] and unit.std == "c++20"


def test_a_response_file_loop_or_fifo_is_a_one_line_error(tmp_path):
    import os

    src = _tree(tmp_path)
    (src / "kernels" / "loop.rsp").write_text("@loop.rsp\n")
    db = _db(tmp_path, [{"directory": str(src / "kernels"), "file": "a.cu", "arguments": ["nvcc", "@loop.rsp"]}])
    with pytest.raises(InputError, match="nested"):
        from_compile_commands(db, src)
    os.mkfifo(src / "kernels" / "fifo.rsp")  # opened without blocking, refused as not a regular file
    db = _db(tmp_path, [{"directory": str(src / "kernels"), "file": "a.cu", "arguments": ["nvcc", "@fifo.rsp"]}])
    with pytest.raises(InputError, match="not a readable regular file"):
        from_compile_commands(db, src)


def test_a_non_utf8_database_is_a_one_line_error(tmp_path):
    db = tmp_path / "cc.json"
    db.write_bytes(b'[{"file": "\xff.cu", "command": "nvcc x"}]')
    with pytest.raises(InputError, match="UTF-8"):
        from_compile_commands(db, tmp_path)


def test_a_file_reaching_cuda_through_a_project_header_is_a_unit(tmp_path):
    """rdmaxcel-sys's driver_api.cpp includes only driver_api.h, which includes cuda.h."""
    src = tmp_path / "src"
    (src / "src").mkdir(parents=True)
    (src / "include").mkdir()
    (src / "src" / "driver_api.h").write_text("#pragma once\n#include <cuda.h>\n")
    (src / "src" / "driver_api.cpp").write_text('#include "driver_api.h"\nint f() { return 0; }\n')
    (src / "include" / "wrap.h").write_text('#pragma once\n#include "deeper.h"\n')
    (src / "include" / "deeper.h").write_text("#pragma once\n#include <cuda_runtime.h>\n")
    (src / "src" / "via_include_dir.cc").write_text("#include <wrap.h>\n")
    (src / "src" / "cycle_a.h").write_text('#include "cycle_b.h"\n')
    (src / "src" / "cycle_b.h").write_text('#include "cycle_a.h"\n')
    (src / "src" / "host.cpp").write_text('#include "cycle_a.h"\n#include <vector>\n')  # no CUDA, a cycle
    assert [u.source for u in from_tree(src)] == ["src/driver_api.cpp", "src/via_include_dir.cc"]


def test_a_source_included_by_another_is_not_a_unit_of_its_own(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.cu").write_text('#include "kernels_impl.cu"\nint main() {}\n')
    (src / "kernels_impl.cu").write_text("__global__ void k() { undefined_here(); }\n")
    (src / "other.cu").write_text("__global__ void o() {}\n")
    assert [u.source for u in from_tree(src)] == ["main.cu", "other.cu"]
