"""The alias table as generated, shipped for machines that cannot hold it to headers.

``port aliases generate`` verifies every target against ROCm 7's headers (clang reads them:
``porting.aliases.ground_truth``), which needs the headers and a clang 20+. A wheel user
scanning a Rust tree on a laptop has neither. The same generation writes
``hip_aliases/alias_table.json``: the verified table, with what it was held to (the HIP
version of the headers, never a machine's paths, so every checkout generates the same bytes;
``generate --check`` keeps it current like the other generated files). ``scan`` and ``table``
fall back to it, saying so, when this machine has no ROCm 7 headers and no user overrides.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from ..parsing import load_json, loads_json
from .table import AliasTable

NAME = "alias_table.json"


def render(table: AliasTable) -> str:
    """Stable, machine-independent JSON: one entry per line (diffs stay readable)."""
    data = table.to_json()
    data["headers"] = table.held_to
    data["overrides_file"] = "hip_aliases/overrides.toml"
    entries, dropped = data.pop("entries"), data.pop("dropped")
    head = json.dumps(data, sort_keys=True)
    lines = ["{", f'  "meta": {head},', '  "entries": [']
    lines += [f"    {json.dumps(e, sort_keys=True)}," for e in entries]
    if entries:
        lines[-1] = lines[-1].rstrip(",")
    lines.append("  ],")
    lines.append('  "dropped": [')
    lines += [f"    {json.dumps(e, sort_keys=True)}," for e in dropped]
    if dropped:
        lines[-1] = lines[-1].rstrip(",")
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def load(path: Path) -> AliasTable:
    return _from_data(load_json(path), str(path))


def load_text(text: str, where: str) -> AliasTable:
    return _from_data(loads_json(text, where), where)


def _from_data(data: object, path: str) -> AliasTable:
    if not isinstance(data, dict) or not isinstance(data.get("meta"), dict):
        raise InputError(f"{path}: not an alias table snapshot (no meta)")
    try:
        return AliasTable.from_json({**data["meta"], "entries": data.get("entries", []),
                                     "dropped": data.get("dropped", [])})
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{path}: unreadable alias table snapshot: {exc}") from None
