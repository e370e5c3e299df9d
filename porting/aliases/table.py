"""The one alias table: CUDA name -> HIP name, kind, and (for constants) the HIP type.

Built from hipify's own mapping tables (``torch.utils.hipify.cuda_to_hip_mappings``: the
runtime/driver identifiers, the type names and the library map) plus the curated
``hip_aliases/overrides.toml`` for what hipify lacks or gets wrong for ROCm 7. Nothing is
copied by hand: change torch or the overrides file and every generated file follows.

Kinds:

- ``type``: ``CUdevice -> hipDevice_t`` (Rust ``pub type``; C++ ``typedef``).
- ``const``: enum constants and macros (``CUDA_SUCCESS -> hipSuccess``). ``const_type`` is the
  HIP type when a rule in the overrides file knows it (Rust ``pub const X: T = Y;``), else
  None (Rust ``pub use Y as X;``, which works for any value).
- ``function``: everything else (``cuInit -> hipInit``; Rust ``pub use``; C++ ``#define``).
  hipify does not say whether a camelCase name is a function or an enum constant; ``pub use``
  and ``#define`` are right for both, so the distinction only matters for ``const_type``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import assets
from ..errors import ConfigError
from ..headers import HeaderNames
from .ground_truth import UndeclaredRule, held_to, verify

SCHEMA = 1
KINDS = ("type", "const", "function")
# hipify's maps, in the order hipify itself applies them (the first mapping of a name wins).
HIPIFY_MAPS = ("CUDA_IDENTIFIER_MAP", "CUDA_TYPE_NAME_MAP", "CUDA_SPECIAL_MAP")

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_POINTER_TYPE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\*\Z")
_ALL_CAPS = re.compile(r"[A-Z][A-Z0-9_]*\Z")


@dataclass(frozen=True)
class Alias:
    cuda: str
    hip: str  # an identifier, or "name *" for a pointer type (CUarray -> hipArray *)
    kind: str  # one of KINDS
    origin: str  # "hipify:CUDA_TYPE_NAME_MAP" | "override"
    const_type: str | None = None
    min_hip: int | None = None  # first HIP_VERSION_MAJOR that has the HIP name
    reason: str = ""
    source: str = ""
    status: str = ""  # held to the headers: declared | renamed | unverified (a library's) | dropped
    library: str = ""  # unverified: the ROCm library whose headers were not available (hipBLAS, ...)

    @property
    def hip_pointee(self) -> str | None:
        """For ``hipArray *``: ``hipArray``; None when ``hip`` is a plain identifier."""
        m = _POINTER_TYPE.match(self.hip)
        return m.group(1) if m else None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Alias:
        fields: dict[str, Any] = {k: data.get(k) for k in ("cuda", "hip", "kind", "origin")}
        return cls(**fields,
                   const_type=data.get("const_type"), min_hip=data.get("min_hip"),
                   reason=data.get("reason", ""), source=data.get("source", ""),
                   status=data.get("status", ""), library=data.get("library", ""))


@dataclass(frozen=True)
class ConstTypeRule:
    pattern: str  # regex matched (re.match) against the HIP name
    type: str
    reason: str = ""

    def matches(self, hip: str) -> bool:
        return re.match(self.pattern, hip) is not None


@dataclass
class AliasTable:
    entries: dict[str, Alias]
    torch_version: str = ""
    overrides_file: str = ""
    schema: int = SCHEMA
    skipped: int = 0  # hipify entries that are not identifiers (paths, ``cub::``, includes)
    dropped: list[Alias] = field(default_factory=list)  # undeclared in the ROCm headers, by an [[undeclared]] rule
    headers: str = ""  # what the targets were held to ("" when not verified)
    held_to: str = ""  # the same without this machine's paths: "ROCm HIP 7.1.25424 headers"

    def get(self, cuda: str) -> Alias | None:
        return self.entries.get(cuda)

    def __contains__(self, cuda: str) -> bool:
        return cuda in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def select(self, names: Iterable[str], verified_only: bool = False) -> list[Alias]:
        """The entries for ``names`` (unknown names dropped), sorted by kind then name;
        ``verified_only`` leaves out the library aliases the headers could not confirm."""
        order = {k: i for i, k in enumerate(KINDS)}
        found = {self.entries[n] for n in names if n in self.entries
                 and not (verified_only and self.entries[n].status == "unverified")}
        return sorted(found, key=lambda a: (order[a.kind], a.cuda))

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "torch_version": self.torch_version,
                "overrides_file": self.overrides_file, "skipped": self.skipped,
                "counts": {k: sum(1 for a in self.entries.values() if a.kind == k) for k in KINDS},
                "headers": self.headers, "held_to": self.held_to,
                "status": {s: sum(1 for a in self.entries.values() if a.status == s)
                           for s in ("declared", "renamed", "unverified")} | {"dropped": len(self.dropped)},
                "entries": [a.to_json() for a in self.entries.values()],
                "dropped": [a.to_json() for a in self.dropped]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AliasTable:
        entries = [Alias.from_json(e) for e in data.get("entries", [])]
        return cls(entries={a.cuda: a for a in entries}, torch_version=data.get("torch_version", ""),
                   overrides_file=data.get("overrides_file", ""), schema=int(data.get("schema", SCHEMA)),
                   skipped=int(data.get("skipped", 0)),
                   dropped=[Alias.from_json(e) for e in data.get("dropped", [])], headers=data.get("headers", ""),
                   held_to=data.get("held_to", ""))


@dataclass
class Overrides:
    aliases: list[Alias] = field(default_factory=list)
    const_types: list[ConstTypeRule] = field(default_factory=list)
    undeclared: list[UndeclaredRule] = field(default_factory=list)


def _classify(cuda: str, hip: str, map_name: str) -> str:
    if map_name == "CUDA_TYPE_NAME_MAP":
        # hipify lists a few pointer-attribute constants among the types (CU_POINTER_ATTRIBUTE_*)
        return "const" if cuda.startswith("CU_") else "type"
    if _ALL_CAPS.match(cuda):
        return "const"
    if cuda.endswith("_t") or _POINTER_TYPE.match(hip):
        return "type"
    return "function"


def _usable(cuda: str, hip: str, kind: str) -> bool:
    if cuda == hip or not _IDENT.match(cuda) or cuda.startswith("__"):
        return False
    return bool(_IDENT.match(hip) or (kind == "type" and _POINTER_TYPE.match(hip)))


def load_overrides(path: str | Path) -> Overrides:
    """Read and validate ``overrides.toml``; every problem is a ConfigError naming the entry."""
    from ..config import _load_toml  # the project's one TOML reader (tomllib / tomli)

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: alias overrides file does not exist")
    data = _load_toml(path)
    unknown = set(data) - {"alias", "const_type", "undeclared"}
    if unknown:
        raise ConfigError(f"{path}: unknown table(s) {', '.join(sorted(unknown))} "
                          "(known: alias, const_type, undeclared)")
    out = Overrides()
    for i, entry in enumerate(data.get("alias", [])):
        where = f"{path}: [[alias]] #{i + 1}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: must be a table")
        extra = set(entry) - {"cuda", "hip", "kind", "const_type", "min_hip", "reason", "source"}
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
        for key in ("cuda", "hip", "kind", "reason", "source"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise ConfigError(f"{where}: key '{key}' must be a non-empty string")
        if entry["kind"] not in KINDS:
            raise ConfigError(f"{where}: kind must be one of {', '.join(KINDS)}, got {entry['kind']!r}")
        if not _usable(entry["cuda"], entry["hip"], entry["kind"]):
            raise ConfigError(f"{where}: '{entry['cuda']}' -> '{entry['hip']}' is not an identifier mapping")
        min_hip = entry.get("min_hip")
        if min_hip is not None and (not isinstance(min_hip, int) or isinstance(min_hip, bool) or min_hip < 1):
            raise ConfigError(f"{where}: min_hip must be a positive integer (a HIP_VERSION_MAJOR)")
        const_type = entry.get("const_type")
        if const_type is not None and (entry["kind"] != "const" or not _IDENT.match(str(const_type))):
            raise ConfigError(f"{where}: const_type must be an identifier and only on kind = \"const\"")
        out.aliases.append(Alias(entry["cuda"], entry["hip"], entry["kind"], "override", const_type,
                                 min_hip, entry["reason"].strip(), entry["source"].strip()))
    for i, rule in enumerate(data.get("const_type", [])):
        where = f"{path}: [[const_type]] #{i + 1}"
        if not isinstance(rule, dict) or set(rule) - {"pattern", "type", "reason"}:
            raise ConfigError(f"{where}: must be a table with keys pattern, type, reason")
        if not all(isinstance(rule.get(k), str) and rule[k] for k in ("pattern", "type", "reason")):
            raise ConfigError(f"{where}: pattern, type and reason must be non-empty strings")
        try:
            re.compile(rule["pattern"])
        except re.error as exc:
            raise ConfigError(f"{where}: pattern is not a valid regular expression: {exc}") from None
        out.const_types.append(ConstTypeRule(rule["pattern"], rule["type"], rule["reason"]))
    out.undeclared = _undeclared_rules(data.get("undeclared", []), path)
    return out


def _undeclared_rules(items: list[Any], path: Path) -> list[UndeclaredRule]:
    rules = []
    for i, rule in enumerate(items):
        where = f"{path}: [[undeclared]] #{i + 1}"
        if not isinstance(rule, dict) or set(rule) - {"pattern", "reason"} or not all(
                isinstance(rule.get(k), str) and rule[k].strip() for k in ("pattern", "reason")):
            raise ConfigError(f"{where}: must be a table with non-empty strings pattern and reason")
        try:
            re.compile(rule["pattern"])
        except re.error as exc:
            raise ConfigError(f"{where}: pattern is not a valid regular expression: {exc}") from None
        rules.append(UndeclaredRule(rule["pattern"], rule["reason"].strip()))
    return rules


def load_hipify_maps() -> tuple[dict[str, Mapping[str, Any]], str]:
    """hipify's maps and torch's version, without running ``import torch`` (which takes seconds).

    ``cuda_to_hip_mappings.py`` only needs the standard library, so it is executed on its own
    from torch's installed files (``porting.hipify.engine.mappings_module``); if that fails
    (torch's layout changed), the normal import is used.
    """
    from ..hipify.engine import mappings_module

    try:
        from importlib.metadata import version

        torch_version = version("torch")
    except Exception:  # noqa: BLE001 - metadata missing: the version is informational only
        torch_version = ""
    try:
        module = mappings_module()
    except ConfigError:  # torch is not installed
        raise
    except Exception:  # noqa: BLE001 - layout changed: fall back to the real import
        from torch.utils.hipify import cuda_to_hip_mappings as module
    missing = [name for name in HIPIFY_MAPS if not hasattr(module, name)]
    if missing:
        raise ConfigError(f"torch {torch_version}: cuda_to_hip_mappings lacks {', '.join(missing)}")
    return {name: getattr(module, name) for name in HIPIFY_MAPS}, torch_version


def build_table(overrides: str | Path | None = None,
                maps: Mapping[str, Mapping[str, str]] | None = None,
                extra_overrides: Iterable[str | Path] = (),
                names: HeaderNames | None = None) -> AliasTable:
    """hipify's maps (or ``maps``, for tests) + overrides -> the table. Pure apart from reading files.

    ``extra_overrides``: a user's files (``aliases.extra_overrides``), applied after the shipped
    one: their aliases replace its entries for the same CUDA name, their const_type rules are
    tried first. ``names``: what the ROCm headers declare (``ground_truth.rocm_names()``); when
    given (the commands always give it) every target is held to it."""
    torch_version = ""
    if maps is None:
        maps, torch_version = load_hipify_maps()
    path = Path(overrides) if overrides is not None else assets.overrides_file()
    ovr = load_overrides(path)
    extra_overrides = list(extra_overrides)
    for extra in extra_overrides:
        user = load_overrides(extra)
        ovr.aliases += user.aliases
        ovr.const_types = user.const_types + ovr.const_types
        ovr.undeclared = user.undeclared + ovr.undeclared

    entries: dict[str, Alias] = {}
    skipped = 0
    for map_name, mapping in maps.items():
        for cuda, hip in mapping.items():
            if not isinstance(hip, str):  # older torch: (hip, CONV_*, API_*) tuples
                hip = hip[0]
            kind = _classify(cuda, hip, map_name)
            if not _usable(cuda, hip, kind):
                skipped += 1
                continue
            if cuda in entries:
                continue
            entries[cuda] = Alias(cuda, hip, kind, f"hipify:{map_name}")
    for alias in ovr.aliases:
        entries[alias.cuda] = alias
    dropped: list[Alias] = []
    if names is not None:
        kept, dropped = verify(entries.values(), names, ovr.undeclared, str(path))
        entries = {a.cuda: a for a in kept}
    for cuda, alias in entries.items():
        if alias.kind == "function" or (alias.kind == "const" and alias.const_type is None):
            rule = next((r for r in ovr.const_types if r.matches(alias.hip)), None)
            if rule is not None:
                entries[cuda] = replace(alias, kind="const", const_type=rule.type)
    files = ", ".join(map(str, [path, *extra_overrides]))
    return AliasTable(entries=entries, torch_version=torch_version, overrides_file=files,
                      skipped=skipped, dropped=dropped,
                      headers=f"{names.compiler_version}: {', '.join(names.include_dirs)}" if names else "",
                      held_to=held_to(names.include_dirs) if names else "")
