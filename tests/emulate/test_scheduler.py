"""The scheduler's execution order, at 32 and 64 lanes, with and without the per-block loop.

A block starts as one loop over its threads on one stack; a thread that waits becomes a fiber
there and the threads after it continue on a new loop (emu_scheduler.cpp). The rules that fix
the order a program can observe (docs/emulate.md) are those of the plain fiber scheduler:
threads run in linear-id order (x fastest), each until it exits or waits; when none can run, the
pending warp collectives complete (the lanes waiting at one call site are the active ones), and
only if none was pending the barrier releases; then another pass in thread order. The expected
sequences below are written from those rules, not from the runtime; programs/runtime/
scheduler_order.cu prints what ran, in order. Each case runs with the per-block loop (default),
with EMU_NO_RUNNER=1 (every thread started on its own) and with the portable ucontext switch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PROGRAM = Path(__file__).parent / "programs" / "runtime" / "scheduler_order.cu"
VARIANTS = [("asm", {}), ("asm", {"EMU_NO_RUNNER": "1"}), ("ucontext", {})]


def plain(width: int) -> list[str]:
    out = []
    for b in range(4):
        for t in range(30):
            out.append(f"plain {b} {t} {t % 5} {t // 5 % 3} {t // 15}")
    return out


def some_wait(width: int) -> list[str]:
    out = []
    for b in range(3):
        waiters = [t for t in range(70) if b != 1 and t % 9 == 4]
        for t in range(70):  # pass 1: a waiter stops at the barrier, every other thread ends
            out.append(f"a {b} {t}")
            if t not in waiters:
                out.append(f"c {b} {t}")
        count = sum(t % 2 for t in waiters)
        for t in waiters:  # pass 2, after the release
            out += [f"b {b} {t} {count}", f"c {b} {t}"]
    return out


def collective(width: int) -> list[str]:
    live = [t for t in range(100) if t % 4 != 3]
    out = []
    for t in live:
        out.append(f"a {t}")
        if t % 4 == 0:
            out.append(f"e {t}")
    for t in live:  # the collectives first: per warp, the lanes at __activemask()
        if t % 4 == 1:
            same_warp = [u for u in live if u % 4 == 1 and u // width == t // width]
            out += [f"w {t} {len(same_warp)}", f"e {t}"]
    for t in live:  # then the barrier
        if t % 4 == 2:
            out += [f"s {t}", f"e {t}"]
    return out


def twice(width: int) -> list[str]:
    waiters = (0, 17, 39)
    out = []
    for t in range(40):
        out.append(f"a {t}")
        if t not in waiters:
            out.append(f"e {t}")
    out += [f"b {t}" for t in waiters]
    for t in waiters:
        out += [f"c {t} {t % 20} {t // 20}", f"e {t}"]
    return out


CASES = {"plain": plain, "some_wait": some_wait, "collective": collective, "twice": twice}


@pytest.fixture(scope="module")
def binaries(tmp_path_factory, emu_cache):
    from porting.emulate import build

    out = {}
    for switch in ("asm", "ucontext"):
        tool = build.Toolchain(extra=("-DEMU_UCONTEXT",) if switch == "ucontext" else ())
        src = tmp_path_factory.mktemp(f"src-{switch}")
        program = build.prepare(build.read_files([PROGRAM], [], [], tool), [PROGRAM], [], [], tool, src)
        for width, c in build.compile_all(program, tool, [32, 64], emu_cache).items():
            assert c.binary is not None, c.error
            out[(switch, width)] = c.binary
    return out


def run_case(binaries, tmp_path, switch, env, width, case):
    from porting.emulate import run

    workdir = tmp_path / f"run-{switch}-{width}-{case}-{len(env)}"
    run.prepare_workdir(workdir, None)
    launch = run.Launch([case], "./scheduler_order", None, env)
    return run.run_binary(binaries[(switch, width)], width, launch, workdir, None, 300.0, [])


@pytest.mark.parametrize("switch, env", VARIANTS)
@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_threads_run_in_the_scheduler_order(binaries, tmp_path, switch, env, width, case):
    result = run_case(binaries, tmp_path, switch, env, width, case)
    assert result.exit == 0, result.stderr
    assert result.stdout.splitlines() == CASES[case](width) + ["done"]


def test_the_collective_case_depends_on_the_width():
    # the expectation is not width-blind: a 64-lane warp holds twice the lanes at __activemask()
    assert collective(32) != collective(64)


@pytest.mark.parametrize("switch, env", VARIANTS)
@pytest.mark.parametrize("case, thread", [("trap_loop", 37), ("trap_fiber", 5)])
def test_a_fault_names_the_thread_that_ran(binaries, tmp_path, switch, env, case, thread):
    """A thread that never waited runs inside a loop with no fiber of its own; one that waited
    has one. The fault line names the right thread either way."""
    for width in (32, 64):
        result = run_case(binaries, tmp_path, switch, env, width, case)
        assert result.exit == 3
        assert f"__trap() called [warp {width}: block (2,0,0) thread ({thread},0,0)]" in result.stderr
