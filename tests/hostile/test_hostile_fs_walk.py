"""The one tree walker (porting/walk.py) under hostile trees, through every command that walks
or reads SRC: hipify, audit, aliases scan, check and emulate. Each earlier walker broke
differently (audit followed links out of SRC, check/audit/aliases hung on a FIFO, check stored
a refused file's lines in its reports); the tree below holds every trap at once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

SECRET = "SECRET_TOKEN_4711"
KERNEL = ("#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
          "int main() { float* p; cudaMalloc(&p, 4); return 0; }\n")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.cu").write_text(f"// {SECRET}\nvoid f() {{ cudaMalloc(0, 4); }} // {SECRET}\n")
    (outside / "secret.rs").write_text(f"// {SECRET}\nfn f() {{ cudaMalloc(); }} // {SECRET}\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "more.cu").write_text(f"// {SECRET}\n__global__ void g() {{}}\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    (src / "lib.rs").write_text("extern \"C\" { fn cudaMalloc(p: *mut u8, n: usize) -> i32; }\n")
    os.symlink(outside / "secret.cu", src / "leak.cu")  # a file link out of SRC
    os.symlink(outside / "secret.rs", src / "leak.rs")
    os.symlink(outside / "dir", src / "linked")  # a directory link out of SRC
    for name in ("b.cpp", "x.cu", "y.rs", "z.h"):
        os.mkfifo(src / name)  # opening one for reading blocks until a writer comes: a hang
    with open(src / "huge.cu", "wb") as fh:  # sparse: larger than any read bound, costs no disk
        fh.truncate((64 << 20) + 1)
    return src


def _no_secret(*roots: Path, text: str = "") -> None:
    assert SECRET not in text
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                assert SECRET.encode() not in path.read_bytes(), path


def test_hipify(hostile, tmp_path, hp):
    out = tmp_path / "hip"
    proc = hp.run_port(["hipify", str(hostile), "--out", str(out)], cwd=tmp_path, guard_s=120)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert (out / "k.hip").is_file() or any(out.rglob("k*")), sorted(hp.tree(out))
    _no_secret(out, text=proc.stdout + proc.stderr)


def test_audit(hostile, tmp_path, hp):
    proc = hp.run_port(["audit", str(hostile), "--format", "json", "--fail-on", "never"], cwd=tmp_path, guard_s=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    paths = {os.path.basename(f["path"]) for f in data["findings"]}
    assert "k.cu" in paths and not paths & {"leak.cu", "more.cu"}
    _no_secret(text=proc.stdout + proc.stderr)


def test_aliases_scan(hostile, tmp_path, hp):
    proc = hp.run_port(["aliases", "scan", str(hostile), "--json"], cwd=tmp_path, guard_s=120)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    assert data["files"] == 1 and "cudaMalloc" in data["used"]  # lib.rs; not leak.rs, not the FIFO y.rs
    # the outward link is reported (the scan is incomplete), never read
    assert any("leak.rs" in u and "not followed" in u for u in data["unreadable"])
    _no_secret(text=proc.stdout + proc.stderr)


@pytest.mark.parametrize("name", ["x.cu", "uses_fifo.cu"])
def test_emulate_refuses_a_fifo_source_or_header(hostile, tmp_path, hp, name):
    (hostile / "uses_fifo.cu").write_text('#include "z.h"\n' + KERNEL)
    proc = hp.run_port(["emulate", str(hostile / name), "--out", str(tmp_path / "emu")], cwd=tmp_path, guard_s=120)
    hp.assert_clean_error(proc, 2, "x.cu" if name == "x.cu" else "z.h")


def _toolchain_or_skip() -> None:
    from porting.probe.rocm_sdk import probe_rocm_sdk

    if shutil.which("hipcc") is None and not probe_rocm_sdk(Path("/"), os.environ).found:
        pytest.skip("no ROCm toolchain for port check")


def test_check_with_its_output_inside_the_tree(hostile, tmp_path, hp):
    """`port check .`: default output port-check/ inside SRC; the next run must not feed on it."""
    _toolchain_or_skip()
    for _ in range(2):
        proc = hp.run_port(["check", ".", "--format", "json", "--arch", "gfx942", "-j", "1"], cwd=hostile,
                           guard_s=300)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        data = json.loads(proc.stdout)
        assert sorted(u["source"] for u in data["units"]) == ["k.cu"], data["notes"]
        assert not any(f["path"].startswith(("port-check", "leak", "linked")) for f in data["findings"])
    _no_secret(hostile / "port-check", text=proc.stdout + proc.stderr)
