"""The record of what a header set declares: one ``Decl`` per name, grouped by kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

HEADER_NAMES_SCHEMA = 1
KINDS = ("function", "type", "enum_constant", "macro", "variable")


@dataclass
class Decl:
    """One declared name. A name declared several times (overloads, a struct and its typedef,
    a macro over a function) is one Decl whose ``kinds`` lists every kind it was seen as."""

    name: str  # qualified for namespaced / scoped-enum names ("hip_impl::f", "E::X")
    kinds: list[str]
    file: str  # the first declaration's file (expansion location)
    line: int
    deprecated: str | None = None  # the message ("" when none was given); None: not deprecated
    unavailable: str | None = None  # __attribute__((unavailable)) / = delete-like removals
    nodiscard: bool = False  # [[nodiscard]] on the decl, or a function returning a nodiscard type
    returns: str | None = None  # functions: the return type as clang spells it

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kinds": list(self.kinds), "file": self.file, "line": self.line}
        for key in ("deprecated", "unavailable", "returns"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.nodiscard:
            out["nodiscard"] = True
        return out

    @classmethod
    def from_json(cls, name: str, data: dict[str, Any]) -> Decl:
        return cls(name, list(data["kinds"]), data["file"], int(data["line"]), data.get("deprecated"),
                   data.get("unavailable"), bool(data.get("nodiscard", False)), data.get("returns"))


@dataclass
class HeaderNames:
    """What ``declared_names`` read: the names, and how (compiler, flags, files) they were read."""

    compiler: str
    compiler_version: str
    language: str
    headers: list[str]
    include_dirs: list[str]
    roots: list[str]  # a declaration counts when its file lies under one of these
    decls: dict[str, Decl]
    files: list[str] = field(default_factory=list)  # header files under roots that were read
    cached: bool = False  # answered from the on-disk cache (not serialised)
    schema: int = HEADER_NAMES_SCHEMA

    def __contains__(self, name: object) -> bool:
        return name in self.decls

    def kinds(self, name: str) -> list[str]:
        decl = self.decls.get(name)
        return list(decl.kinds) if decl else []

    def names(self, kind: str | None = None) -> set[str]:
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown declaration kind {kind!r} (expected one of {', '.join(KINDS)})")
        return {n for n, d in self.decls.items() if kind is None or kind in d.kinds}

    @property
    def by_kind(self) -> dict[str, set[str]]:
        return {k: self.names(k) for k in KINDS}

    def deprecated(self) -> dict[str, str]:
        """name -> deprecation message, for every deprecated name."""
        return {n: d.deprecated for n, d in self.decls.items() if d.deprecated is not None}

    def nodiscard(self) -> set[str]:
        return {n for n, d in self.decls.items() if d.nodiscard}

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "compiler": self.compiler, "compiler_version": self.compiler_version,
                "language": self.language, "headers": list(self.headers), "include_dirs": list(self.include_dirs),
                "roots": list(self.roots), "files": list(self.files),
                "decls": {n: d.to_json() for n, d in sorted(self.decls.items())}}

    @classmethod
    def from_json(cls, data: Any, where: str = "header names") -> HeaderNames:
        if not isinstance(data, dict) or data.get("schema") != HEADER_NAMES_SCHEMA:
            raise InputError(f"{where}: not a schema-{HEADER_NAMES_SCHEMA} header-names record")
        try:
            return cls(data["compiler"], data["compiler_version"], data["language"], list(data["headers"]),
                       list(data["include_dirs"]), list(data["roots"]),
                       {n: Decl.from_json(n, d) for n, d in data["decls"].items()}, list(data["files"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: malformed header-names record ({exc})") from None
