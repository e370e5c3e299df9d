"""User-facing failures: typed exceptions, caught once in the CLI.

Every message is one line that names the file/argument and what is wrong.
Exit codes: 2 for usage/config/input problems, 1 for "ran and found problems".
"""

from __future__ import annotations


class PortError(Exception):
    """Base class of every error shown to a user as one line (no traceback)."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # one line, always
        return " ".join(self.message.split("\n"))


class UsageError(PortError):
    """A command-line argument is wrong."""


class ConfigError(PortError):
    """A configuration file or value is wrong (file and key are named)."""


class InputError(PortError):
    """An input file (source tree, JUnit XML, record) cannot be used."""


class PlatformError(PortError):
    """The machine cannot serve the requested platform/path (e.g. ROCm below the gate)."""


class ToolError(PortError):
    """An external tool (compiler, hipify, pytest) failed; the message names the command."""

    exit_code = 1


class ProblemsFound(PortError):
    """The command ran to completion and found problems (findings, failed files, failing gate)."""

    exit_code = 1
