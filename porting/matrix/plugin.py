"""pytest plugin of the certification matrix (entry point ``pytest11: port_matrix``).

Loaded in every pytest run of the repository, it stays inert unless the matrix is being
run: ``--port-matrix`` (what ``port matrix`` passes) or test paths under ``test_matrix/``.
When active it

* registers the ``component(name)`` and ``requires(device=, min_rocm=, rdma=, world_size=)``
  markers and skips what this platform cannot run, with detection's reason;
* applies ``test_matrix/exemptions.toml`` (skip / strict xfail); an expired exemption fails
  the run, one that matches no test is reported;
* selects ``--port-shard I/N`` deterministically;
* writes the ``port.*`` fingerprint (docs/junit-properties.md) as JUnit testsuite
  properties from the controlling process (xdist workers do not write the JUnit);
* turns SIGTERM into an orderly stop so the JUnit of what ran is still written, marked
  incomplete; a crashed xdist worker also marks the run incomplete;
* fails the run if processes the run started are still alive at the end (and kills them);
  in an upstream suite's run (``--port-suite``) they are killed and reported, not a failure:
  the suite's own tests leave them (Monarch's ProcessJob hosts), its verdict is its tests'.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from ..errors import PortError
from ..junit_contract import COMPONENT, EXEMPTION, default_component
from . import conventions, procs
from . import exemptions as ex
from .facts import FACTS_ENV, Facts, detect_facts, facts_for_process, unmet_requirement
from .progress import Progress
from .scheduler import runner_properties
from .selection import parse_shard, select

MATRIX_DIR = "test_matrix"
EXIT_GRACE_S = 15.0
REPEAT_GRACE_S = 5.0  # a repeated SIGTERM/SIGINT within this is the same request


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("port-matrix", "rocm-port certification matrix")
    group.addoption("--port-matrix", action="store_true", default=False,
                    help="activate the certification-matrix plugin (implied by paths under test_matrix/)")
    group.addoption("--port-shard", default=None, metavar="I/N", help="run only shard I of N (1-based)")
    group.addoption("--port-exemptions", action="append", default=None, metavar="FILE",
                    help="exemption registry, repeatable: applied together "
                         "(default: test_matrix/exemptions.toml under rootdir)")
    group.addoption("--port-run-id", default=None, metavar="ID", help="run id shared by the shards of one run")
    group.addoption("--port-config", default=None, metavar="FILE",
                    help="port config file for detection (default: ./port.toml, else [tool.port] in pyproject.toml)")
    group.addoption("--port-suite", default=None, metavar="NAME",
                    help="an upstream suite is being run (port matrix --suite): read its own skip conventions "
                         "(oss_skip, DISABLED lists, device skips) as exemptions")
    group.addoption("--port-disabled", action="append", default=None, metavar="FILE",
                    help="a project's 'DISABLED <test>' list, repeatable (with --port-suite)")
    group.addoption("--port-serial", action="append", default=None, metavar="GROUP=FILE",
                    help="a test file of the suite that runs on one xdist worker with the other files of "
                         "GROUP, repeatable")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "component(name): the matrix component a test certifies")
    config.addinivalue_line("markers", "rocm_device: a device case only a correct ROCm port passes")
    config.addinivalue_line("markers", "requires(device='any', min_rocm=None, rdma='any', world_size=None, why=None): "
                                       "skip unless this platform provides it (why: appended to the reason)")
    if _active(config):
        state = MatrixState(config)
        config.pluginmanager.register(state, "port_matrix_state")
        config.pluginmanager.register(_EarlyCollection(state), "port_matrix_early")
        state.start()


def _active(config: pytest.Config) -> bool:
    if config.getoption("port_matrix", False):
        return True
    for arg in config.args:
        path = Path(str(arg).split("::", 1)[0])
        try:
            parts = (path if path.is_absolute() else Path(config.invocation_params.dir) / path).resolve().parts
        except OSError:
            continue
        if MATRIX_DIR in parts:
            return True
    return False


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class MatrixState:
    """Everything the active plugin tracks; one per pytest process."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.worker = _is_worker(config)
        self.run_id = ""
        self.facts = Facts()
        self.registry = ex.Registry(path=None)
        self.today = dt.date.today()
        self.shard = (1, 1)
        self.interrupted: str | None = None
        self._interrupted_at = 0.0
        self.crashed: list[str] = []
        self.reported: set[str] = set()
        self.unmatched: dict[str, ex.Exemption] = {}
        self.unmatched_seen = False
        self._old_handlers: dict[int, Any] = {}
        self._handler_pid = 0  # the process whose signals the plugin handles (not a forked child)
        self._saved_env: dict[str, str | None] = {}  # the controller's, restored at the end
        self.final_properties: dict[str, str] = {}
        self.worker_gpus: list[tuple[str, ...]] = []  # controller: the GPUs of each xdist worker
        self.suite: str | None = None
        self.disabled: frozenset[str] = frozenset()
        self.conventions_used: set[str] = set()
        self.progress = Progress()
        self.faults: list[str] | None = None  # Monarch suite: unhandled faults not yet reported
        self._fault_hook: tuple[Any, Any] | None = None  # (module, Monarch's own hook)
        self.left_behind = ""  # an upstream suite's leftover processes (killed; not a failure)

    # ---- set-up -------------------------------------------------------------------------
    def start(self) -> None:
        config = self.config
        try:  # a bad shard, registry or config is one line from pytest, not an INTERNALERROR
            shard = config.getoption("port_shard")
            if shard:
                self.shard = parse_shard(shard)
            paths = config.getoption("port_exemptions") or [Path(config.rootpath) / MATRIX_DIR / "exemptions.toml"]
            self.registry = ex.load_all(paths)
            self.suite = config.getoption("port_suite")
            if self.suite:
                config.addinivalue_line("markers", "oss_skip: upstream: not run in its open-source CI")
                self.disabled = conventions.read_disabled(Path(p) for p in config.getoption("port_disabled") or ())
            # Workers get the controller's facts; a controller started with facts in the
            # environment (a parent matrix run, or tests/matrix/test_case_floor's synthetic
            # hosts) decides with them too, so the same collection holds on every machine.
            if self.worker or os.environ.get(FACTS_ENV):
                self.facts = facts_for_process(os.environ)
            else:
                self.facts = detect_facts(os.environ, config.getoption("port_config"))
        except PortError as exc:
            raise pytest.UsageError(str(exc)) from None
        if self.worker:
            self.run_id = os.environ.get(procs.TAG_ENV, "")
            self._take_assigned_gpus()
        else:
            self._schedule_workers()
            self.run_id = config.getoption("port_run_id") or os.environ.get("PORT_MATRIX_RUN_ID") or uuid.uuid4().hex
            # Before anything is spawned: workers and their children inherit both.
            self._saved_env = {k: os.environ.get(k) for k in (procs.TAG_ENV, FACTS_ENV)}
            os.environ[procs.TAG_ENV] = self.run_id
            os.environ[FACTS_ENV] = json.dumps(self.facts.to_json())
        self._install_signal_handlers()

    # ---- GPUs per xdist worker -----------------------------------------------------------
    def _schedule_workers(self) -> None:
        """On a GPU host, run only as many xdist workers as can each get disjoint GPUs for
        the largest rank pool (porting.matrix.devices), and deal the GPUs out."""
        tx = list(getattr(self.config.option, "tx", None) or [])
        if not tx or self.facts.gpu_count == 0:
            return
        from .devices import Visibility, assign, worker_count

        workers = worker_count(len(tx), self.facts.gpu_count)
        if workers < len(tx):
            self.config.option.tx = tx[:workers]
            self.config.option.numprocesses = workers
        vis = Visibility(self.facts.gpu_variable, tuple(self.facts.gpu_tokens), "")
        self.worker_gpus = assign(vis, workers)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """The files of a serial group (--port-serial GROUP=FILE) go to one worker, the other
        tests one by one as with ``--dist load``. (xdist's own ``loadgroup`` renames the items,
        which this pytest ignores, so it does not group.)"""
        groups = dict(reversed(spec.split("=", 1)) for spec in config.getoption("port_serial") or ())
        if not groups:
            return None
        from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

        class SerialGroups(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return groups.get(nodeid.split("::", 1)[0], nodeid)

        return SerialGroups(config, log)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist, before a worker starts: the GPUs it owns (read in _take_assigned_gpus)."""
        gpus = self.worker_gpus
        index = int(str(node.gateway.id).lstrip("gw") or 0)
        if gpus:
            node.workerinput["port_gpus"] = list(gpus[index % len(gpus)])

    def _take_assigned_gpus(self) -> None:
        """In a worker, before torch or Monarch start: narrow this process (and everything
        it spawns) to the GPUs the controller assigned, and say so in the facts."""
        tokens = self.config.workerinput.get("port_gpus")  # type: ignore[attr-defined]
        if tokens is None or not self.facts.gpu_variable:
            return
        from .devices import Visibility, worker_env

        os.environ.update(worker_env(Visibility(self.facts.gpu_variable, (), ""), tokens))
        self.facts = self.facts.narrowed(list(tokens))
        os.environ[FACTS_ENV] = json.dumps(self.facts.to_json())

    def _install_signal_handlers(self) -> None:
        self._handler_pid = os.getpid()
        _forked_children_get_default_signals()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                self._old_handlers[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread
                pass

    def _on_signal(self, signum: int, frame: object) -> None:
        if os.getpid() != self._handler_pid:
            # A child forked by a test (multiprocessing's fork) inherits this handler (and,
            # under `port`, the CLI's beneath it): it gets the signal as a plain Python
            # process would (Monarch's test_no_hang_on_shutdown expects its child killed by
            # SIGTERM).
            _as_plain_process(signum)
            return
        name = signal.Signals(signum).name
        now = time.monotonic()
        if self.interrupted is None:
            self.interrupted, self._interrupted_at = name, now
            raise KeyboardInterrupt(f"{name} received")
        # `timeout` signals the child and then its whole process group, so the same signal
        # arrives twice at once: ignore repeats for a moment; a later one ends us at once.
        if now - self._interrupted_at < REPEAT_GRACE_S:
            return
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def pytest_unconfigure(self) -> None:
        if self._fault_hook is not None:
            module, original = self._fault_hook
            module.unhandled_fault_hook = original
        for key, value in self._saved_env.items():  # in-process callers (port matrix)
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        for sig, old in self._old_handlers.items():
            try:
                signal.signal(sig, old)
            except (ValueError, TypeError):
                pass

    # ---- collection ---------------------------------------------------------------------
    def note_unmatched(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Before -k/-m deselection: which exemptions match nothing that was collected."""
        self.unmatched = {e.id: e for e in self.registry.unmatched(item.nodeid for item in items)}
        self.unmatched_seen = True
        if self.worker:
            config.workeroutput["port_unmatched"] = sorted(self.unmatched)  # type: ignore[attr-defined]

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        platform = self.facts.platform
        ids = [item.nodeid for item in items]
        if self.shard != (1, 1):
            keep = set(select(ids, *self.shard))
            deselected = [i for i in items if i.nodeid not in keep]
            items[:] = [i for i in items if i.nodeid in keep]
            if deselected:
                config.hook.pytest_deselected(items=deselected)
        for item in items:
            item.user_properties.append((COMPONENT, _component(item)))
            reason = self._unmet(item)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
            exemption = self.registry.match(item.nodeid, platform, self.today, self.facts.rdma_backend)
            if exemption is not None:
                item.user_properties.append((EXEMPTION, exemption.id))
                why = (f"exemption {exemption.id}: {exemption.reason} "
                       f"({exemption.tracking}; expires {exemption.expires.isoformat()})")
                if exemption.action == "skip":
                    item.add_marker(pytest.mark.skip(reason=why))
                else:
                    item.add_marker(pytest.mark.xfail(reason=why, strict=True))
            elif self.suite:
                self._apply_convention(item)

    def _apply_convention(self, item: pytest.Item) -> None:
        """An upstream suite's own skip (oss_skip, DISABLED list, device skip) as an exemption."""
        found = conventions.match(item, self.disabled)
        if found is None:
            return
        conv, words = found
        self.conventions_used.add(conv.id)
        item.user_properties.append((EXEMPTION, conv.id))
        detail = f": {words}" if words else ""
        item.add_marker(pytest.mark.skip(reason=f"exemption {conv.id}: {conv.reason}{detail} "
                                                f"({conv.tracking}; expires {conv.expires.isoformat()})"))

    def _unmet(self, item: pytest.Item) -> str | None:
        """All ``requires`` marks of an item taken together (a parameter's mark saying
        device='gpu' and another's saying world_size=4 make one requirement); the closest
        mark wins where two set the same key."""
        merged: dict[str, Any] = {}
        for mark in item.iter_markers("requires"):
            if mark.args:
                raise pytest.UsageError(f"{item.nodeid}: requires() takes keyword arguments only")
            for key, value in mark.kwargs.items():
                merged.setdefault(key, value)
        if not merged:
            return None
        try:
            return unmet_requirement(self.facts, **merged)
        except (TypeError, ValueError) as exc:
            raise pytest.UsageError(f"{item.nodeid}: bad requires marker: {exc}") from None

    # ---- Monarch's unhandled faults in its own suite ------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Monarch's default unhandled-fault hook ends the client's main thread with
        KeyboardInterrupt: in a pytest process that stops the xdist worker (the fourth time,
        the whole run) instead of failing one test. In a Monarch suite run the fault is
        recorded and fails the test it happened in; a test that sets its own hook keeps it."""
        if self.suite != "monarch" or self._fault_hook is not None:
            return
        import monarch.actor

        self.faults = []
        faults = self.faults
        self._fault_hook = (monarch.actor, monarch.actor.unhandled_fault_hook)

        def record(failure: object) -> None:
            faults.append(str(failure))

        monarch.actor.unhandled_fault_hook = record

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        report = yield
        if self.faults:
            text = "\n".join(self.faults)
            self.faults.clear()
            report.outcome = "failed"
            report.longrepr = (f"Monarch's unhandled-fault hook was called during {report.when} (its default "
                               f"ends the client with KeyboardInterrupt; the suite run fails the test instead):\n"
                               f"{text}\n{report.longrepr or ''}")
        return report

    # ---- progress -----------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.reported.add(report.nodeid)
            if not self.worker:
                self._progress(report)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not self.worker:
            self.progress.start(len(session.items), time.monotonic())

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.progress.total:
            self.progress.start(len(ids), time.monotonic())

    def _progress(self, report: pytest.TestReport) -> None:
        outcome = "skipped" if report.skipped else "failed" if report.failed else "passed"
        line = self.progress.add(report.nodeid, outcome, time.monotonic())
        # A failure is named when it happens: in an hour-long suite run the summary at the
        # end is too late to start looking at it.
        lines = ([f"port matrix: failed {report.nodeid} ({report.when}, {report.duration:.1f}s)"]
                 if outcome == "failed" else []) + ([line] if line else [])
        tr = self.config.pluginmanager.getplugin("terminalreporter")
        if tr is not None and lines:
            tr.write("\n")  # after the row of dots xdist is writing
            for text in lines:
                tr.write_line(text)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        out = getattr(node, "workeroutput", None) or {}
        if "port_unmatched" in out:
            names = set(out["port_unmatched"])
            if not self.unmatched_seen:
                self.unmatched = {e.id: e for e in self.registry.exemptions if e.id in names}
                self.unmatched_seen = True
            else:
                self.unmatched = {k: v for k, v in self.unmatched.items() if k in names}
        if error is not None:
            self.crashed.append(f"worker {node.gateway.id} went down: {error}")

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        self.crashed.append(f"a worker crashed while running {crashitem}")

    # ---- the end ------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.worker or self.config.option.collectonly:
            return
        failures: list[tuple[str, str]] = []
        for c in conventions.ALL:
            if self.suite and c.expires < self.today:
                failures.append((f"exemption {c.id} expired",
                                 f"upstream convention {c.id} ({c.tracking}) was to be reviewed by "
                                 f"{c.expires.isoformat()}; review the suite's skips and renew it"))
        for e in self.registry.exemptions:
            if e.expired(self.today):
                failures.append((f"exemption {e.id} expired",
                                 f"{self.registry.path}: exemption {e.id} ({e.pattern}) expired on "
                                 f"{e.expires.isoformat()}; renew it with a new date or fix the tests "
                                 f"({e.tracking})"))
        # Session-scoped fixtures own proc meshes and rank pools: tear them down first
        # (pytest would do it right after this hook; the second call is a no-op).
        dsession = self.config.pluginmanager.getplugin("dsession")
        if dsession is not None and getattr(dsession, "nodemanager", None) is not None:
            # xdist: stop the workers now (xdist would right after this hook), so that
            # what remains below is what they left behind.
            try:
                dsession.nodemanager.teardown_nodes()
            finally:
                dsession.nodemanager = None
        setupstate = getattr(session, "_setupstate", None)
        if setupstate is not None and dsession is None:
            try:
                setupstate.teardown_exact(None)
            except Exception as exc:  # reported by the check below if it leaves processes
                failures.append(("session teardown", f"session teardown raised {exc!r}"))
        grace = 0.5 if self.interrupted else EXIT_GRACE_S
        left = procs.wait_for_exit(self.run_id, grace)
        if left:
            procs.kill_all(left)
            listing = "\n".join(f"  pid {p.pid}: {p.cmdline}" for p in left)
            text = f"{len(left)} process(es) started by this run were still alive at the end (now killed):\n{listing}"
            if self.suite:
                # An upstream suite's own tests leave these (Monarch's test_host_mesh leaves
                # ProcessJob hosts running): killed and reported, but its verdict is its tests'.
                self.left_behind = text
            else:
                failures.append(("session-end process check", text))
        for name, text in failures:
            self._report_failure(session, name, text)
        if failures and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        self._write_properties(session)

    def _report_failure(self, session: pytest.Session, name: str, text: str) -> None:
        nodeid = f"{MATRIX_DIR}::port-matrix::{name}"
        report = pytest.TestReport(nodeid=nodeid, location=(MATRIX_DIR, None, name), keywords={},
                                   outcome="failed", longrepr=text, when="call",
                                   user_properties=[("component", "matrix")])
        self.config.hook.pytest_runtest_logreport(report=report)

    def completeness(self, collected: int) -> tuple[bool, str]:
        ran = len(self.reported)
        reasons: list[str] = []
        if self.interrupted:
            reasons.append(f"{self.interrupted} after {ran} of {collected} tests")
        reasons.extend(self.crashed)
        if not self.interrupted and ran < collected:
            reasons.append(f"only {ran} of {collected} collected tests reported a result")
        return (not reasons, "; ".join(reasons))

    def _write_properties(self, session: pytest.Session) -> None:
        from _pytest.junitxml import xml_key

        xml = self.config.stash.get(xml_key, None)
        collected = int(getattr(session, "testscollected", 0) or 0)
        complete, reason = self.completeness(collected)
        props = dict(self.facts.properties)
        props.update(runner_properties(os.environ))  # which scheduler job made this file
        props["port.run_id"] = self.run_id
        props["port.shard"] = f"{self.shard[0]}/{self.shard[1]}"
        props["port.complete"] = "true" if complete else "false"
        props["port.incomplete_reason"] = reason
        props["port.collected"] = str(collected)
        self.final_properties = props
        if xml is not None:
            for key, value in props.items():
                xml.add_global_property(key, value)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.worker or self.config.option.collectonly:
            return
        props = self.final_properties
        tr = terminalreporter
        tr.section("port matrix")
        tr.write_line(f"platform {props.get('port.platform', '?')} (path {props.get('port.path', '?')}), "
                      f"rdma {props.get('port.rdma_backend', '?')}, shard {props.get('port.shard', '?')}, "
                      f"run {self.run_id}")
        if props.get("port.complete") == "false":
            tr.write_line(f"INCOMPLETE: {props.get('port.incomplete_reason', '')}", red=True)
        if self.left_behind:
            tr.write_line(f"the suite's tests left {self.left_behind}", yellow=True)
        for e in sorted(self.unmatched.values(), key=lambda e: e.id):
            shown = e.patterns[0] + (f" (+{len(e.patterns) - 1} more)" if len(e.patterns) > 1 else "")
            tr.write_line(f"exemption {e.id} ({shown}) matches no collected test: remove it?", yellow=True)


_AT_FORK_REGISTERED = False
_PLAIN: dict[signal.Signals, Any] = {signal.SIGTERM: signal.SIG_DFL, signal.SIGHUP: signal.SIG_DFL,
                                     signal.SIGINT: signal.default_int_handler}
_MASKS: dict[int, Any] = {}  # forking thread -> its signal mask before the fork


def _forked_children_get_default_signals() -> None:
    """A child that a test forks (multiprocessing's fork, os.fork) gets SIGTERM, SIGHUP and
    SIGINT as a plain Python process would. Without this it inherits the run's Python-level
    handlers (the plugin's, and the CLI's beneath them under ``port``), which run only when the
    child's main thread next executes Python code: a child blocked in native code (Monarch's
    ``test_no_hang_on_shutdown`` signals its child while it imports torch and Monarch's Rust
    bindings) did not die within the test's 2 s. A handler the test itself installed before
    forking is left as it is.

    Resetting in the child alone leaves a window: a signal sent right after ``fork()`` returns
    in the parent (as that test does) can reach the child before its after-fork hooks run,
    where the inherited handler catches it and the reset then drops it (Python ignores a
    caught signal whose handler is by then the default). So the forking thread blocks the three
    signals for the fork; the child resets the handlers, then unblocks, and a signal that came
    in between is delivered with the default action."""
    global _AT_FORK_REGISTERED
    if not _AT_FORK_REGISTERED:
        os.register_at_fork(before=_block_for_fork, after_in_parent=_unblock_after_fork,
                            after_in_child=_default_signals_in_child)
        _AT_FORK_REGISTERED = True


def _block_for_fork() -> None:
    _MASKS[threading.get_ident()] = signal.pthread_sigmask(signal.SIG_BLOCK, _PLAIN)


def _unblock_after_fork() -> None:
    mask = _MASKS.pop(threading.get_ident(), None)
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _default_signals_in_child() -> None:
    # nothing is imported here (a fork can happen anywhere): the CLI's handler class is looked
    # up only if the CLI loaded it
    cli = sys.modules.get("porting.process_group")
    cli_handler = getattr(cli, "_Handler", None)
    for signum, plain in _PLAIN.items():
        handler = signal.getsignal(signum)
        ours = isinstance(getattr(handler, "__self__", None), MatrixState)
        if ours or (cli_handler is not None and isinstance(handler, cli_handler)):
            signal.signal(signum, plain)
    _unblock_after_fork()


def _as_plain_process(signum: int) -> None:
    """Python's own reaction to ``signum``: KeyboardInterrupt for SIGINT, else the default
    action (for SIGTERM: the process dies of the signal)."""
    if signum == signal.SIGINT:
        signal.signal(signum, signal.default_int_handler)
        raise KeyboardInterrupt
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


class _EarlyCollection:
    """Sees the collected items before -k/-m deselection (a separate object so it can run first)."""

    def __init__(self, state: MatrixState) -> None:
        self.state = state

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        self.state.note_unmatched(config, items)


def _component(item: pytest.Item) -> str:
    """The ``component`` marker, else the pack directory (porting.junit_contract)."""
    mark = item.get_closest_marker("component")
    if mark is not None and mark.args:
        return str(mark.args[0])
    return default_component(item.nodeid.split("::", 1)[0])
