"""`port matrix`: argument handling and an end-to-end run on a tiny project."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from porting.commands import matrix as cmd
from porting.config import load_config
from porting.errors import InputError, UsageError


def _args(**kw):
    base = dict(shard=None, junit=None, workers=None, matrix_dir="test_matrix", run_id=None, pytest_args=[],
                config=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_pytest_arguments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_matrix").mkdir()
    config = load_config(env={}, project_dir=tmp_path)
    out = cmd.build_pytest_args(_args(shard="2/3", pytest_args=["--", "-k", "actor"]), config,
                                tmp_path / "j.xml", "rid")
    assert out[0] == "test_matrix" and "--port-matrix" in out and "--port-shard=2/3" in out
    assert out[out.index("-n") + 1] == "auto" and out[-2:] == ["-k", "actor"]
    assert f"--junitxml={tmp_path / 'j.xml'}" in out and "--port-run-id=rid" in out
    assert "-n" not in cmd.build_pytest_args(_args(workers="0"), config, tmp_path / "j.xml", "rid")
    assert not any(a.startswith("--port-config") for a in out)
    out = cmd.build_pytest_args(_args(config="c.toml"), config, tmp_path / "j.xml", "rid")
    assert f"--port-config={tmp_path / 'c.toml'}" in out


def test_bad_arguments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_config(env={}, project_dir=tmp_path)
    with pytest.raises(InputError, match="test_matrix"):
        cmd.build_pytest_args(_args(), config, tmp_path / "j.xml", "r")
    (tmp_path / "test_matrix").mkdir()
    with pytest.raises(UsageError, match="--shard"):
        cmd.build_pytest_args(_args(shard="4/3"), config, tmp_path / "j.xml", "r")
    with pytest.raises(UsageError, match="--workers"):
        cmd.build_pytest_args(_args(workers="many"), config, tmp_path / "j.xml", "r")


def test_junit_file_name_carries_run_and_shard():
    p = cmd.junit_path(Path("out"), "0123456789abcdef", "2/5")
    assert p == Path("out/matrix-0123456789ab-shard2of5.xml")
    assert cmd.junit_path(Path("out"), "r", None) == Path("out/matrix-r-shard1of1.xml")


@pytest.mark.parametrize("shard", ["foo", "1/2/3", "0/2"])
def test_bad_shard_is_one_line_before_anything_is_written(tmp_path, shard):
    proc = subprocess.run([sys.executable, "-m", "porting", "matrix", "--shard", shard, "--junit", "out"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"port: error: --shard {shard!r}: "), proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_port_matrix_end_to_end(project):
    project.write("test_matrix/pack/test_a.py", "def test_a():\n    pass\n\ndef test_b():\n    assert 0\n")
    port = [sys.executable, "-m", "porting", "matrix", "--matrix-dir", "test_matrix", "--junit", "out", "-n", "0",
            "--run-id", "feedbeef0000"]
    key, public = _signing_key(project.root)
    proc = subprocess.run(port, cwd=project.root, env=project.env(PORT_MATRIX_SIGNING_KEY=key), capture_output=True,
                          text=True, timeout=600)
    junit = project.root / "out" / "matrix-feedbeef0000-shard1of1.xml"
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "JUnit written to out/matrix-feedbeef0000-shard1of1.xml" in proc.stdout
    assert "port: error: matrix run feedbeef0000 has failures" in proc.stderr
    run = project.result(proc.returncode, proc.stdout)
    run.junit = junit
    assert run.suite_properties()["port.run_id"] == "feedbeef0000"
    assert len(run.cases()) == 2
    # the evidence manifest beside it, signed with matrix.signing_key (issue 23: provenance)
    from porting.provenance import SIGNED, check, load_trusted, manifest_path

    assert "evidence manifest out/matrix-feedbeef0000-shard1of1.evidence.json (signed)" in proc.stdout
    manifest = json.loads(manifest_path(junit).read_text())["payload"]
    assert manifest["run_id"] == "feedbeef0000" and manifest["properties"]["port.run_id"] == "feedbeef0000"
    assert check(junit, load_trusted([public])).status == SIGNED


def _signing_key(root) -> tuple[str, str]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

    key = Ed25519PrivateKey.generate()
    private, public = root / "key.pem", root / "key.pub.pem"
    private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    return str(private), str(public)


@pytest.mark.slow
def test_junit_is_published_atomically_and_never_through_a_symlink(project):
    """pytest writes the JUnit into a private staging dir; `port matrix` publishes it with
    OutputDir: a symlink planted at the file's name is replaced, its target left alone, and the
    mode is the umask's."""
    project.write("test_matrix/pack/test_a.py", "def test_a():\n    pass\n")
    victim = project.root / "victim.txt"
    victim.write_text("keep me")
    (project.root / "out").mkdir()
    planted = project.root / "out" / "matrix-feedbeef0001-shard1of1.xml"
    planted.symlink_to(victim)
    port = [sys.executable, "-m", "porting", "matrix", "--matrix-dir", "test_matrix", "--junit", "out", "-n", "0",
            "--run-id", "feedbeef0001"]
    proc = subprocess.run(port, cwd=project.root, env=project.env(), capture_output=True, text=True, timeout=600,
                          preexec_fn=lambda: os.umask(0o027))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert victim.read_text() == "keep me"
    assert planted.is_file() and not planted.is_symlink() and "<testsuite" in planted.read_text()
    assert planted.stat().st_mode & 0o777 == 0o640
    # beside it: its evidence manifest and the lock `port matrix` held on its name (issue 23)
    assert sorted(os.listdir(project.root / "out")) == [f".{planted.name}.lock",
                                                         "matrix-feedbeef0001-shard1of1.evidence.json", planted.name]


@pytest.mark.slow
def test_a_junit_dir_below_a_symlinked_directory_is_written_there(project):
    project.write("test_matrix/pack/test_a.py", "def test_a():\n    pass\n")
    (project.root / "elsewhere").mkdir()
    (project.root / "out").symlink_to(project.root / "elsewhere")
    port = [sys.executable, "-m", "porting", "matrix", "--matrix-dir", "test_matrix", "--junit", "out/sub", "-n", "0"]
    proc = subprocess.run(port, cwd=project.root, env=project.env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the root of an output directory may itself be reached through a symlink (a user's choice)
    written = sorted(p.name for p in (project.root / "elsewhere" / "sub").iterdir())
    assert len(written) == 3 and written[1].endswith(".evidence.json") and written[2].endswith(".xml")
