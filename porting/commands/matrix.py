"""`port matrix`: run the certification matrix (test_matrix/) under pytest-xdist, write JUnit."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from ..config import add_option_flag
from ..errors import InputError, ProblemsFound, UsageError

HELP = "run the certification matrix (actor, rdma, sharding, supervision) and write JUnit"
# What a matrix run imports beyond `pip install rocm-port`: the runner, and what the shipped
# packs and their helpers import (module names; the distributions are pyproject.toml's
# `matrix` extra).
RUNNER_MODULES = ("pytest", "xdist")
SUBJECT_MODULES = ("monarch", "psutil", "cloudpickle")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shard", metavar="I/N", default=None,
                        help="run shard I of N (1-based; deterministic, for clusters). Default: from the "
                             "scheduler (SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX "
                             "with PORT_SHARD_COUNT), else the whole matrix")
    parser.add_argument("--junit", metavar="DIR", default=None,
                        help="directory for the JUnit XML of this run (default: <out_dir>/junit)")
    parser.add_argument("-n", "--workers", metavar="N", default=None,
                        help="pytest-xdist workers: a number, 'auto' or 0 for none (default: matrix.workers)")
    parser.add_argument("--matrix-dir", metavar="DIR", default=None,
                        help="the matrix packs (default: the test_matrix/ shipped with rocm-port)")
    parser.add_argument("--suite", metavar="NAME|DIR", default=None,
                        help="run a project's own pytest suite instead of the packs: 'monarch' (the tests the "
                             "installed torchmonarch wheel ships), 'torchft' (torchft/*_test.py) or a directory")
    parser.add_argument("--test-timeout", metavar="S", type=int, default=None,
                        help=f"per-test time-out of a --suite run in seconds (default: the suite's, "
                             f"{_suite_timeout()} for monarch, else {_suite_timeout('')})")
    parser.add_argument("--rerun-failures", action="store_true",
                        help="with --suite: run each failed test again after the run, alone (a session of "
                             "its own) and one after another, until it passes or has failed twice so; exit 0 "
                             "when each passed once alone (flaky: the JUnit keeps the failure and records the "
                             "outcomes alone as the testcase property 'rerun')")
    add_option_flag(parser, "matrix.packs", "--pack")
    add_option_flag(parser, "matrix.exemptions", "--exemptions")
    parser.add_argument("--run-id", metavar="ID", default=None,
                        help="run id shared by the shards of one run (default: a new uuid)")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER,
                        help="further pytest arguments (after --), e.g. -- -k actor")


def _suite_timeout(name: str = "monarch") -> int:
    from ..matrix.suites import DEFAULT_TIMEOUT_S, MONARCH_TIMEOUT_S

    return MONARCH_TIMEOUT_S if name == "monarch" else DEFAULT_TIMEOUT_S


def suite_of(args: argparse.Namespace):
    """The upstream suite of ``--suite`` (porting.matrix.suites), or None."""
    from ..matrix.suites import resolve

    spec = getattr(args, "suite", None)
    return resolve(spec, packs_dir(args) / "suites") if spec else None


def packs_dir(args: argparse.Namespace) -> Path:
    """The primary packs: --matrix-dir, else the test_matrix/ shipped with the package."""
    from .. import assets

    return Path(args.matrix_dir) if args.matrix_dir else assets.matrix_dir()


def build_pytest_args(args: argparse.Namespace, config, junit_file: Path, run_id: str) -> list[str]:
    """The pytest command line `port matrix` runs (without the interpreter)."""
    from ..config import workers_value
    from ..matrix.exemptions import registry_files
    from ..matrix.selection import parse_shard

    extra = list(args.pytest_args or [])
    if extra and extra[0] == "--":
        extra = extra[1:]

    matrix_dir = packs_dir(args)
    if not matrix_dir.is_dir():
        raise InputError(f"--matrix-dir {matrix_dir}: matrix directory not found")
    packs = [Path(p) for p in config["matrix.packs"]]
    for pack in packs:
        if not pack.is_dir():
            raise InputError(f"matrix.packs: {pack}: pack directory not found")
    exemptions = [f"--port-exemptions={f}" for f in registry_files(config, matrix_dir)]
    workers = config["matrix.workers"]  # validated where it was read (file and key named)
    if args.workers is not None:
        workers = workers_value(args.workers)
        if workers is None:
            raise UsageError(f"--workers {args.workers!r}: expected a number, 'auto' or 0")
    # rootdir = the packs' parent, wherever they are installed: node ids (and so exemption
    # patterns and JUnit names) read test_matrix/... from a checkout and from a wheel alike.
    # No ini file (-c devnull) and no conftest.py above the packs: a pytest.ini, pyproject.toml
    # or conftest.py that happens to sit above site-packages (a venv inside a project) must not
    # change the run; every option the packs need is given here.
    root = matrix_dir.resolve().parent
    suite = suite_of(args)
    if suite is None:
        subject = [str(matrix_dir), *map(str, packs), f"--rootdir={root}", f"--confcutdir={root}"]
    else:
        extra = [_in_suite(suite, a) for a in extra]
        if any(a.startswith(str(suite.root)) for a in extra):  # a subset: those files/node ids only
            suite = dataclasses.replace(suite, paths=())
        subject = _suite_subject(args, suite, config)
        exemptions = [f"--port-exemptions={f}" for f in _suite_registries(suite, config)]
    out = [*subject, "--port-matrix", f"--junitxml={junit_file}",
           f"--port-run-id={run_id}", "-c", os.devnull,
           *exemptions, "-p", "no:cacheprovider",
           "-o", "junit_family=xunit2", "-q", "-rfEs"]
    if suite is None:  # an upstream suite keeps its own (prepend) mode: its procs import test modules by name
        out.append("--import-mode=importlib")
    config_file = getattr(args, "config", None)
    if not config_file and suite is not None:
        # a suite runs in its own working directory: the project's port.toml / pyproject.toml
        # is the one of the caller's directory, as for load_config above
        from ..config import find_config_file

        found = find_config_file(os.getcwd())
        config_file = found[0] if found else None
    if config_file:
        out.append(f"--port-config={Path(config_file).resolve()}")  # detection in the plugin uses it too
    if workers != "0":
        out += ["-n", workers, "--max-worker-restart=4"]
    if args.shard:
        parse_shard(args.shard)  # UsageError on a bad value, before pytest starts
        out.append(f"--port-shard={args.shard}")
    return out + extra


def _write_evidence(junit_file: Path, signing_key: str | None) -> None:
    """The evidence manifest beside the JUnit (porting.provenance): its sha256 and the run's
    port.* properties as written, signed when matrix.signing_key is set."""
    from ..junit_contract import run_fields
    from ..provenance import manifest_path, write_manifest
    from ..report.junit_reader import read_run

    info = read_run(junit_file).info
    props = {name: str(getattr(info, attr)) for name, attr in run_fields().items() if getattr(info, attr)}
    write_manifest(junit_file, props, signing_key)
    print(f"port matrix: evidence manifest {manifest_path(junit_file)}"
          f"{' (signed)' if signing_key else ' (unsigned: no matrix.signing_key)'}", flush=True)


def _suite_subject(args: argparse.Namespace, suite, config) -> list[str]:
    from ..matrix.suites import missing_plugins
    from ..matrix.suites import pytest_args as suite_args

    missing = missing_plugins()
    if missing:
        raise UsageError(f"--suite {args.suite} needs pytest-timeout and pytest-asyncio: pip install "
                         f"'rocm-port[suites]' (not importable: {', '.join(missing)})")
    timeout = args.test_timeout if getattr(args, "test_timeout", None) is not None else suite.timeout_s
    if timeout <= 0:
        raise UsageError(f"--test-timeout {timeout}: expected a positive number of seconds")
    out = suite_args(suite, timeout)
    for disabled in sorted(packs_dir(args).joinpath("suites").glob(f"{suite.name}.disabled")):
        out.append(f"--port-disabled={disabled.resolve()}")
    return out


def _in_suite(suite, arg: str) -> str:
    """A test path given relative to the suite's root (``tests/test_x.py::test_y``, as its node
    ids read) or to the current directory made absolute, so a subset of a suite runs from any
    directory; other arguments as they are."""
    if arg.startswith("-"):
        return arg
    path = arg.split("::", 1)[0]
    if (suite.root / path).exists():
        return str(suite.root / arg)
    # the suite runs in its own working directory (_working_directory): a path given relative
    # to the caller's must still name the same file
    return str(Path(path).resolve()) + arg[len(path):] if path and Path(path).exists() else arg


def _suite_registries(suite, config) -> list[Path]:
    """A suite's own registry (test_matrix/suites/<name>.toml), then the user's files."""
    user = [Path(p) for p in config["matrix.exemptions"]]
    for path in user:
        if not path.is_file():
            raise InputError(f"matrix.exemptions: {path}: no such file")
    return [p.resolve() for p in ([suite.registry] if suite.registry else []) + user]


def junit_path(directory: Path, run_id: str, shard: str | None) -> Path:
    """The JUnit file of this run and shard; a bad ``shard`` is a UsageError."""
    from ..matrix.selection import parse_shard

    index, total = parse_shard(shard) if shard else (1, 1)
    return directory / f"matrix-{run_id[:12]}-shard{index}of{total}.xml"


def missing_modules(shipped_packs: bool) -> list[str]:
    import importlib.util

    names = RUNNER_MODULES + (SUBJECT_MODULES if shipped_packs else ())
    return [name for name in names if importlib.util.find_spec(name) is None]


def _environment_of_the_run(args: argparse.Namespace) -> None:
    """What xdist workers and the procs the packs spawn inherit.

    * The packs' parent on PYTHONPATH: a pack's classes pickled by reference to a proc
      (``test_matrix.actor.test_payloads.Colour``) must import there whatever the current
      directory is (from a checkout's root it worked only because ``python -m`` puts the cwd
      on sys.path; from an installed wheel, never).
    * Running the packs of an installed wheel must not write pytest's rewritten .pyc files
      into site-packages (a run writes only its output directory)."""
    from .. import assets

    suite = suite_of(args)
    if suite is not None:
        from ..matrix.suites import environment

        os.environ.update(environment(suite, os.environ))
        sys.dont_write_bytecode = True
        return
    root = str(packs_dir(args).resolve().parent)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = root + (os.pathsep + old if old else "")
    if args.matrix_dir is None and not assets.is_checkout():
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        sys.dont_write_bytecode = True


def _shard_from_scheduler(args: argparse.Namespace):
    """Without --shard, a Slurm array task or a Kubernetes Indexed Job pod runs its own shard;
    say which variables decided it (sets ``args.shard``)."""
    from ..matrix.scheduler import shard_from_env

    if args.shard:
        print(f"port matrix: shard {args.shard} (from --shard)", flush=True)
        return None
    scheduled = shard_from_env(os.environ)
    if scheduled is None:
        return None
    if scheduled.run_id is None and not (args.run_id or os.environ.get("PORT_MATRIX_RUN_ID")):
        raise UsageError(f"shard {scheduled.spec} from {scheduled.source}, but nothing ties the shards of this "
                         f"run together: pass --run-id or set PORT_MATRIX_RUN_ID (ci/k8s/ sets it from the Job)")
    args.shard = scheduled.spec
    print(f"port matrix: shard {scheduled.spec} (from {scheduled.source})", flush=True)
    return scheduled


def _run_pytest(args: argparse.Namespace, config, junit_file: Path, run_id: str) -> tuple[int, bool]:
    """pytest.main on the packs; (exit code, whether the JUnit was published).

    pytest writes its JUnit with a plain open() that follows symlinks and can leave half a
    file; it writes into a private staging directory instead, and the finished file (also the
    partial one of an interrupted run) is published into the JUnit directory through
    ``OutputDir``: atomically, with the umask's mode, never through a symlink."""
    import pytest

    from ..matrix import procs
    from ..matrix.rerun import Outcomes
    from ..paths import OutputDir, PathRefused

    out = OutputDir(junit_file.parent)
    try:
        out.path(junit_file.name)
    except PathRefused as exc:
        raise UsageError(f"--junit {junit_file.parent}: {exc.why}") from None
    with tempfile.TemporaryDirectory(prefix="port-matrix-junit-") as staging:
        staged = Path(staging) / junit_file.name
        pytest_args = build_pytest_args(args, config, staged, run_id)
        _environment_of_the_run(args)
        print(f"port matrix: pytest {' '.join(pytest_args)}", flush=True)
        outcomes = Outcomes()
        with procs.reaped(), _working_directory(args, out, junit_file):
            code = int(pytest.main(pytest_args, plugins=[outcomes]))
            if getattr(args, "rerun_failures", False) and code == pytest.ExitCode.TESTS_FAILED and staged.is_file():
                code = _rerun_alone(args, config, outcomes.failed(), staged, run_id)
        if not staged.is_file():
            return code, False
        out.write_bytes(junit_file.name, staged.read_bytes())
        return code, True


def _rerun_alone(args: argparse.Namespace, config, failed: list[str], staged: Path, run_id: str) -> int:
    """The failed tests of a suite run, again, each alone: its own pytest session on one xdist
    worker, one after another, up to ``rerun.ATTEMPTS`` times until it passes; the outcomes are
    added to the run's JUnit (porting.matrix.rerun). 0 when each passed once alone."""
    import pytest

    from ..matrix import rerun

    reason = rerun.why_not(failed, rerun.is_complete(staged))
    if reason is not None:
        print(f"port matrix: the failed tests are not run again: {reason}", flush=True)
        return int(pytest.ExitCode.TESTS_FAILED)
    print(f"port matrix: running the {len(failed)} failed test(s) again, each alone, one after another "
          f"(at most {rerun.ATTEMPTS} times each)", flush=True)
    result: dict[str, list[str]] = {}
    for index, nodeid in enumerate(failed):
        tries = result[nodeid] = []
        while len(tries) < rerun.ATTEMPTS and not rerun.passed_alone(tries):
            tries.append(_run_alone(args, config, nodeid, staged, f"{run_id}-rerun{index}.{len(tries)}"))
    rerun.annotate(staged, result)
    for nodeid, tries in result.items():
        print(f"port matrix: {rerun.describe(tries)}: {nodeid}", flush=True)
    return 0 if all(rerun.passed_alone(t) for t in result.values()) else int(pytest.ExitCode.TESTS_FAILED)


def _run_alone(args: argparse.Namespace, config, nodeid: str, staged: Path, run_id: str) -> str:
    """One test in a pytest session of its own (a fresh worker process); its outcome."""
    import pytest

    from ..matrix import rerun

    again = argparse.Namespace(**{**vars(args), "pytest_args": [nodeid], "workers": "1", "shard": None})
    outcomes = rerun.Outcomes()
    pytest.main(build_pytest_args(again, config, staged.with_name(f"rerun-{staged.name}"), run_id),
                plugins=[outcomes])
    return outcomes.seen.get(nodeid, "not run")


@contextlib.contextmanager
def _working_directory(args: argparse.Namespace, out, junit_file: Path) -> Iterator[None]:
    """An upstream suite runs with its working directory in the output directory
    (``<junit stem>.work/``): Monarch writes ``.monarch/`` (job state, logs) into the current
    directory, and a run writes nothing outside its output directory. The packs keep the
    caller's directory."""
    if suite_of(args) is None:
        yield
        return
    from ..junit_contract import WORK_SUFFIX
    from ..paths import PathRefused

    try:
        work = out.subdir(junit_file.with_suffix(WORK_SUFFIX).name)
    except PathRefused as exc:
        raise UsageError(f"--junit {junit_file.parent}: {exc.why}") from None
    before = os.getcwd()
    os.chdir(work)
    print(f"port matrix: working directory of the suite: {work}", flush=True)
    try:
        yield
    finally:
        os.chdir(before)


def run(args: argparse.Namespace) -> int:
    missing = missing_modules(shipped_packs=args.matrix_dir is None and not getattr(args, "suite", None))
    if missing:
        raise UsageError(f"port matrix needs the certification subjects: pip install 'rocm-port[matrix]' "
                         f"(not importable: {', '.join(missing)})")
    import pytest

    from ..config import load_config

    if getattr(args, "rerun_failures", False) and not getattr(args, "suite", None):
        raise UsageError("--rerun-failures: only with --suite (the packs' failures are not run again)")
    config = load_config(cli={"matrix.packs": args.packs, "matrix.exemptions": args.exemptions},
                         env=os.environ, config_file=args.config)
    scheduled = _shard_from_scheduler(args)
    run_id = (args.run_id or os.environ.get("PORT_MATRIX_RUN_ID") or (scheduled and scheduled.run_id)
              or uuid.uuid4().hex)
    junit_dir = Path(args.junit) if args.junit else Path(config["out_dir"]) / "junit"
    junit_file = junit_path(junit_dir, run_id, args.shard)
    from ..outlock import locked

    # two runs of one run id and shard into one directory would overwrite each other's evidence
    with locked(junit_dir, f"port matrix run {run_id} shard {args.shard or '1/1'}", name=f".{junit_file.name}.lock"):
        code, written = _run_pytest(args, config, junit_file, run_id)
        if written:
            _write_evidence(junit_file, config["matrix.signing_key"] or None)
    print(f"port matrix: JUnit {'written to ' + str(junit_file) if written else 'NOT written'}"
          f" (run {run_id}, pytest exit {code})", flush=True)
    if code == 0:
        return 0
    if code == pytest.ExitCode.INTERRUPTED:
        raise ProblemsFound(f"matrix run {run_id} interrupted; partial results in {junit_file}")
    if code == pytest.ExitCode.TESTS_FAILED:
        raise ProblemsFound(f"matrix run {run_id} has failures; see {junit_file}")
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        raise ProblemsFound(f"matrix run {run_id}: no tests collected (check --shard and -k)")
    if code == pytest.ExitCode.USAGE_ERROR:
        raise UsageError("pytest stopped on a usage error (the lines above: arguments, shard, exemption "
                         "registry or detection config; the pytest command is printed first)")
    raise ProblemsFound(f"matrix run {run_id}: pytest ended with exit code {code} (internal error)")
