"""The entry point reads `port detect`'s command line without argparse (porting/entry.py). What
it accepts must mean exactly what argparse makes of it, and everything else must reach argparse
(its errors, its help), through the console script and `python -m porting` alike."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from porting import cli, entry
from porting.probe import toolcache

ROOT = Path(__file__).resolve().parents[2]
ATTRS = ("json", "platform", "min_rocm", "require", "root", "sources", "project", "out", "config")
# Words a command line of `port detect` is made of: every option, spelled right and wrong,
# with `=`, values that look like options or numbers, and stray words.
WORDS = (
    "--json", "--json=1", "--platform", "--platform=rocm", "--platform=bogus", "--min-rocm", "--min-rocm=7.1",
    "--require", "--require=rocm>=7.0", "--root", "--root=", "--root=-x", "--sources", "--project", "--out",
    "--config", "--config=c.toml", "--js", "--plat", "-h", "--help", "--", "-5", "-x", "", "rocm", "cuda",
    "none", "auto", "7.0", "rocm>=6", "/tmp", "src", "a b", "--verbose",
)


def _argparse(argv: list[str]):
    parser = cli._parser("detect")
    try:
        return parser.parse_args(["detect", *argv])
    except SystemExit:
        return None


@pytest.mark.parametrize("seed", range(4))
def test_what_the_hand_reader_accepts_argparse_reads_the_same(seed, capsys):
    rng = random.Random(seed)
    accepted = 0
    for _ in range(500):
        argv = [rng.choice(WORDS) for _ in range(rng.randint(0, 6))]
        ours = entry.parse_detect(argv)
        if ours is None:
            continue  # argparse decides (and may refuse)
        accepted += 1
        theirs = _argparse(argv)
        assert theirs is not None, f"{argv}: accepted here, refused by argparse"
        assert {a: getattr(ours, a) for a in ATTRS} == {a: getattr(theirs, a) for a in ATTRS}, argv
    capsys.readouterr()
    assert accepted > 20  # the generator does reach the fast path


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["--js"], ["--platform", "bogus"], ["--json=1"], ["--root", "-x"], ["extra"], ["--"],
    ["--root"],
])
def test_anything_else_goes_to_argparse(argv):
    assert entry.parse_detect(argv) is None


def test_a_full_command_line(tmp_path):
    args = entry.parse_detect(["--json", "--platform=rocm", "--require", "rocm>=7.0", "--require=cuda>=12",
                               "--root", str(tmp_path), "--sources", "a", "--sources=b", "--out", "o.json",
                               "--config", "c.toml", "--min-rocm", "6.4", "--project", "p"])
    assert args is not None
    assert (args.json, args.platform, args.require, args.root, args.sources, args.out, args.config,
            args.min_rocm, args.project) == (True, "rocm", ["rocm>=7.0", "cuda>=12"], str(tmp_path), ["a", "b"],
                                             "o.json", "c.toml", "6.4", "p")


def _port(args: list[str], how: str, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PORT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if how == "module":
        cmd = [sys.executable, "-m", "porting", *args]
    else:  # what [project.scripts] installs: pip's console-script template around that entry
        module, func = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["port"].split(":")
        cmd = [sys.executable, "-c", f"import re, sys\nfrom {module} import {func}\nsys.exit({func}())", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


@pytest.mark.parametrize("args", [
    ["detect", "--json", "--platform", "none"],
    ["detect", "--platform=bogus"],
    ["detect", "--root", "/no/such/dir"],
    ["detect", "--require", "rocm>=99", "--json"],
    ["detect", "--help"],
])
def test_console_script_module_and_argparse_cli_agree(tmp_path, args):
    """Byte for byte: stdout, stderr and the exit code of the console script and of `python -m
    porting` (both the fast path where it applies) against argparse's command line."""
    script, module = _port(args, "script", tmp_path), _port(args, "module", tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PORT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    # the argparse command line itself (porting.cli.main would take the fast path too)
    argparse_cli = ("import sys\nfrom porting import cli, entry\n"
                    "sys.exit(entry.guarded(lambda: cli._run(sys.argv[1:], 'detect')))")
    full = subprocess.run([sys.executable, "-c", argparse_cli, *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert "argparse" not in full.stderr  # no traceback: it ran
    for proc in (script, module):
        assert (proc.returncode, proc.stdout, proc.stderr) == (full.returncode, full.stdout, full.stderr)


def test_every_other_command_goes_to_the_argparse_cli(tmp_path):
    proc = _port(["--version"], "script", tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("port (rocm-port)")


def test_a_probe_child_is_owned_without_the_cli(monkeypatch):
    """Without porting.cli's owner(), each child a probe starts gets its own owner: a signal
    while it runs ends its group and raises Interrupted (as under the full CLI)."""
    from porting import process_group

    seen: list[object] = []

    def fake_run(argv, **kw):
        import signal
        seen.append(signal.getsignal(signal.SIGTERM))
        return subprocess.CompletedProcess(argv, 0, "v 1.0\n", "")

    monkeypatch.setattr(process_group, "run", fake_run)
    monkeypatch.setattr(toolcache, "OWN_CHILDREN", True)
    assert toolcache.run_tool(["tool", "--version"], timeout=5) == "v 1.0\n"
    monkeypatch.setattr(toolcache, "OWN_CHILDREN", False)
    toolcache.run_tool(["tool", "--version"], timeout=5)
    assert isinstance(seen[0], process_group._Handler)  # owned while the child ran
    assert not isinstance(seen[1], process_group._Handler)  # the CLI's owner() is the caller's


def test_the_per_child_owner_is_for_detect_only(tmp_path, monkeypatch, capsys):
    """After `port detect` ran in a process, a later command's probes are owned by that command's
    owner() again (a nested owner would kill other threads' children on its way out)."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["detect", "--json", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("{")
    assert toolcache.OWN_CHILDREN is False
