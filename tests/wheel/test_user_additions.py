"""A user's own packs, exemptions and alias overrides, added by option or config to what we
ship (never by editing the installed files), and the matrix's missing-extra message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from porting import assets
from porting.aliases.table import build_table
from porting.commands import matrix as matrix_cmd
from porting.config import load_config
from porting.errors import ConfigError
from porting.matrix import exemptions as ex

PASS_FAIL = "def test_ok():\n    pass\n\ndef test_broken():\n    assert 0\n"


def exemption(id_: str, pattern: str, action: str = "xfail") -> str:
    return (f'[[exemption]]\nid = "{id_}"\npattern = "{pattern}"\nplatforms = ["cpu", "cuda", "rocm"]\n'
            f'action = "{action}"\nreason = "known"\ntracking = "https://example.invalid/{id_}"\n'
            f"expires = 2099-12-31\n")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def port(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "porting", *argv], cwd=cwd, capture_output=True, text=True)


def test_user_pack_and_exemptions_run_with_the_primary_packs(tmp_path):
    # An ini file in the packs' parent and a conftest.py above it (a venv inside a project)
    # do not change the run.
    write(tmp_path / "conftest.py", "raise RuntimeError('a conftest above the packs was imported')\n")
    tmp_path = tmp_path / "proj"
    write(tmp_path / "pytest.ini", "[pytest]\naddopts = --no-such-option\n")
    # A process the pack starts elsewhere imports the pack's modules (pickling by reference).
    write(tmp_path / "test_matrix" / "base" / "helper.py", "VALUE = 42\n")
    write(tmp_path / "test_matrix" / "base" / "test_base.py",
          "import subprocess, sys\n\ndef test_base():\n"
          "    code = 'import test_matrix.base.helper as h; assert h.VALUE == 42'\n"
          "    subprocess.run([sys.executable, '-c', code], cwd='/', check=True)\n")
    write(tmp_path / "mine" / "test_mine.py", PASS_FAIL)
    write(tmp_path / "mine" / "exemptions.toml", exemption("MINE-1", "*mine/test_mine.py::test_broken"))
    write(tmp_path / "port.toml", '[matrix]\npacks = ["mine"]\n')
    proc = port(tmp_path, "matrix", "--matrix-dir", "test_matrix", "-n", "0", "--junit", "out", "--run-id", "u1")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # test_broken is a (strict) xfail, not a failure
    junit = (tmp_path / "out" / "matrix-u1-shard1of1.xml").read_text()
    assert junit.count("<testcase") == 3 and "test_base" in junit and "test_ok" in junit
    assert "MINE-1" in junit

    # Without the pack's registry, the same failure fails the run.
    (tmp_path / "mine" / "exemptions.toml").unlink()
    proc = port(tmp_path, "matrix", "--matrix-dir", "test_matrix", "-n", "0", "--junit", "out2")
    assert proc.returncode == 1 and "has failures" in proc.stderr

    # A user registry by option does the same; a missing one is one line naming it.
    write(tmp_path / "extra.toml", exemption("MINE-2", "*::test_broken", action="skip"))
    proc = port(tmp_path, "matrix", "--matrix-dir", "test_matrix", "-n", "0", "--junit", "out3",
                "--exemptions", "extra.toml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = port(tmp_path, "matrix", "--matrix-dir", "test_matrix", "--exemptions", "nope.toml")
    assert proc.returncode == 2 and "nope.toml: no such file" in proc.stderr and "Traceback" not in proc.stderr


def test_registry_files_order_and_duplicate_ids(tmp_path):
    user = write(tmp_path / "user.toml", exemption("MX-001", "*::x"))
    config = load_config(cli={"matrix.exemptions": [str(user)]}, env={}, project_dir=tmp_path)
    files = ex.registry_files(config)
    assert files == [assets.exemptions_file().resolve(), user.resolve()]
    with pytest.raises(ConfigError, match="'MX-001' is already used in"):
        ex.load_all(files)  # the shipped registry has MX-001: ids stay unique across files
    write(user, exemption("USER-1", "*::x"))
    merged = ex.load_all(files)
    assert [e.id for e in merged.exemptions][-1] == "USER-1"
    assert len(merged.exemptions) == len(ex.load(assets.exemptions_file()).exemptions) + 1


def test_extra_overrides_replace_shipped_entries_and_add_names(tmp_path):
    shipped = build_table()
    user = write(tmp_path / "mine.toml", '[[alias]]\ncuda = "cudaMyVendorThing"\nhip = "hipMallocAsync"\n'
                 'kind = "function"\nreason = "our fork"\nsource = "https://example.invalid"\n\n'
                 '[[alias]]\ncuda = "cudaMalloc"\nhip = "hipMallocManaged"\nkind = "function"\n'
                 'reason = "ours"\nsource = "https://example.invalid"\n')
    table = build_table(extra_overrides=[user])
    assert "cudaMyVendorThing" not in shipped and table.entries["cudaMyVendorThing"].hip == "hipMallocAsync"
    assert shipped.entries["cudaMalloc"].hip == "hipMalloc"
    assert table.entries["cudaMalloc"].hip == "hipMallocManaged"
    assert str(user) in table.overrides_file

    # The same through config and the command line.
    write(tmp_path / "port.toml", f'[aliases]\nextra_overrides = ["{user}"]\n')
    proc = port(tmp_path, "aliases", "table", "cudaMyVendorThing")
    assert proc.returncode == 0 and "hipMallocAsync" in proc.stdout, proc.stderr
    # A user's target is held to the ROCm headers like a shipped one: an undeclared name is refused.
    bad = write(tmp_path / "bad.toml", '[[alias]]\ncuda = "cudaMyVendorThing"\nhip = "hipNoSuchThing"\n'
                'kind = "function"\nreason = "typo"\nsource = "https://example.invalid"\n')
    proc = port(tmp_path, "aliases", "--extra-overrides", str(bad), "table")
    assert proc.returncode == 2 and "cudaMyVendorThing -> hipNoSuchThing" in proc.stderr, proc.stderr
    proc = port(tmp_path, "aliases", "--extra-overrides", str(tmp_path / "missing.toml"), "table")
    assert proc.returncode == 2 and "missing.toml" in proc.stderr and "Traceback" not in proc.stderr


def test_matrix_without_its_extra_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "monarch" else real(name, *a))
    assert matrix_cmd.missing_modules(shipped_packs=True) == ["monarch"]
    assert matrix_cmd.missing_modules(shipped_packs=False) == []
