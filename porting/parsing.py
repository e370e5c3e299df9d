"""Bounded parsing of untrusted text: the one place for numbers, JSON and TOML.

* ``bounded_int``: ASCII digits only (``str.isdigit`` and ``int()`` accept '²', '٣' and other
  Unicode digits), at most ``max_digits`` of them (``int()`` of thousands of digits raises, and
  a 26-digit ROCm major must not compare as a real version). Garbage is ``None``; the caller
  decides whether that is "unknown" or a one-line error.
* ``load_json`` / ``loads_json`` / ``load_toml`` / ``loads_toml``: a syntax error, bytes that are
  not UTF-8 and nesting deep enough to raise ``RecursionError`` are all one ``PortError`` line
  naming the file (``InputError`` for records and baselines, ``ConfigError`` for configs).
"""

from __future__ import annotations

import json
import os
import sys

from .errors import ConfigError, InputError, PortError

TYPE_CHECKING = False  # typing is not imported at run time (`port detect` must start fast)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_DIGITS = 9  # every version field, count and id we parse fits; 10**9 is not a version


def bounded_int(text: str | None, max_digits: int = DEFAULT_DIGITS, *, signed: bool = False) -> int | None:
    """``int(text)`` for 1..``max_digits`` ASCII digits (surrounding blanks allowed, a leading
    '-' when ``signed``); anything else is None."""
    if text is None:
        return None
    s = text.strip()
    negative = signed and s.startswith("-")
    digits = s[1:] if negative else s
    if not digits or len(digits) > max_digits or not (digits.isascii() and digits.isdigit()):
        return None
    value = int(digits)
    return -value if negative else value


def loads_json(data: str | bytes, where: str, error: type[PortError] = InputError, what: str = "file") -> Any:
    """Parse JSON text; ``where`` (a file name) starts the one-line error."""
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise error(f"{where}: {what} is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise error(f"{where}: {what} is not JSON (nested too deeply)") from None
    except ValueError as exc:  # json.JSONDecodeError, and int() of a too-long number
        raise error(f"{where}: {what} is not JSON ({exc})") from None


def _read(path: str | os.PathLike[str], error: type[PortError], what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise error(f"{os.fspath(path)}: cannot read {what}: {exc.strerror or exc}") from None


def load_json(path: str | os.PathLike[str], error: type[PortError] = InputError, what: str = "file") -> Any:
    return loads_json(_read(path, error, what), os.fspath(path), error, what)


def loads_toml(data: bytes | str, where: str, error: type[PortError] = ConfigError,
               what: str = "file") -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise error(f"{where}: {what} is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise error(f"{where}: invalid TOML: nested too deeply") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: invalid TOML: {exc}") from None
    except ValueError as exc:  # e.g. an integer beyond Python's int-conversion limit
        raise error(f"{where}: invalid TOML: {exc}") from None


def load_toml(path: str | os.PathLike[str], error: type[PortError] = ConfigError,
              what: str = "config file") -> dict[str, Any]:
    return loads_toml(_read(path, error, what), os.fspath(path), error, what)
