"""`port detect` is the first thing a CI job and a build script call, on every build: its start-up
is mostly imports. These tests hold its import closure to what the probes need, so that a heavy
module cannot creep back in through a shared helper (it did: ``porting.config`` pulled in pathlib,
``porting.records`` typing and copy, ``porting.process_group`` subprocess). The entry point
(``porting.entry``) reads detect's command line itself: argparse (with gettext and locale) costs
as much as the interpreter's own start."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# Modules `port detect` must not import (besides what the interpreter itself loaded before it):
# each costs milliseconds at start-up, or belongs to another stage.
HEAVY = (
    "torch", "numpy", "pathlib", "typing", "dataclasses", "inspect", "copy", "tempfile", "shutil",
    "logging", "email", "importlib.metadata", "xml.etree.ElementTree", "junitparser", "tomllib",
    "asyncio", "concurrent.futures", "hashlib", "secrets", "ipaddress", "urllib.parse",
    "porting.atomic", "porting.hipify", "porting.audit", "porting.report", "porting.matrix",
    "porting.builder", "porting.certify", "porting.aliases",
    # the argparse command line and what it loads; the signal owner (installed per child instead)
    "argparse", "gettext", "locale", "porting.commands", "porting.commands.detect",
    "porting.process_group", "signal", "threading", "subprocess",
)

# Run `port detect` in a fresh interpreter and print, on stderr, the modules it added to those
# loaded at start-up (site, the venv's .pth hooks): that difference is detect's closure.
_PROBE = """
import sys
before = set(sys.modules)
import porting.entry
rc = porting.entry.main(sys.argv[1:])
sys.stderr.write("\\nMODULES " + " ".join(sorted(set(sys.modules) - before)) + "\\n")
sys.exit(rc)
"""

REAL_ENV = {k: v for k, v in os.environ.items() if not k.startswith("PORT_")}


def _closure(args: list[str], cwd, env=None, probe: str = _PROBE) -> tuple[set[str], str]:
    proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                          env=env or REAL_ENV, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:]), proc.stdout


def _modules_of(module: str) -> set[str]:
    code = f"import sys; before = set(sys.modules); import {module}; print(' '.join(set(sys.modules) - before))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=REAL_ENV, timeout=60)
    return set(proc.stdout.split())


@pytest.mark.parametrize("args", [["detect", "--json"], ["detect"]], ids=["json", "table"])
@pytest.mark.parametrize("entry", ["porting.entry", "porting.cli"])  # a script installed before entry.py
def test_detect_imports_no_heavy_module(tmp_path, args, entry):
    modules, out = _closure(args, tmp_path, probe=_PROBE.replace("porting.entry", entry))
    assert out.strip()  # it did run: a record or a table
    assert "porting.probe.rocm" in modules and "porting.plan" in modules  # every probe, then the plan
    heavy = sorted(m for m in modules if m in HEAVY)
    assert heavy == [], f"port detect now imports {heavy}"
    if entry == "porting.entry":
        assert "porting.cli" not in modules


def test_detect_in_a_project_with_sources_and_config(tmp_path):
    """Config from pyproject's [tool.port] and a source scan add only the TOML reader."""
    (tmp_path / "pyproject.toml").write_text('[tool.port]\nsources = ["src"]\nmin_rocm = "7.0"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {}\n")
    modules, out = _closure(["detect", "--json"], tmp_path)
    assert json.loads(out)["sources"] == {"hip": 0, "portable": 0, "cuda": 1}
    assert "tomllib" in modules  # the config was read, with the standard TOML reader ...
    toml_closure = _modules_of("tomllib")  # ... which brings its own (typing, datetime): allowed
    heavy = sorted(m for m in modules if m in HEAVY and m not in toml_closure)
    assert heavy == [], f"port detect now imports {heavy}"


def test_the_closure_check_sees_an_import(tmp_path):
    """The check itself: a module imported during the command shows up in the closure."""
    sitedir = tmp_path / "site"
    sitedir.mkdir()
    # a sitecustomize cannot be used (it runs before `before`); a PYTHONSTARTUP neither (-c): patch
    # the command through a wrapper module that imports pathlib when detect's run() is called
    (sitedir / "wrap_detect.py").write_text(
        "import porting.detection as d\n_run = d.run_detect\n"
        "def run(args):\n    import pathlib  # noqa: F401\n    return _run(args)\nd.run_detect = run\n")
    env = {**REAL_ENV, "PYTHONPATH": os.pathsep.join([str(sitedir), REAL_ENV.get("PYTHONPATH", "")])}
    code = _PROBE.replace("import porting.entry\n", "import porting.entry, wrap_detect\n")
    proc = subprocess.run([sys.executable, "-c", code, "detect", "--json"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    assert "pathlib" in line.split()
