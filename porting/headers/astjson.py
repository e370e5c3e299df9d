"""Declarations out of ``clang -Xclang -ast-dump=json``, filtered to a set of header roots.

Two facts about clang's JSON dumper shape this reader:

* A source location names its ``file`` only when it differs from the previously printed
  location (JSONNodeDumper de-duplicates), so the file of a declaration is known only by
  following every location in print order. ``includedFrom`` objects do not move that state.
* The dump of one translation unit that includes libstdc++ is hundreds of MB, nearly all of
  it outside the headers asked about. The top-level declarations are printed one per block at
  a fixed indent, so blocks that never mention a file under the roots are skipped after a
  regex pass (which also yields the file state they leave behind) instead of being decoded.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from .model import Decl

_TOP_OPEN, _TOP_CLOSE = "\n    {\n", "\n    }"
_FILE_MARK, _INCLUDED_FROM = '"file": "', '"includedFrom": {'
_RESOLVED = " at"  # (file, line) stamped on decoded locations (a space: clang never prints such a key)
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*')

_TYPE_KINDS = {"TypedefDecl", "TypeAliasDecl", "TypeAliasTemplateDecl", "RecordDecl", "CXXRecordDecl",
               "ClassTemplateDecl", "EnumDecl"}
_KIND_OF = {"FunctionDecl": "function", "FunctionTemplateDecl": "function", "VarDecl": "variable",
            "VarTemplateDecl": "variable", "EnumConstantDecl": "enum_constant",
            **{k: "type" for k in _TYPE_KINDS}}
# children of these are declarations in the same (or a named) scope; anything else is a leaf
_SCOPES = {"TranslationUnitDecl", "LinkageSpecDecl", "NamespaceDecl", "EnumDecl", "ExportDecl"}


def _unescape(raw: str) -> str:
    return json.loads(f'"{raw}"') if "\\" in raw else raw


def top_level_blocks(text: str) -> Iterator[str]:
    """The top-level declarations of a TranslationUnitDecl dump, one JSON text each (found by
    their fixed indent: deeper lines carry more spaces, so the markers cannot match them)."""
    pos = text.find(_TOP_OPEN)
    while pos != -1:
        end = text.find(_TOP_CLOSE, pos + 1)
        if end == -1:
            return
        yield text[pos + 1:end + len(_TOP_CLOSE)]
        pos = text.find(_TOP_OPEN, end)


def _last_moving_file(block: str) -> str | None:
    """The last location file printed in ``block`` that moves the dumper's state."""
    end = len(block)
    while True:
        at = block.rfind(_FILE_MARK, 0, end)
        if at == -1:
            return None
        if not block[max(0, at - 64):at].rstrip().endswith(_INCLUDED_FROM):
            start = at + len(_FILE_MARK)
            m = _STRING_BODY.match(block, start)
            return _unescape(m.group(0)) if m else None
        end = at


class _Collector:
    """Walks blocks in print order, keeping clang's 'last printed file' state."""

    def __init__(self, wanted: Callable[[str], bool], markers: tuple[str, ...]) -> None:
        self.wanted = wanted
        self.markers = markers  # root path strings: a block naming none of them is skipped unread
        self.state = ""
        self.line = 0  # lines are de-duplicated like files: printed only when they change
        self.decls: dict[str, Decl] = {}
        self.nodiscard_types: set[str] = set()

    def feed(self, block: str) -> None:
        if not self.wanted(self.state) and not any(m in block for m in self.markers):
            self.state = _last_moving_file(block) or self.state  # cheap: no root is mentioned
            return
        self._decode(block)

    def _located(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        """json object hook, called as each object closes, i.e. for locations in print order:
        moves the state on a location that names a file (an ``includedFrom`` object names only
        a file and does not), and stamps every location with the file it resolves to."""
        node = dict(pairs)
        if "file" in node and len(node) > 1:
            self.state = node["file"]
        if "line" in node:
            self.line = node["line"]
        if "offset" in node or "expansionLoc" in node or not node:
            node[_RESOLVED] = (self.state, self.line)
        return node

    def _decode(self, block: str) -> None:
        self._scope(json.loads(block, object_pairs_hook=self._located), "")

    def _scope(self, node: dict[str, Any], scope: str) -> None:
        """Record ``node`` if it is a wanted declaration, then the declarations it scopes."""
        kind, name = node.get("kind"), node.get("name")
        file, line = (node.get("loc") or {}).get(_RESOLVED, ("", 0))
        if kind in _KIND_OF and name and not node.get("isImplicit") and self.wanted(file):
            self._record(node, _KIND_OF[kind], f"{scope}{name}", file, line)
        if kind == "NamespaceDecl":
            if not name:
                return  # anonymous namespace: nothing in it is nameable from outside
            scope = f"{scope}{name}::"
        elif kind == "EnumDecl":
            scope = f"{scope}{name}::" if node.get("scopedEnumTag") else scope
        elif kind not in _SCOPES:
            return
        for child in node.get("inner", ()):
            self._scope(child, scope)

    def _record(self, node: dict[str, Any], kind: str, name: str, file: str, line: int) -> None:
        attrs = {a.get("kind"): a for a in node.get("inner", []) if isinstance(a, dict)}
        decl = self.decls.get(name)
        if decl is None:
            decl = self.decls[name] = Decl(name, [], file, int(line))
        if kind not in decl.kinds:
            decl.kinds.append(kind)
        if "DeprecatedAttr" in attrs and decl.deprecated is None:
            decl.deprecated = attrs["DeprecatedAttr"].get("message", "")
        if "UnavailableAttr" in attrs and decl.unavailable is None:
            decl.unavailable = attrs["UnavailableAttr"].get("message", "")
        if "WarnUnusedResultAttr" in attrs:
            decl.nodiscard = True
            if kind == "type":
                self.nodiscard_types.add(name)
        if kind == "function" and decl.returns is None:
            qual = (node.get("type") or {}).get("qualType", "")
            decl.returns = qual.split("(", 1)[0].strip() or None

    def finish(self) -> dict[str, Decl]:
        """Functions returning a [[nodiscard]] type (ROCm 7's hipError_t) are nodiscard too."""
        for decl in self.decls.values():
            if decl.returns in self.nodiscard_types:
                decl.nodiscard = True
        return self.decls


def collect(text: str, wanted: Callable[[str], bool], markers: tuple[str, ...]) -> dict[str, Decl]:
    """Declarations under the roots; ``markers`` are the roots' path strings as clang prints them
    (the include dirs it was given)."""
    collector = _Collector(wanted, markers)
    for block in top_level_blocks(text):
        collector.feed(block)
    return collector.finish()


def under_roots(roots: list[str]) -> Callable[[str], bool]:
    """A memoised 'is this file under one of the roots' test (files are printed unnormalised)."""
    prefixes = tuple(os.path.join(os.path.realpath(r), "") for r in roots)
    memo: dict[str, bool] = {}

    def wanted(file: str) -> bool:
        if file not in memo:
            memo[file] = bool(file) and os.path.realpath(file).startswith(prefixes)
        return memo[file]

    return wanted
