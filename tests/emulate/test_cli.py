"""`port emulate` through the CLI: exit codes, arguments, files, masks, refusals, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porting.cli import main

CLI = Path(__file__).parent / "programs" / "cli"


def port(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    return tmp_path / "emu"


def test_arguments_stdin_files_and_masks(capsys, tmp_path, out_dir):
    stdin = tmp_path / "in.txt"
    stdin.write_text("hello\n")
    common = [str(CLI / "args_files.cu"), "--out", str(out_dir), "--stdin", str(stdin), "--mask", r"\d+ ms"]
    code, out, err = port(capsys, "emulate", *common, "--compare", "stdout,exit,lanes.txt", "--", "portable")
    assert code == 0, err
    assert "same results at warp 32 and 64" in out
    for w in (32, 64):
        assert (out_dir / f"run-w{w}" / "lanes.txt").read_text().split() == ["1"] * 128
    code, out, err = port(capsys, "emulate", *common, "--compare", "stdout,exit,lanes.txt", "--json", "--", "lanes32")
    assert code == 1
    record = json.loads(out)
    assert record["program_args"] == ["lanes32"]
    assert record["runs"][0]["stdout"].startswith("mode lanes32, stdin word hello\n")
    [diff] = record["differences"]  # stdout matches once the timing is masked; the file does not
    assert diff == {"what": "file lanes.txt", "where": "line 33", "values": {"32": "1", "64": "0"}}
    assert "results diverge" in err


def test_json_record_follows_its_schema(capsys, out_dir):
    jsonschema = pytest.importorskip("jsonschema")
    from porting.assets import schema as schema_path

    schema = json.loads(schema_path("emulate-1").read_text())
    code, out, _ = port(capsys, "emulate", str(CLI / "args_files.cu"), "--out", str(out_dir), "--json",
                        "--mask", r"\d+ ms", "--", "portable")
    record = json.loads(out)
    jsonschema.validate(record, schema)
    assert code == 0 and record["verdict"] == "same"
    assert record["launch_sites"] == 1 and [r["warp"] for r in record["runs"]] == [32, 64]


@pytest.mark.parametrize("program, feature", [
    ("uses_cusolver.cu", "uses_cusolver.cu:2: uses cuSOLVER"),
    ("inline_ptx.cu", "inline_ptx.cu:4: inline assembly: PTX instruction 'sad.u32'"),
    ("grid_sync.cu", "grid_sync.cu:3: cooperative groups grid sync"),
])
def test_unsupported_features_are_refused_by_name(capsys, out_dir, program, feature):
    code, out, err = port(capsys, "emulate", str(CLI / program), "--out", str(out_dir))
    assert code == 2
    assert feature in err and "does not emulate" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_an_api_the_runtime_lacks_is_named(capsys, out_dir):
    code, _, err = port(capsys, "emulate", str(CLI / "unknown_api.cu"), "--out", str(out_dir))
    assert code == 2
    assert "uses cudaMemRangeGetAttribute, which port emulate's runtime does not provide" in err
    assert "unknown_api.cu:6" in err and str(out_dir) not in err


def test_a_program_that_does_not_compile(capsys, out_dir):
    code, _, err = port(capsys, "emulate", str(CLI / "syntax_error.cu"), "--out", str(out_dir))
    assert code == 2
    assert "does not compile" in err and "syntax_error.cu:1" in err


def test_a_launch_from_device_code_runs_its_child_grid(capsys, out_dir):
    """Dynamic parallelism: the child grid has run when the host's launch returns (it was
    refused before; a device-side wait for it still is: test_runtime)."""
    code, out, err = port(capsys, "emulate", str(CLI / "dynamic_parallelism.cu"), "--out", str(out_dir), "--json")
    assert code == 0, err
    assert json.loads(out)["runs"][0]["stdout"] == "done 4 0\n"


@pytest.mark.parametrize("argv, message", [
    (["missing.cu"], "missing.cu: source file does not exist"),
    (["{cli}/args_files.cu", "--warp", "32,48"], "--warp: widths must be among 32, 64"),
    (["{cli}/args_files.cu", "--warp", "x"], "--warp: comma-separated integers"),
    (["{cli}/args_files.cu", "--stdin", "nope.txt"], "--stdin nope.txt: not a file"),
    (["{cli}/args_files.cu", "--mask", "("], "--mask: not a regular expression"),
    (["{cli}/args_files.cu", "-I", "no/such/dir"], "-I no/such/dir: not a directory"),
])
def test_usage_errors(capsys, out_dir, argv, message):
    argv = [a.replace("{cli}", str(CLI)) for a in argv]
    code, _, err = port(capsys, "emulate", *argv, "--out", str(out_dir))
    assert code == 2
    assert message in err and "Traceback" not in err
    assert not out_dir.exists()


def test_a_program_of_several_files_with_include_dirs_and_defines(capsys, out_dir):
    src = Path(__file__).parent / "programs" / "multifile"
    code, out, err = port(capsys, "emulate", str(src / "kernels.cu"), str(src / "main.cpp"), "-I", str(src / "include"),
                          "-D", "OFFSET=5", "--out", str(out_dir), "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["launch_sites"] == 2  # the one in kernels.cu and the template's in scale.cuh
    assert str(src / "include" / "scale.cuh") in record["files"]
    n = 1000
    assert record["runs"][0]["stdout"] == f"sum {3 * sum(range(5, n + 5))} first 15 last {3 * (n + 4)}\n"


def test_a_program_that_compiles_at_one_width_only_diverges(capsys, out_dir):
    code, out, err = port(capsys, "emulate", str(CLI / "ffs_ballot.cu"), "--out", str(out_dir))
    assert code == 1
    assert "warp 32: ran, exit 0" in out and "warp 64: build-failed" in out
    assert "DIVERGED: status: warp 32: exit 0 | warp 64: build-failed (" in out
    assert "ffs_ballot.cu:7:" in out and "__ffs" in out and str(out_dir) not in out


def test_a_program_that_faults_at_every_width_could_not_run(capsys, out_dir):
    code, _, err = port(capsys, "emulate", str(Path(__file__).parent / "programs" / "runtime" / "lockstep.cu"),
                        "--out", str(out_dir), "--strict-sync", "--", "mask")
    assert code == 2
    assert "the program fails at every width" in err and "names lane 1" in err


def _dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # killed; a zombie is only waiting to be reaped


def test_a_run_past_its_timeout_is_stopped_with_its_children(capsys, out_dir):
    hang = Path(__file__).parent / "programs" / "runtime" / "hang.cu"
    code, _, err = port(capsys, "emulate", str(hang), "--out", str(out_dir), "--timeout", "3", "--no-sandbox")
    assert code == 3  # inconclusive: every run timed out
    assert "inconclusive: the run at warp 32 and 64 took longer than the timeout" in err
    for w in (32, 64):
        pid = int((out_dir / f"run-w{w}" / "child.pid").read_text())
        assert _dead(pid), f"warp {w}: the program's child {pid} outlived the command"


def test_sigterm_ends_the_running_program_and_its_children(tmp_path):
    """The program runs are registered with the command's process-group owner: a SIGTERM to
    `port emulate` ends the program's whole group (its forked child too), not just the CLI."""
    import os
    import signal
    import subprocess
    import sys
    import time

    hang = Path(__file__).parent / "programs" / "runtime" / "hang.cu"
    out_dir = tmp_path / "emu"
    proc = subprocess.Popen([sys.executable, "-m", "porting", "emulate", str(hang), "--out", str(out_dir),
                             "--timeout", "600", "--no-sandbox"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    pid_files = [out_dir / f"run-w{w}" / "child.pid" for w in (32, 64)]
    try:
        while not any(p.is_file() and p.read_text().strip() for p in pid_files):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        time.sleep(0.2)  # the pid file is written before the kernel starts spinning
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)  # a hang guard, not a time limit on the behaviour
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode != 0 and "Traceback" not in err, err
    for pid_file in pid_files:
        if pid_file.is_file() and pid_file.read_text().strip():
            pid = int(pid_file.read_text())
            assert _dead(pid), f"{pid_file.parent.name}: the program's child {pid} outlived the command"
