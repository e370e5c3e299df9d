"""porting.assets: one locator for native/, hip_aliases/, test_matrix/, cmake/ and the schemas,
the same for a checkout and for an installed copy of the package (``porting/_assets/``)."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import porting
from porting import assets
from porting.commands import matrix as matrix_cmd
from porting.config import load_config

CHECKOUT = Path(porting.__file__).resolve().parents[1]

LOCATE = ("import json, porting.assets as a; print(json.dumps({'root': str(a.root()), 'native': str(a.native_dir()), "
          "'include': str(a.aliases_include()), 'checkout': a.is_checkout(), 'matrix': str(a.matrix_dir())}))")


def test_checkout_layout_is_the_repository_root():
    assert assets.root() == CHECKOUT and assets.is_checkout()
    assert (assets.native_dir() / "include" / "port_native.h").is_file()
    assert (assets.aliases_include() / "hip_aliases" / "gpu_runtime.h").is_file()
    assert assets.overrides_file().is_file() and assets.exemptions_file().is_file()
    assert (assets.rust_crate() / "Cargo.toml").is_file()
    assert json.loads(assets.schema("detect-1").read_text())["$schema"]
    assert json.loads(assets.schema("parity").read_text())
    with pytest.raises(assets.AssetError, match="unknown"):
        assets.schema("nope")


def _installed_copy(tmp_path: Path, with_assets: bool) -> Path:
    """A site directory holding a copy of the package the way a wheel lays it out."""
    site = tmp_path / "site"
    shutil.copytree(CHECKOUT / "porting", site / "porting", ignore=shutil.ignore_patterns("__pycache__"))
    if with_assets:
        for name in assets.ASSET_DIRS:
            if (CHECKOUT / name).is_dir():
                shutil.copytree(CHECKOUT / name, site / "porting" / assets.PACKAGED / name,
                                ignore=shutil.ignore_patterns("__pycache__", "target"))
    return site


def _run(site: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site), "HOME": str(cwd)}
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_installed_copy_finds_its_packaged_assets_from_any_directory(tmp_path):
    site = _installed_copy(tmp_path, with_assets=True)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "native").mkdir(parents=True)  # a user's own native/ in the cwd must not be taken
    proc = _run(site, elsewhere, "-c", LOCATE)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    packaged = site / "porting" / assets.PACKAGED
    assert found == {"root": str(packaged), "native": str(packaged / "native"),
                     "include": str(packaged / "hip_aliases" / "include"), "checkout": False,
                     "matrix": str(packaged / "test_matrix")}
    proc = _run(site, elsewhere, "-m", "porting", "aliases", "--include-dir")
    assert proc.returncode == 0 and proc.stdout.strip() == str(packaged / "hip_aliases" / "include"), proc.stderr


def test_installed_copy_without_assets_is_one_line_error(tmp_path):
    site = _installed_copy(tmp_path, with_assets=False)
    proc = _run(site, tmp_path, "-m", "porting", "aliases", "--include-dir")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "lacks its assets" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_generate_refuses_to_write_into_an_installed_copy(tmp_path):
    site = _installed_copy(tmp_path, with_assets=True)
    proc = _run(site, tmp_path, "-m", "porting", "aliases", "generate")
    assert proc.returncode == 2 and "--root" in proc.stderr and "Traceback" not in proc.stderr


def test_matrix_defaults_to_the_shipped_packs_with_their_parent_as_rootdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no test_matrix/ here: the shipped one is used
    args = argparse.Namespace(shard=None, junit=None, workers="0", matrix_dir=None, run_id=None,
                              pytest_args=[], config=None)
    out = matrix_cmd.build_pytest_args(args, load_config(env={}, project_dir=tmp_path), tmp_path / "j.xml", "r")
    assert out[0] == str(assets.matrix_dir())
    assert f"--rootdir={assets.root()}" in out
    assert f"--port-exemptions={assets.exemptions_file()}" in out


def test_emulate_runtime_names_the_file_an_installation_lacks(tmp_path, monkeypatch):
    # a copy of the runtime without one of the translation units build.py links: a one-line
    # error naming it, not an undefined-symbol failure of every program's link
    runtime = tmp_path / assets.EMULATE_RUNTIME
    shutil.copytree(assets.emulate_runtime_dir(), runtime)
    missing = assets.EMULATE_RUNTIME_SOURCES[-1]
    (runtime / missing).unlink()
    monkeypatch.setattr(assets, "package_dir", lambda: tmp_path)
    with pytest.raises(assets.AssetError, match=missing):
        assets.emulate_runtime_dir()
    (runtime / missing).write_text("")
    assert assets.emulate_runtime_dir() == runtime
