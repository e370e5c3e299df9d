"""The exemption registry, as the report reads it (``matrix.exemptions``, TOML).

Each entry is a table in an ``[[exemption]]`` (or ``[[exemptions]]``) array::

    [[exemption]]
    id = "rdma-ibverbs-gfx90a"          # optional; defaults to the test pattern
    test = "tests/rdma/*ibverbs*"       # fnmatch pattern over the test id (required)
    platform = "rocm"                   # optional: rocm / cuda / cpu / a column key pattern
    reason = "no ibverbs on MI210 CI"   # required
    link = "https://github.com/..."     # required
    expires = 2026-12-31                # required (TOML date or "YYYY-MM-DD")

An exemption without a reason, a link or an expiry is not honoured (it is listed as invalid).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError


@dataclass(frozen=True)
class Exemption:
    id: str
    test: str
    platform: str
    reason: str
    link: str
    expires: dt.date | None

    def matches(self, test_id: str, column_key: str, platform: str) -> bool:
        if self.platform and not (self.platform == platform or fnmatch.fnmatchcase(column_key, self.platform)):
            return False
        return self.id == test_id or fnmatch.fnmatchcase(test_id, self.test) or self._nodeid_match(test_id)

    def _nodeid_match(self, test_id: str) -> bool:
        # Registries often use pytest node ids (tests/a/test_b.py::test_c); JUnit ids are
        # tests.a.test_b::test_c. Compare both spellings.
        spelled = self.test.replace(".py::", "::").replace("/", ".")
        return fnmatch.fnmatchcase(test_id, spelled)

    def expired(self, today: dt.date) -> bool:
        return self.expires is None or self.expires < today

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "test": self.test, "platform": self.platform, "reason": self.reason,
                "link": self.link, "expires": self.expires.isoformat() if self.expires else None}


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def load_exemptions(path: str | Path) -> tuple[list[Exemption], list[str]]:
    """Return (valid exemptions, problems). A missing file is an empty registry."""
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    file = Path(path)
    if not file.is_file():
        return [], []
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{file}: cannot read exemption registry: {exc}") from None
    entries = data.get("exemption", data.get("exemptions", []))
    if not isinstance(entries, list):
        raise InputError(f"{file}: 'exemption' must be an array of tables ([[exemption]])")
    valid: list[Exemption] = []
    problems: list[str] = []
    for n, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            problems.append(f"{file}: exemption #{n} is not a table")
            continue
        test = str(entry.get("test") or entry.get("pattern") or entry.get("id") or "")
        ex = Exemption(id=str(entry.get("id") or test), test=test, platform=str(entry.get("platform") or ""),
                       reason=str(entry.get("reason") or ""), link=str(entry.get("link") or entry.get("url") or ""),
                       expires=_date(entry.get("expires")))
        missing = [k for k, v in (("test", ex.test), ("reason", ex.reason), ("link", ex.link),
                                  ("expires", ex.expires)) if not v]
        if missing:
            problems.append(f"{file}: exemption #{n} ({ex.id or '?'}) lacks {', '.join(missing)}; not honoured")
            continue
        valid.append(ex)
    return valid, problems
