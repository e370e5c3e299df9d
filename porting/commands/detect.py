"""`port detect`: probe the machine, pick the build path, explain every decision."""

from __future__ import annotations

import argparse

HELP = "probe the machine and choose the build path (cuda, native-hip, hipified-cuda, cpu), with reasons"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..entry import DETECT_SPEC  # the options, declared once (the fast reader reads the same)

    for option, attr, kind, default, choices, metavar, help_text in DETECT_SPEC:
        if kind == "flag":
            p.add_argument(option, dest=attr, action="store_true", help=help_text)
        else:
            p.add_argument(option, dest=attr, action="append" if kind == "append" else "store", default=default,
                           choices=choices, metavar=metavar, help=help_text)


def run(args: argparse.Namespace) -> int:
    from ..detection import run_detect

    return run_detect(args)
