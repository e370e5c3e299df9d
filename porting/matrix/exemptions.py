"""The exemption registry (``test_matrix/exemptions.toml``).

Each ``[[exemption]]`` names: ``id``, ``pattern`` (an fnmatch pattern over pytest node ids,
or a list of them),
``platforms`` (``cuda`` / ``rocm`` / ``cpu``; an exemption applies only there), ``action``
(``skip``, or ``xfail`` which is strict: an unexpected pass fails), ``reason``, ``tracking``
(a link) and ``expires`` (a TOML date); optional ``rdma`` (a list of RDMA backends,
``ibverbs`` / ``tcp`` / ``none``: it applies only where detection found one of them). An
expired exemption fails the run; one that matches no collected test is reported.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

SCHEMA = 1
ACTIONS = ("skip", "xfail")
PLATFORMS = ("cuda", "rocm", "cpu")
_KEYS = {"id", "pattern", "platforms", "action", "reason", "tracking", "expires"}
_OPTIONAL = {"rdma"}
RDMA_BACKENDS = ("ibverbs", "tcp", "none")


@dataclass(frozen=True)
class Exemption:
    id: str
    pattern: str  # the patterns joined by " | ", for display only (match with `patterns`)
    platforms: tuple[str, ...]
    action: str
    reason: str
    tracking: str
    expires: dt.date
    patterns: tuple[str, ...] = ()  # the fnmatch patterns; default: (pattern,)
    rdma: tuple[str, ...] = ()  # RDMA backends it applies to; () = any

    def __post_init__(self) -> None:
        if not self.patterns:
            object.__setattr__(self, "patterns", (self.pattern,))

    def applies_to(self, platform: str, rdma: str | None = None) -> bool:
        return platform in self.platforms and (rdma is None or not self.rdma or rdma in self.rdma)

    def matches(self, nodeid: str) -> bool:
        return any(fnmatch.fnmatchcase(nodeid, p) for p in self.patterns)

    def expired(self, today: dt.date) -> bool:
        return today > self.expires


@dataclass
class Registry:
    path: Path | None
    exemptions: list[Exemption] = field(default_factory=list)

    def for_platform(self, platform: str, rdma: str | None = None) -> list[Exemption]:
        return [e for e in self.exemptions if e.applies_to(platform, rdma)]

    def expired(self, platform: str, today: dt.date) -> list[Exemption]:
        return [e for e in self.for_platform(platform) if e.expired(today)]

    def match(self, nodeid: str, platform: str, today: dt.date, rdma: str | None = None) -> Exemption | None:
        """The first live exemption for this test on this platform (and RDMA backend)."""
        for e in self.for_platform(platform, rdma):
            if not e.expired(today) and e.matches(nodeid):
                return e
        return None

    def unmatched(self, nodeids: Iterable[str]) -> list[Exemption]:
        """Exemptions (any platform) whose pattern matches none of ``nodeids``."""
        ids = list(nodeids)
        return [e for e in self.exemptions if not any(e.matches(n) for n in ids)]


def _entry(raw: Any, index: int, where: str) -> Exemption:
    label = f"{where}: exemption #{index + 1}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{label}: must be a table")
    if isinstance(raw.get("id"), str):
        label = f"{where}: exemption '{raw['id']}'"
    unknown = sorted(set(raw) - _KEYS - _OPTIONAL)
    if unknown:
        known = ", ".join(sorted(_KEYS | _OPTIONAL))
        raise ConfigError(f"{label}: unknown key(s) {', '.join(unknown)} (known: {known})")
    missing = sorted(k for k in _KEYS if k not in raw)
    if missing:
        raise ConfigError(f"{label}: missing key(s) {', '.join(missing)}")
    patterns = raw["pattern"]
    if isinstance(patterns, str):
        patterns = [patterns]
    if (not isinstance(patterns, list) or not patterns
            or not all(isinstance(p, str) and p.strip() for p in patterns)):
        raise ConfigError(f"{label}: 'pattern' must be a non-empty string or list of strings")
    for key in ("id", "action", "reason", "tracking"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise ConfigError(f"{label}: '{key}' must be a non-empty string")
    if raw["action"] not in ACTIONS:
        raise ConfigError(f"{label}: 'action' must be skip or xfail, got {raw['action']!r}")
    platforms = raw["platforms"]
    if (not isinstance(platforms, list) or not platforms
            or not all(isinstance(p, str) and p in PLATFORMS for p in platforms)):
        raise ConfigError(f"{label}: 'platforms' must be a non-empty list of {', '.join(PLATFORMS)}")
    expires = raw["expires"]
    if isinstance(expires, dt.datetime):
        expires = expires.date()
    elif isinstance(expires, str):
        try:
            expires = dt.date.fromisoformat(expires)
        except ValueError:
            raise ConfigError(f"{label}: 'expires' must be a date (YYYY-MM-DD), got {expires!r}") from None
    if not isinstance(expires, dt.date):
        raise ConfigError(f"{label}: 'expires' must be a date (YYYY-MM-DD)")
    rdma = raw.get("rdma", [])
    if (not isinstance(rdma, list) or ("rdma" in raw and not rdma)
            or not all(isinstance(r, str) and r in RDMA_BACKENDS for r in rdma)):
        raise ConfigError(f"{label}: 'rdma' must be a non-empty list of {', '.join(RDMA_BACKENDS)}")
    return Exemption(id=raw["id"], pattern=" | ".join(patterns), platforms=tuple(platforms),
                     action=raw["action"], reason=raw["reason"], tracking=raw["tracking"], expires=expires,
                     patterns=tuple(patterns), rdma=tuple(rdma))


def parse(data: dict[str, Any], where: str) -> Registry:
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise ConfigError(f"{where}: schema must be {SCHEMA}, got {schema!r}")
    unknown = sorted(set(data) - {"schema", "exemption"})
    if unknown:
        raise ConfigError(f"{where}: unknown top-level key(s) {', '.join(unknown)}")
    entries = data.get("exemption", [])
    if not isinstance(entries, list):
        raise ConfigError(f"{where}: 'exemption' must be an array of tables ([[exemption]])")
    items = [_entry(raw, i, where) for i, raw in enumerate(entries)]
    seen: set[str] = set()
    for e in items:
        if e.id in seen:
            raise ConfigError(f"{where}: exemption id '{e.id}' is used twice")
        seen.add(e.id)
    return Registry(path=None, exemptions=items)


def load(path: str | os.PathLike[str]) -> Registry:
    """Read the registry; a missing file is an empty registry."""
    from ..config import _load_toml  # the project's one TOML reader (ConfigError naming the file)

    p = Path(path)
    if not p.exists():
        return Registry(path=p)
    reg = parse(_load_toml(p), str(p))
    reg.path = p
    return reg


def load_all(paths: Iterable[str | os.PathLike[str]]) -> Registry:
    """Several registries as one (the shipped one, then a user's); an id used in two files is
    a ConfigError naming both. A missing file is empty, as for ``load``."""
    merged = Registry(path=None)
    origin: dict[str, Path] = {}
    for path in paths:
        reg = load(path)
        merged.path = merged.path or reg.path
        for e in reg.exemptions:
            if e.id in origin:
                raise ConfigError(f"{path}: exemption id '{e.id}' is already used in {origin[e.id]}")
            origin[e.id] = Path(path)
            merged.exemptions.append(e)
    return merged


def registry_files(config: Any, matrix_dir: Path | None = None) -> list[Path]:
    """The registries of a run, in order: the packs' own ``exemptions.toml`` (the shipped
    test_matrix/ unless ``matrix_dir``), each added pack's (``matrix.packs``), then the user's
    files (``matrix.exemptions``), which must exist."""
    from .. import assets

    primary = (matrix_dir or assets.matrix_dir()) / "exemptions.toml"
    packs = [Path(p) / "exemptions.toml" for p in config["matrix.packs"]]
    user = [Path(p) for p in config["matrix.exemptions"]]
    # Who named the user's files: "cli", "env:NAME" or "file:PATH" (load_config records every
    # option's origin; a default list is empty, so names no file). Only the prefix is cut: a
    # path may itself hold "env:" or "file:".
    kind, _, source = config.origin["matrix.exemptions"].partition(":")
    where = "--exemptions" if kind == "cli" else source
    for path in user:
        if not path.is_file():  # named by the user: a typo must not silently drop exemptions
            raise ConfigError(f"{where}: matrix.exemptions: {path}: no such file")
    files = [primary, *(p for p in packs if p.is_file()), *user]
    return list(dict.fromkeys(f.resolve() for f in files))
