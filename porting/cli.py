"""The `port` command line: a thin layer over the stages.

Each subcommand lives in ``porting/commands/<name>.py`` and exposes ``HELP`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``. Modules are imported lazily (only the
one being run), and must import heavy dependencies (torch, junitparser) inside ``run``
so that ``port detect`` stays fast (which the entry point, ``porting/entry.py``, mostly runs without
this module). ``PortError`` is caught once, by ``entry.guarded``: one line on stderr, its exit
code, no traceback. An ``OSError`` that no stage turned into a ``PortError`` (a file that cannot
be read or written) is reported the same way, naming the file, exit 2.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from . import __version__
from .entry import fast_detect, guarded

TYPE_CHECKING = False  # argparse is imported when a parser is built: `port detect` runs without it
if TYPE_CHECKING:
    import argparse

# name -> module; order is the order shown by `port --help` (the pipeline order).
COMMANDS: dict[str, str] = {
    "detect": "porting.commands.detect",
    "sdk": "porting.commands.sdk",
    "hipify": "porting.commands.hipify",
    "audit": "porting.commands.audit",
    "check": "porting.commands.check",
    "fix": "porting.commands.fix",
    "aliases": "porting.commands.aliases",
    "build": "porting.commands.build",
    "matrix": "porting.commands.matrix",
    "report": "porting.commands.report",
    "certify": "porting.commands.certify",
    "soak": "porting.commands.soak",
    "emulate": "porting.commands.emulate",
}


def _load(name: str):
    try:
        return importlib.import_module(COMMANDS[name])
    except ModuleNotFoundError as exc:
        if exc.name == COMMANDS[name]:
            return None
        raise


def _formatter() -> type[argparse.HelpFormatter]:
    import argparse

    class _Formatter(argparse.HelpFormatter):
        """argparse's formatter, sized without ``import shutil`` (argparse builds one per argument)."""

        def __init__(self, prog: str, **kwargs) -> None:
            if kwargs.get("width") is None:
                try:
                    columns = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size().columns
                except (ValueError, OSError):
                    columns = 80
                kwargs["width"] = max(columns - 2, 40)
            super().__init__(prog, **kwargs)

    return _Formatter


def _parser(only: str | None) -> argparse.ArgumentParser:
    import argparse

    _Formatter = _formatter()
    parser = argparse.ArgumentParser(
        prog="port",
        formatter_class=_Formatter,
        description="CUDA-to-ROCm porting and parity certification.",
        epilog="Run `port COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"port (rocm-port) {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        module = _load(name)
        if module is None:
            continue
        p = sub.add_parser(name, help=module.HELP, description=module.HELP, formatter_class=_Formatter)
        p.add_argument("--config", metavar="FILE", default=None,
                       help="config file (default: ./port.toml, else [tool.port] in ./pyproject.toml)")
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def _split_passthrough(args_list: list[str], only: str | None) -> tuple[list[str], list[str] | None]:
    """A command with ``PASSTHROUGH = True`` gets what follows the first ``--`` verbatim
    (`port emulate prog.cu -- ARGS`): argparse alone would mix those into its positionals."""
    module = _load(only) if only is not None else None
    if module is None or not getattr(module, "PASSTHROUGH", False) or "--" not in args_list:
        return args_list, None
    cut = args_list.index("--")
    return args_list[:cut], args_list[cut + 1:]


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    fast = fast_detect(args_list)  # also for a console script installed as porting.cli:main
    if fast is not None:
        return fast
    command = next((a for a in args_list if not a.startswith("-")), None)
    only = command if command in COMMANDS and "-h" not in args_list[:1] else None
    return guarded(lambda: _run(args_list, only))


def _run(args_list: list[str], only: str | None) -> int:
    parser = _parser(only)
    args_list, passthrough = _split_passthrough(args_list, only)
    args = parser.parse_args(args_list)
    if passthrough is not None:
        args.passthrough = passthrough
    if getattr(args, "_module", None) is None:
        parser.print_help()
        return 2
    from .process_group import owner

    with owner():  # every child in its own group, ended with the command (signals too)
        return int(args._module.run(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
