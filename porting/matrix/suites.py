"""Upstream test suites run under the matrix plugin (``port matrix --suite``, ``port certify --suite``).

A project's own tests are the natural reference for its port: Monarch's wheel ships its
suite as ``site-packages/tests/`` (exactly the code of the wheel), torchft's as
``torchft/*_test.py``. ``resolve`` finds a suite by name (through the installed
distribution's RECORD, never by guessing paths) or takes a directory; ``pytest_args`` and
``environment`` say how to run it so that the run looks like a matrix run (fingerprint,
per-test time-outs, JUnit with ``port.collected``, exemptions) and the set-up does not decide
the result:

* the suite's directory is on PYTHONPATH (Monarch's conftest imports ``crash_recovery_plugin``
  as a top-level module, and so do the procs it spawns);
* no bytecode or cache is written into site-packages (a run writes its output directory only);
* one hash seed for the run (PYTHONHASHSEED=0 unless set): xdist workers must collect the same
  test ids, and torchft names parametrized tests from sets of strings;
* pytest-asyncio in ``auto`` mode with function-scoped loops (what upstream's CI configures in
  its pyproject; the wheel ships no ini file);
* Monarch's listeners bind loopback: ``HYPERACTOR_MESH_ADMIN_ADDR`` is set to a loopback
  address unless the caller set it (a hostname that resolves only to loopback otherwise makes
  the admin server refuse to start, and a matrix run must not listen on other interfaces).
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

# A per-test limit (pytest-timeout, signal method: SIGALRM fails the test in the main thread
# and the process goes on; the thread method ends the whole process with os._exit(1), which
# under xdist kills the worker: the measured Monarch run lost workers that way on tests whose
# own 10 s limit the loaded machine missed, e.g. test_python_actors.py::test_choose; Monarch
# blocks in signal-safe waits, so a hung call still gets its report),
# for a directory suite and torchft (its integration tests train for a minute under load).
DEFAULT_TIMEOUT_S = 300
# Monarch's tests are designed quick and mark their own longer limits (pytest.mark.timeout,
# 10 to 500 s, which override this): an unmarked test still running after two minutes is
# hung, and 300 s would spend five minutes of the 60-minute CI budget on each such test.
MONARCH_TIMEOUT_S = 120
# name -> (distribution, how its suite is laid out in the wheel)
KNOWN = {"monarch": "torchmonarch", "torchft": "torchft"}
# About how long a whole run takes with 2 xdist workers on a 2-core machine, the failed tests'
# run alone included (ci/test does not start a suite that cannot finish in the budget left).
# Measured 2026-12-07 on the shared 2-core host: Monarch 1,925 of 1,990 tests in 29 min at
# load average 4 to 9 (plus up to 30 failures again alone, ~10 s each); torchft 372 tests in
# 3 min 53 s at load 17 to 23.
ESTIMATE_S = {"monarch": 35 * 60, "torchft": 5 * 60}
PLUGINS_NEEDED = ("pytest_timeout", "pytest_asyncio")
LOOPBACK_ADMIN = "127.0.0.1:0"
# Test files that must not run at the same time as each other, per suite: the plugin's xdist
# scheduler sends each group to one worker (plugin.pytest_xdist_make_scheduler). torchft's
# integration tests bind fixed manager ports (Manager(port=19530 + replica_id) in both
# files): two workers running them at once fail with "Address already in use" (measured:
# 6 of the 10 failures of a -n 2 run), a set-up collision that says nothing about torchft.
SERIAL_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "torchft": {"torchft-fixed-ports": ("torchft/local_sgd_integ_test.py", "torchft/manager_integ_test.py")},
}


@dataclass(frozen=True)
class Suite:
    name: str
    root: Path  # --rootdir: node ids (and so exemption patterns) are relative to it
    paths: tuple[Path, ...]  # what pytest collects
    python_path: tuple[Path, ...] = ()
    env: dict[str, str] = field(default_factory=dict)  # set unless the caller already set it
    ini: tuple[str, ...] = ()  # -o name=value
    registry: Path | None = None  # the suite's exemption registry shipped with rocm-port
    timeout_s: int = DEFAULT_TIMEOUT_S  # per-test limit unless --test-timeout says otherwise
    distribution: str = ""
    version: str = ""


def resolve(spec: str, registries: Path) -> Suite:
    """``monarch``, ``torchft`` or a directory of tests; InputError naming ``--suite`` otherwise."""
    if spec in KNOWN:
        return _installed(spec, KNOWN[spec], registries)
    path = Path(spec)
    if not path.is_dir():
        raise InputError(f"--suite {spec}: not a directory and not a known suite ({', '.join(sorted(KNOWN))})")
    root = path.resolve()
    registry = registries / f"{root.name}.toml"
    return Suite(name=root.name, root=root, paths=(root,), python_path=(root,),
                 registry=registry if registry.is_file() else None)


def _installed(name: str, dist_name: str, registries: Path) -> Suite:
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        raise InputError(f"--suite {name}: {dist_name} is not installed (pip install {dist_name})") from None
    files = [str(f) for f in (dist.files or [])]
    registry = registries / f"{name}.toml"
    reg = registry if registry.is_file() else None
    site = Path(str(dist.locate_file(""))).resolve()
    if name == "monarch":
        if "tests/conftest.py" not in files:
            raise InputError(f"--suite monarch: {dist_name} {dist.version} ships no tests/ (a build without its suite)")
        tests = site / "tests"
        return Suite(name=name, root=site, paths=(tests,), python_path=(tests,),
                     env={"HYPERACTOR_MESH_ADMIN_ADDR": LOOPBACK_ADMIN},
                     ini=("asyncio_mode=auto", "asyncio_default_fixture_loop_scope=function"),
                     registry=reg, distribution=dist_name, version=dist.version,
                     timeout_s=MONARCH_TIMEOUT_S)
    tests_ft = sorted(site / f for f in files if f.startswith("torchft/") and f.endswith("_test.py"))
    if not tests_ft:
        raise InputError(f"--suite torchft: {dist_name} {dist.version} ships no torchft/*_test.py")
    return Suite(name=name, root=site, paths=tuple(tests_ft), registry=reg, distribution=dist_name,
                 version=dist.version)


def missing_plugins() -> list[str]:
    import importlib.util

    return [m for m in PLUGINS_NEEDED if importlib.util.find_spec(m) is None]


def pytest_args(suite: Suite, timeout_s: int) -> list[str]:
    """The arguments that replace the packs' paths and rootdir in ``port matrix``'s command."""
    out = [*map(str, suite.paths), f"--rootdir={suite.root}", f"--confcutdir={suite.root}",
           f"--timeout={timeout_s}", "--timeout-method=signal", f"--port-suite={suite.name}"]
    for item in suite.ini:
        out += ["-o", item]
    for group, files in SERIAL_GROUPS.get(suite.name, {}).items():
        out += [f"--port-serial={group}={f}" for f in files]
    return out


def environment(suite: Suite, env: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """What to add to the environment of the run (xdist workers and the procs tests spawn
    inherit it); a variable the caller set is kept."""
    out = {k: v for k, v in suite.env.items() if k not in env}
    if suite.python_path:
        old = env.get("PYTHONPATH")
        out["PYTHONPATH"] = os.pathsep.join([*map(str, suite.python_path), *([old] if old else [])])
    out["PYTHONDONTWRITEBYTECODE"] = "1"
    # xdist workers must collect the same ids in the same order; torchft builds test names
    # from sets of strings, whose order follows the per-process hash seed.
    if "PYTHONHASHSEED" not in env:
        out["PYTHONHASHSEED"] = "0"
    return out
