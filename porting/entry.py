"""The `port` entry point (``[project.scripts]`` and ``python -m porting``): `port detect` fast.

`port detect` is the first thing a CI job and a build script call, on every build, and most of
a short Python command's time is its imports: ``argparse`` (with ``gettext`` and ``locale``,
which it loads to translate its messages) alone costs as much as the interpreter's own start.
So this module reads the command line of `port detect` itself when every argument is one
``detect`` knows, spelled out in full, and hands everything else to the argparse command line
(``porting.cli``) unchanged: another command, ``--help``, an abbreviated or unknown option, a
value that argparse might read differently (one starting with ``-``), a bad ``--platform``. So
errors and help are argparse's own, and an accepted command line means what it means there.

Signals: the fast path installs no ``process_group.owner()`` for the whole command (its imports,
signal and threading, cost more than the rest of detect's closure); each child a probe starts is
owned while it runs (``probe.toolcache.run_tool``), so a signal then ends its group and the
command says ``port: interrupted (SIGTERM)`` as under the full CLI. A SIGTERM or SIGHUP while no
child runs ends the process by the signal itself (nothing is left behind: no child, and
``--out`` is written atomically), without that line.
"""

from __future__ import annotations

import sys

from .errors import PortError

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

# `port detect`'s options, declared once: porting/commands/detect.py builds its argparse parser
# from this table and the reader below reads the same words. Each row: option, attribute, kind
# ("flag", "value": the last one wins, "append"), default, choices, metavar, help.
DETECT_SPEC: tuple[tuple[str, str, str, object, tuple[str, ...] | None, str | None, str], ...] = (
    ("--json", "json", "flag", False, None, None, "print the detection record as JSON (schema in docs)"),
    ("--platform", "platform", "value", None, ("auto", "cuda", "rocm", "none"), None,
     "override the GPU platform (env PORT_GPU_PLATFORM)"),
    ("--min-rocm", "min_rocm", "value", None, None, "VERSION", "ROCm version gate (default 7.0)"),
    ("--require", "require", "append", [], None, "EXPR",
     "fail (exit 1) unless EXPR holds, e.g. 'rocm>=7.0' (repeatable)"),
    ("--root", "root", "value", "/", None, "DIR", "probe the filesystem under DIR instead of / (synthetic machines)"),
    ("--sources", "sources", "append", None, None, "DIR",
     "source dir to classify (HIP vs CUDA); default from config: native"),
    ("--project", "project", "value", None, None, "DIR", "project directory (default: cwd)"),
    ("--out", "out", "value", None, None, "FILE", "also write the JSON record to FILE"),
)
# option -> (attribute, kind, choices), with the --config every command has (porting.cli adds it)
DETECT_OPTIONS = {opt: (attr, kind, choices) for opt, attr, kind, _, choices, _, _ in DETECT_SPEC}
DETECT_OPTIONS["--config"] = ("config", "value", None)


class DetectArgs:
    """What argparse's Namespace holds for `port detect` (same attributes, same defaults)."""

    def __init__(self) -> None:
        for _, attr, _, default, _, _, _ in DETECT_SPEC:
            setattr(self, attr, list(default) if isinstance(default, list) else default)
        self.config: str | None = None

    def __getattr__(self, name: str) -> Any:  # the attributes set from DETECT_SPEC, for mypy
        raise AttributeError(name)


def parse_detect(argv: Sequence[str]) -> DetectArgs | None:
    """``argv`` (after ``detect``) as argparse would read it, or None where this reader does not
    decide (argparse then reads it: its errors, its abbreviations, its help)."""
    args = DetectArgs()
    i = 0
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        spec = DETECT_OPTIONS.get(name)
        if spec is None:
            return None  # a positional, -h, --, an abbreviation, an unknown option
        attr, kind, choices = spec
        if kind == "flag":
            if eq:
                return None  # argparse: "ignored explicit argument"
            setattr(args, attr, True)
            i += 1
            continue
        if not eq:
            if i + 1 == len(argv) or argv[i + 1].startswith("-"):
                return None  # missing value, or one argparse may take for an option or a number
            value = argv[i + 1]
            i += 1
        i += 1
        if choices is not None and value not in choices:
            return None  # argparse's error
        if kind == "append":
            current = getattr(args, attr)
            setattr(args, attr, [*(current or []), value])
        else:
            setattr(args, attr, value)
    return args


def guarded(command: Callable[[], int]) -> int:
    """Run a command; a ``PortError`` (or an ``OSError`` no stage turned into one) is one line
    on stderr and its exit code, a signal its own line: no traceback. Caught here, once."""
    try:
        return command()
    except PortError as exc:
        print(f"port: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:  # process_group.Interrupted for SIGTERM/SIGHUP/SIGINT
        signame = getattr(exc, "signame", "SIGINT")
        print(f"port: interrupted ({signame})", file=sys.stderr)
        return int(getattr(exc, "exit_code", 130))
    except OSError as exc:  # a file the command could not read or write, not caught closer to it
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"port: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


def _detect(args: DetectArgs) -> int:
    from .detection import run_detect
    from .probe import toolcache

    # No process_group.owner() up front (signal and threading are imports detect rarely needs):
    # each child a probe starts gets one for its lifetime instead, for this command only (a
    # later command in the same process installs its own owner, which must not be nested).
    toolcache.OWN_CHILDREN = True
    try:
        return run_detect(args)
    finally:
        toolcache.OWN_CHILDREN = False


def fast_detect(args_list: list[str]) -> int | None:
    """`port detect`'s exit code when this reader took the command line, else None."""
    if args_list[:1] != ["detect"]:
        return None
    detect_args = parse_detect(args_list[1:])
    if detect_args is None:
        return None
    return guarded(lambda: _detect(detect_args))


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    fast = fast_detect(args_list)
    if fast is not None:
        return fast
    from .cli import main as full_main

    return full_main(args_list)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
