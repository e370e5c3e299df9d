"""Configuration: read once, passed down.

Sources and precedence (highest first):

1. command-line flags (``--platform``, ``--jobs``, ...)
2. environment variables (``PORT_GPU_PLATFORM``, ``PORT_JOBS``, ...; see ``OPTIONS``)
3. a file: ``--config FILE``; else ``port.toml`` in the project directory (top-level keys);
   else ``[tool.port]`` in the project's ``pyproject.toml``
4. the defaults in ``OPTIONS``

Nested TOML tables map to dotted keys: ``[tool.port.audit] fail_on = "warning"`` is
``audit.fail_on``. Unknown keys and wrong types are ``ConfigError``s naming the key and file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .errors import ConfigError
from .records import Record

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from typing import Any



class Option(Record, frozen=True):
    key: str
    kind: str  # "str" | "int" | "bool" | "list" | "workers" (a count, auto or logical)
    default: Any
    help: str
    env: str | None = None
    choices: tuple[str, ...] | None = None


def _opts(*options: Option) -> dict[str, Option]:
    return {o.key: o for o in options}


# One table of every option. Stages read their keys from the Config they are handed.
OPTIONS: dict[str, Option] = _opts(
    Option("platform", "str", "auto", "GPU platform override", "PORT_GPU_PLATFORM",
           ("auto", "cuda", "rocm", "none")),
    Option("min_rocm", "str", "7.0", "lowest ROCm version accepted for GPU paths", "PORT_MIN_ROCM"),
    Option("sources", "list", ["native"], "source dirs classified to choose native-hip vs hipified-cuda",
           "PORT_SOURCES"),
    Option("gpu_archs", "list", [], "GPU architectures to build for (default: detected)", "PORT_GPU_ARCHS"),
    Option("jobs", "int", 0, "parallel jobs (0 = number of cores)", "PORT_JOBS"),
    Option("build_dir", "str", "build/port", "out-of-tree build directory", "PORT_BUILD_DIR"),
    Option("out_dir", "str", "port-out", "where certify/report write artifacts", "PORT_OUT_DIR"),
    Option("hipify.max_file_size", "int", 16 * 1024 * 1024, "files above this many bytes are skipped"),
    Option("hipify.follow_external_symlinks", "bool", False,
           "follow symlinks in SRC whose target is outside SRC (default: report them, copy nothing)"),
    Option("audit.fail_on", "str", "error", "lowest severity that fails `port audit`", "PORT_AUDIT_FAIL_ON",
           ("error", "warning", "never")),
    Option("audit.baseline", "str", "", "baseline file of accepted findings"),
    Option("audit.disable", "list", [], "audit rule ids to disable"),
    Option("audit.enable", "list", [], "opt-in audit rule ids to enable (e.g. string-cuda-name)"),
    Option("matrix.exemptions", "list", [], "your exemption registries, applied with the packs' own exemptions.toml",
           "PORT_MATRIX_EXEMPTIONS"),
    Option("matrix.packs", "list", [], "your own pack directories, run with the shipped test_matrix/",
           "PORT_MATRIX_PACKS"),
    Option("aliases.extra_overrides", "list", [], "your alias overrides files, applied over the shipped "
           "hip_aliases/overrides.toml", "PORT_ALIASES_EXTRA_OVERRIDES"),
    Option("matrix.workers", "workers", "auto", "pytest-xdist workers (-n): a number, auto or logical",
           "PORT_MATRIX_WORKERS"),
    Option("report.reference", "str", "auto", "reference platform for parity", None, ("auto", "cuda", "cpu")),
    Option("report.min_executed_percent", "int", 100, "share of applicable tests that must execute on ROCm "
           "for CERTIFIED (below it: INCOMPLETE)", "PORT_REPORT_MIN_EXECUTED_PERCENT"),
    Option("report.trusted_keys", "list", [], "Ed25519 public keys (PEM) whose signed evidence manifests "
           "the report trusts", "PORT_REPORT_TRUSTED_KEYS"),
    Option("matrix.signing_key", "str", "", "Ed25519 private key (PEM) `port matrix` signs its evidence "
           "manifest with (empty: unsigned)", "PORT_MATRIX_SIGNING_KEY"),
    Option("check.archs", "list", ["gfx942", "gfx950"], "AMD architectures `port check` compiles for",
           "PORT_CHECK_ARCHS"),
    Option("check.out", "str", "port-check", "where `port check` writes its reports, hipified tree and cache"),
    Option("check.cache", "str", "", "where `port check` keeps its compile cache (default: the per-user "
           "~/.cache/rocm-port/check-cache, outside every checked tree)", "PORT_CHECK_CACHE"),
    Option("check.format", "str", "text", "what `port check` prints", None, ("text", "json", "sarif", "html")),
    Option("emulate.warps", "list", ["32", "64"], "warp widths `port emulate` runs at", "PORT_EMULATE_WARPS"),
    Option("emulate.std", "str", "c++17", "C++ standard emulated programs compile as", None, ("c++17", "c++20")),
    Option("emulate.timeout", "int", 600, "seconds one emulated run may take", "PORT_EMULATE_TIMEOUT"),
    Option("emulate.cxx", "str", "g++", "host C++ compiler of `port emulate`", "PORT_EMULATE_CXX"),
)


def add_option_flag(parser: Any, key: str, *flags: str) -> None:
    """An argparse flag for ``OPTIONS[key]`` (its help, type and choices declared once, above).
    The default is None, so an absent flag leaves the file/env/default value in ``load_config``."""
    option = OPTIONS[key]
    dest = key.rsplit(".", 1)[-1]
    if option.kind == "bool":
        parser.add_argument(*flags, dest=dest, action="store_const", const=True, default=None, help=option.help)
    elif option.kind == "list":
        parser.add_argument(*flags, dest=dest, action="append", default=None, metavar="VALUE",
                            help=option.help + " (repeatable)")
    else:
        parser.add_argument(*flags, dest=dest, default=None, help=option.help, choices=option.choices,
                            type=int if option.kind == "int" else str)


class Config(Record):
    values: dict[str, Any]
    origin: dict[str, str] = {}  # key -> "cli" | "env:NAME" | "file:PATH" | "default"
    file: str | None = None  # a string: `port detect` reads the config and must not import pathlib

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file,
                "values": dict(self.values), "origin": dict(self.origin)}


def _load_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    from .parsing import load_toml  # the one TOML reader (deep nesting, bad UTF-8: one line)

    return load_toml(path, ConfigError, "config file")


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and dotted not in OPTIONS:
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def workers_value(value: Any) -> str | None:
    """pytest-xdist's ``-n``: a count (an integer, or its digits as a string), 'auto' or
    'logical', as the string pytest takes; None when it is none of these."""
    from .parsing import bounded_int

    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if 0 <= value <= 4096 else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text in ("auto", "logical"):
        return text
    count = bounded_int(text, 4)
    return str(count) if count is not None else None


def _check_type(option: Option, value: Any, where: str) -> Any:
    kind = option.kind
    if kind == "workers":
        workers = workers_value(value)
        if workers is None:
            raise ConfigError(f"{where}: key '{option.key}' must be a number of workers, 'auto' or 'logical', "
                              f"got {type(value).__name__} {value!r}")
        return workers
    ok = (
        (kind == "str" and isinstance(value, str))
        or (kind == "int" and isinstance(value, int) and not isinstance(value, bool))
        or (kind == "bool" and isinstance(value, bool))
        or (kind == "list" and isinstance(value, list) and all(isinstance(v, str) for v in value))
    )
    if not ok:
        want = {"str": "a string", "int": "an integer", "bool": "a boolean", "list": "a list of strings"}[kind]
        raise ConfigError(f"{where}: key '{option.key}' must be {want}, got {type(value).__name__} {value!r}")
    if option.choices and value not in option.choices:
        raise ConfigError(f"{where}: key '{option.key}' must be one of {', '.join(option.choices)}, got {value!r}")
    return value


def _parse_env(option: Option, raw: str, name: str) -> Any:
    where = f"environment variable {name}"
    if option.kind == "int":
        try:
            value: Any = int(raw)
        except ValueError:
            raise ConfigError(f"{where}: must be an integer, got {raw!r}") from None
    elif option.kind == "bool":
        low = raw.strip().lower()
        if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
            raise ConfigError(f"{where}: must be a boolean (1/0/true/false), got {raw!r}")
        value = low in ("1", "true", "yes", "on")
    elif option.kind == "list":
        value = [part.strip() for part in raw.split(",") if part.strip()]
    else:
        value = raw.strip()
    return _check_type(option, value, where)


def find_config_file(project_dir: str | os.PathLike[str]) -> tuple[str, str] | None:
    """Return (file, table) for the project: port.toml (top level) or pyproject.toml [tool.port]."""
    port_toml = os.path.join(project_dir, "port.toml")
    if os.path.isfile(port_toml):
        return port_toml, ""
    pyproject = os.path.join(project_dir, "pyproject.toml")
    if os.path.isfile(pyproject):
        return pyproject, "tool.port"
    return None


def _lacks_table(path: str) -> bool:
    """Cheap pre-check: a pyproject.toml that never mentions tool.port needs no TOML parse."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        return False  # let the real read report the error
    return b"tool.port" not in raw and b"tool]" not in raw and b'"port"' not in raw


def read_file_options(path: str | os.PathLike[str], table: str | None = None) -> dict[str, Any]:
    """Read and validate the options in one file; table "" = whole file, "tool.port" = that table."""
    path = os.fspath(path)
    if table is None:
        table = "tool.port" if os.path.basename(path) == "pyproject.toml" else ""
    if table == "tool.port" and _lacks_table(path):
        return {}
    data: Any = _load_toml(path)
    label = f"{path}" + (f" [{table}]" if table else "")
    for part in table.split(".") if table else []:
        data = data.get(part, {}) if isinstance(data, dict) else {}
        if not isinstance(data, dict):
            raise ConfigError(f"{label}: must be a table")
    out: dict[str, Any] = {}
    for key, value in _flatten(data).items():
        option = OPTIONS.get(key)
        if option is None:
            known = ", ".join(sorted(OPTIONS))
            raise ConfigError(f"{label}: unknown key '{key}' (known keys: {known})")
        out[key] = _check_type(option, value, label)
    return out


def load_config(
    cli: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
    config_file: str | os.PathLike[str] | None = None,
) -> Config:
    """Merge defaults < file < env < cli into one validated Config."""
    env = os.environ if env is None else env
    project = os.fspath(project_dir) if project_dir is not None else os.getcwd()
    values = {k: (list(o.default) if isinstance(o.default, list) else o.default) for k, o in OPTIONS.items()}
    origin = {k: "default" for k in OPTIONS}

    file: str | None = None
    if config_file is not None:
        file = os.fspath(config_file)
        if not os.path.exists(file):
            raise ConfigError(f"{file}: config file does not exist")
        file_values = read_file_options(file)
    else:
        found = find_config_file(project)
        file_values = read_file_options(*found) if found else {}
        file = found[0] if found else None
    for key, value in file_values.items():
        values[key], origin[key] = value, f"file:{file}"

    for key, option in OPTIONS.items():
        if option.env and env.get(option.env, "") != "":
            values[key], origin[key] = _parse_env(option, env[option.env], option.env), f"env:{option.env}"

    for key, value in (cli or {}).items():
        if value is None:
            continue
        cli_option = OPTIONS.get(key)
        if cli_option is None:
            raise ConfigError(f"command line: unknown option key '{key}'")
        values[key], origin[key] = _check_type(cli_option, value, "command line"), "cli"
    return Config(values=values, origin=origin, file=file)
