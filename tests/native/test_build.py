"""`port build`: records, incremental rebuilds, compiler errors, and the GPU paths' builds."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from porting.builder import BuildRecord, build, read_record
from porting import assets
from porting.cli import main

pytestmark = pytest.mark.component("native")



def have(tool: str) -> bool:
    return shutil.which(tool) is not None or (tool == "nvcc" and Path("/usr/local/cuda/bin/nvcc").is_file())


def copy_sources(tmp_path: Path) -> Path:
    src = tmp_path / "native"
    shutil.copytree(assets.native_dir(), src)
    return src


def test_cpu_build_record_and_library(lib, build_dir):
    record = read_record("cpu", build_dir)
    assert record is not None and record.ok and record.path == "cpu"
    assert record.library == "lib/libport_native.so"
    assert (Path(record.build_dir) / record.library).is_file()
    assert {s.kind for s in record.steps} == {"compile", "link"}
    assert {Path(s.source).name for s in record.steps if s.kind == "compile"} >= {"shard_cpu.cpp", "registry.cpp"}
    assert lib.backend == "cpu" and lib.path == "cpu"
    data = json.loads((build_dir / "cpu" / "build-record.json").read_text())
    assert BuildRecord.from_json(data).to_json() == data


def test_incremental_rebuild(tmp_path):
    src = copy_sources(tmp_path)
    out = tmp_path / "out"
    first = build("cpu", out, source_dir=src)
    assert first.ok and all(not s.cached for s in first.steps)
    again = build("cpu", out, source_dir=src)
    assert again.ok and all(s.cached for s in again.steps)
    unit = src / "src" / "shard_cpu.cpp"
    unit.write_text(unit.read_text() + "\n// touched\n")
    third = build("cpu", out, source_dir=src)
    rebuilt = {Path(s.source).name for s in third.steps if not s.cached}
    assert rebuilt == {"shard_cpu.cpp", "objects"}
    from porting.builder.backends import BACKENDS, BuildContext
    from porting.builder.sources import header_files

    ctx = BuildContext(path="cpu", source_dir=src, out_dir=out / "cpu", compiler="c++", gpu_archs=[],
                       alias_include=tmp_path, jobs=1, headers=header_files(src))
    compiles, _ = BACKENDS["cpu"].commands(ctx)
    # every unit hashes every header, so a header edit rebuilds them all (the mechanism is
    # tested cheaply in test_steps_rerun_exactly_when_an_input_or_the_command_changes)
    assert all(src / "src" / "internal.h" in c.inputs for c in compiles)


def test_steps_rerun_exactly_when_an_input_or_the_command_changes(tmp_path):
    from porting.builder.steps import Command, run_commands

    src, header, out = tmp_path / "a.txt", tmp_path / "h.txt", tmp_path / "out" / "a.copy"
    src.write_text("a")
    header.write_text("h")

    def step(*flags: str) -> bool:
        argv = ["cp", *flags, str(src), str(out)]
        (done,) = run_commands([Command("compile", "a.txt", out, argv, [src, header])], 1)
        return done.cached

    assert step() is False and out.read_text() == "a"
    assert step() is True
    header.write_text("h2")
    assert step() is False  # an input (a header) changed
    assert step() is True
    assert step("-p") is False  # the command line changed
    src.write_text("b")
    assert step("-p") is False and out.read_text() == "b"
    out.with_name(out.name + ".stamp").write_text("garbage")
    assert step("-p") is False  # a corrupt stamp means rebuild


def test_compiler_error_names_the_command(tmp_path, capsys):
    src = copy_sources(tmp_path)
    unit = src / "src" / "shard_cpu.cpp"
    unit.write_text(unit.read_text() + "\nthis is not C++;\n")
    record = build("cpu", tmp_path / "out", source_dir=src)
    assert not record.ok and record.library is None
    assert "compile of src/shard_cpu.cpp failed" in record.error and str(unit) in record.error
    assert "error" in record.error_output
    assert read_record("cpu", tmp_path / "out").error == record.error  # the record is written on failure too
    code = main(["build", "--path", "cpu", "--source", str(src), "--build-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1
    assert "port: error: compile of src/shard_cpu.cpp failed" in err
    assert "this is not C++" in err  # the compiler's diagnostic is shown
    assert "Traceback" not in err


def test_cli_builds_and_reports(lib, build_dir, capsys):
    code = main(["build", "--path", "cpu", "--build-dir", str(build_dir), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"] and data["path"] == "cpu" and data["schema"] == 1
    assert all(step["cached"] for step in data["steps"])  # built by the session fixture: up to date
    assert main(["build", "--path", "cpu", "--build-dir", str(build_dir)]) == 0
    assert re.search(r": 0 of \d+ steps run", capsys.readouterr().out)


def test_cli_default_path_comes_from_detection(lib, build_dir, capsys):
    from porting.config import load_config
    from porting.plan import make_plan
    from porting.probe import probe_machine

    expected = make_plan(probe_machine(), load_config()).path
    if expected != "cpu":
        pytest.skip(f"detection picks {expected} here; this check builds only the cpu path")
    assert main(["build", "--build-dir", str(build_dir)]) == 0
    assert "port build: cpu (" in capsys.readouterr().out


def test_cli_bad_arguments(tmp_path, capsys):
    assert main(["build", "--path", "cpu", "--jobs", "-1", "--build-dir", str(tmp_path)]) == 2
    assert "--jobs" in capsys.readouterr().err
    assert main(["build", "--path", "cpu", "--source", str(tmp_path), "--build-dir", str(tmp_path)]) == 2
    assert "not a native/ source tree" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["build", "--path", "metal"])
    assert exc.value.code == 2


def test_load_without_a_build_is_a_clear_error(tmp_path):
    from porting import native

    with pytest.raises(native.NativeError, match="no build record; run `port build --path cpu`"):
        native.load("cpu", tmp_path)
    with pytest.raises(native.NativeError, match="no usable native build"):
        native.load(None, tmp_path)
    assert not native.is_available("cpu", tmp_path)


def test_a_build_that_does_not_load_is_broken_not_absent(tmp_path):
    """The matrix skips native cases only when no build was made (``native.absent``); a build
    whose record says it succeeded but whose library does not load is an error there."""
    import json

    from porting import native

    with pytest.raises(native.NativeError) as none:
        native.load(None, tmp_path)
    assert native.absent(none.value)
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "libbroken.so").write_bytes(b"not an ELF file")
    (tmp_path / "cpu" / "build-record.json").write_text(json.dumps({"ok": True, "library": "libbroken.so"}))
    for call in (lambda: native.load("cpu", tmp_path), lambda: native.load(None, tmp_path),
                 lambda: native.load_for("host", None, tmp_path)):
        with pytest.raises(native.NativeError, match=r"libbroken\.so: cannot load native library") as err:
            call()
        assert err.value.status == "runtime" and not native.absent(err.value)
    with pytest.raises(native.NativeError) as dev:  # no GPU build at all: absent, even next to a broken cpu one
        native.load_for("device", None, tmp_path)
    assert native.absent(dev.value)


NO_DEVICE_CHECK = """
import sys, torch
from porting import native
lib = native.load(sys.argv[1], sys.argv[2])
assert lib.backend == sys.argv[3], lib.backend
assert not lib.usable()
try:
    lib.device_count()
except native.NoDeviceError as exc:
    print("no-device:", exc)
else:
    raise SystemExit("expected NoDeviceError")
assert native.classify(torch.zeros(4), lib=lib).kind == "host"
for make in (lambda: native.CopyEngine(native.Registry(lib)), lambda: native.Registry(lib).alloc_exportable(64)):
    try:
        make()
    except native.NoDeviceError:
        pass
    else:
        raise SystemExit("expected NoDeviceError")
"""


def _gpu_build(path: str, build_dir: Path) -> BuildRecord:
    record = build(path, build_dir)
    assert record.ok, f"{record.error}\n{record.error_output}"
    return record


def _check_no_device(path: str, build_dir: Path, backend: str) -> None:
    """Loading a GPU build on a machine without a device reports it, in a subprocess so a crash
    would show as a failed exit status rather than killing the test worker."""
    proc = subprocess.run([sys.executable, "-c", NO_DEVICE_CHECK, path, str(build_dir), backend],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no-device:" in proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(not have("nvcc"), reason="nvcc not installed")
def test_cuda_build_succeeds(build_dir):
    record = _gpu_build("cuda", build_dir)
    assert record.gpu_archs and all(a.startswith("sm_") for a in record.gpu_archs)
    assert any(s.source.endswith("shard_kernels.cu") for s in record.steps)
    from porting import native

    lib = native.load("cuda", build_dir)
    if lib.usable():
        pytest.skip("a CUDA device is present: the no-device check does not apply")
    _check_no_device("cuda", build_dir, "cuda")


@pytest.mark.skipif(not have("nvcc"), reason="nvcc not installed")
def test_cuda_archs_the_compiler_cannot_target_are_dropped_with_a_note(tmp_path):
    from porting.builder.backends import BACKENDS, BuildContext, find_compiler

    backend = BACKENDS["cuda"]

    def ctx(archs: list[str]) -> BuildContext:
        return BuildContext(path="cuda", source_dir=assets.native_dir(), out_dir=tmp_path, compiler=find_compiler(backend, None),
                            gpu_archs=archs, alias_include=tmp_path, jobs=1, headers=[])

    c = ctx(["sm_10", "90"])
    assert backend.archs(c) == ["sm_90"]
    assert any("cannot generate code for sm_10" in n for n in c.notes)
    c = ctx(["sm_10"])
    (fallback,) = backend.archs(c)
    assert fallback.startswith("sm_") and "building for" in c.notes[-1]
    assert backend.archs(ctx([])) == ["sm_90"]


