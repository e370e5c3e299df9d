"""Odd trees: Latin-1 headers, binary files, symlink loops, unreadable and oversized files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from porting.cli import main
from porting.hipify import HipifyOptions, convert_tree, worker

LATIN1 = b"// r\xe9sum\xe9 of the stream API \xa9 2019\n#pragma once\ncudaStream_t make_stream(); // caf\xe9\n"


def test_latin1_header_is_converted_losslessly(tmp_path: Path, hx) -> None:
    src = hx.write_tree(tmp_path / "src", {"legacy.h": LATIN1, "k.cu": '#include "legacy.h"\n__global__ void k() {}\n'})
    m = convert_tree(src, tmp_path / "out", jobs=1)
    e = m.by_source()["legacy.h"]
    assert e.status == "converted" and e.non_utf8_bytes == 4 and "non-UTF-8" in e.why
    out = (tmp_path / "out" / "legacy_hip.h").read_bytes()
    assert b"hipStream_t make_stream(); // caf\xe9\n" in out
    assert b"// r\xe9sum\xe9 of the stream API \xa9 2019\n" in out
    assert b'#include "legacy_hip.h"' in (tmp_path / "out" / "k.hip").read_bytes()
    assert m.summary["non_utf8"] == 1 and m.ok


def test_plain_hipify_really_crashes_on_latin1(tmp_path: Path, hx) -> None:
    """The reason for the test above: plain hipify dies on the first such file."""
    src = hx.write_tree(tmp_path / "src", {"legacy.h": LATIN1})
    code = ("from torch.utils.hipify import hipify_python as hp; import sys; "
            "hp.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2], show_progress=False)")
    proc = subprocess.run([sys.executable, "-c", code, str(src), str(tmp_path / "plain")],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "UnicodeDecodeError" in proc.stderr


def test_binary_symlink_loop_and_large_files_are_skipped_and_the_run_finishes(tmp_path: Path, hx) -> None:
    src = hx.write_tree(tmp_path / "src", {
        "blob.h": b"\x7fELF\x00\x00cudaMalloc",
        "big.cu": "// " + "x" * 300 + "\ncudaMalloc(p, 1);\n",
        "ok.cu": "void f() { cudaFree(0); }\n",
        "img/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00",
    })
    os.symlink("..", src / "img" / "up")
    os.symlink("missing.h", src / "dangling.h")
    m = convert_tree(src, tmp_path / "out", jobs=2, options=HipifyOptions(max_file_size=200))
    by = m.by_source()
    assert by["blob.h"].status == "skipped" and "binary" in by["blob.h"].why
    assert by["big.cu"].status == "skipped" and "max_file_size" in by["big.cu"].why
    assert by["img/up"].status == "skipped" and "symlink loop" in by["img/up"].why
    assert by["dangling.h"].status == "skipped" and "broken symlink" in by["dangling.h"].why
    assert by["ok.cu"].status == "converted" and by["img/logo.png"].status == "unchanged"
    assert (tmp_path / "out" / "blob.h").read_bytes() == b"\x7fELF\x00\x00cudaMalloc"  # copied as is
    assert (tmp_path / "out" / "img" / "logo.png").exists()
    assert m.summary["skipped"] == 4 and m.summary["failed"] == 0 and m.ok


def test_unreadable_file_fails_but_others_convert(tmp_path: Path, hx, monkeypatch) -> None:
    src = hx.write_tree(tmp_path / "src", {"bad.cu": "void f() { cudaMalloc(p, 1); }\n",
                                           "good.cu": "void g() { cudaFree(p); }\n"})
    real_open = open

    def fake_open(path, *args, **kwargs):
        if str(path).endswith("bad.cu"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(worker, "open", fake_open, raising=False)
    m = convert_tree(src, tmp_path / "out", jobs=1)
    assert m.by_source()["bad.cu"].status == "failed" and "Permission denied" in m.by_source()["bad.cu"].why
    assert m.by_source()["good.cu"].status == "converted" and not m.ok


def test_cli_reports_and_exit_codes(tmp_path: Path, hx, capsys) -> None:
    src = hx.write_tree(tmp_path / "src", {"k.cu": "void f() { cudaMalloc(p, 1); }\n", "b.h": b"\x00\x01"})
    before = hx.tree_digest(src)
    assert main(["hipify", str(src), "--out", str(tmp_path / "out"), "--jobs", "2"]) == 0
    text = capsys.readouterr().out
    assert "skipped   b.h: binary file" in text and "1 converted" in text and "1 skipped" in text
    assert main(["hipify", str(src), "--out", str(tmp_path / "out"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["converted"] == 1 and data["problems"][0]["source"] == "b.h"
    manifest = json.loads((tmp_path / "out" / ".port-hipify-manifest.json").read_text())
    assert manifest["schema"] == "rocm-port/hipify-manifest/1"
    assert {f["source"]: f["status"] for f in manifest["files"]} == {"k.cu": "converted", "b.h": "skipped"}
    assert hx.tree_digest(src) == before


@pytest.mark.parametrize("argv, message", [
    (["hipify", "{tmp}/nope", "--out", "{tmp}/o"], "source directory does not exist"),
    (["hipify", "{tmp}/src", "--out", "{tmp}/src"], "must not be the source directory"),
    (["hipify", "{tmp}/src", "--out", "{tmp}"], "must not be the source directory or contain it"),
    (["hipify", "{tmp}/src", "--out", "{tmp}/o", "--jobs", "-1"], "--jobs"),
    (["hipify", "{tmp}/src", "--out", "{tmp}/o", "--manifest", "{tmp}/src/m.json"], "must not be inside the source"),
    (["hipify", "{tmp}/src", "--out", "{tmp}/file/o"], "--out {tmp}/file/o: cannot create the output directory"),
])
def test_cli_bad_arguments_are_one_line_errors(tmp_path: Path, argv, message, capsys) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "file").write_text("")  # a regular file: nothing can be created under it
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("port: error: ") and message.format(tmp=tmp_path) in err and "Traceback" not in err


def test_cli_unwritable_manifest_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "file").write_text("")
    manifest = tmp_path / "file" / "m.json"
    assert main(["hipify", str(tmp_path / "src"), "--out", str(tmp_path / "o"), "--manifest", str(manifest)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(f"port: error: --manifest {manifest}: cannot write the manifest")
    assert "Traceback" not in err


def test_output_inside_source_tree_is_not_walked(tmp_path: Path, hx) -> None:
    src = hx.write_tree(tmp_path / "src", {"k.cu": "cudaMalloc(p, 1);\n"})
    m1 = convert_tree(src, src / "build_hip", jobs=1)
    m2 = convert_tree(src, src / "build_hip", jobs=1)
    assert [e.source for e in m2.files] == ["k.cu"] == [e.source for e in m1.files]


def test_output_name_collisions_resolve_like_plain_hipify(tmp_path: Path, hx) -> None:
    """x.cu's hipified name is x.hip, which also exists as a source; a_cuda.cpp and a.cpp both
    become a_hip.cpp. The output tree must still equal plain hipify's."""
    src = hx.write_tree(tmp_path / "src", {
        "x.cu": "__global__ void k() {}\nvoid f() { cudaDeviceSynchronize(); }\n",
        "x.hip": "// an old hand-written HIP file\n",
        "a.cpp": "void a() { cudaFree(0); }\n",
        "a_cuda.cpp": "void b() { cudaMalloc(0, 0); }\n",
    })
    hx.run_plain_hipify(src, tmp_path / "plain")
    for jobs in (1, 2):
        m = convert_tree(src, tmp_path / f"ours{jobs}", jobs=jobs)
        assert hx.tree_digest(tmp_path / f"ours{jobs}") == hx.tree_digest(tmp_path / "plain")
        by = m.by_source()
        assert by["x.hip"].status == "skipped" and "x.cu" in by["x.hip"].why
        assert sorted(e.status for e in (by["a.cpp"], by["a_cuda.cpp"])) == ["converted", "skipped"]


def test_inputs_that_hang_or_crash_plain_hipify_fail_cleanly(tmp_path: Path, hx) -> None:
    """`a <<< b` with no `>>>` sends plain hipify's processKernelLaunches into an endless loop;
    a launch with no kernel name before it makes it raise. Both are reported, the rest converts."""
    src = hx.write_tree(tmp_path / "src", {
        "shift.cpp": "void f() { int a = 1 <<< 2; }\n",
        "commented.cu": "void f() { k<<<1, 1>>>(); auto x = a <<< b; } // >>> only in a comment\n",
        "ok.cu": "__global__ void k() {}\nvoid g() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n",
        "comment_ok.cu": "__global__ void k() {}\nvoid g() { k<<<1, 1>>>(); }  // the <<< syntax, unclosed\n",
    })
    m = convert_tree(src, tmp_path / "out", jobs=2)
    by = m.by_source()
    assert by["shift.cpp"].status == "failed" and "never finish" in by["shift.cpp"].why
    assert by["commented.cu"].status == "failed" and "outside comments and strings" in by["commented.cu"].why
    assert by["comment_ok.cu"].status == "converted"  # plain hipify masks the comment and finishes
    assert by["ok.cu"].status == "converted" and not m.ok
    assert (tmp_path / "out" / "shift.cpp").read_bytes() == (src / "shift.cpp").read_bytes()


def test_cli_reads_max_file_size_and_jobs_from_config(tmp_path: Path, hx, capsys) -> None:
    src = hx.write_tree(tmp_path / "src", {"big.cu": "// " + "x" * 500 + "\nvoid f() { cudaFree(0); }\n",
                                           "small.cu": "void f() { cudaFree(0); }\n"})
    cfg = tmp_path / "port.toml"
    cfg.write_text("jobs = 1\n[hipify]\nmax_file_size = 100\n")
    assert main(["hipify", str(src), "--out", str(tmp_path / "out"), "--config", str(cfg)]) == 0
    out = capsys.readouterr()
    assert "skipped   big.cu: larger than hipify.max_file_size" in out.out and "jobs=1" in out.err
    assert main(["hipify", str(src), "--out", str(tmp_path / "out2"), "--config", str(cfg),
                 "--max-file-size", "100000"]) == 0
    assert "0 skipped" in capsys.readouterr().out
