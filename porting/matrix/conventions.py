"""A project's own skip/disable conventions, read as exemptions when its suite runs (``--suite``).

Upstream suites say in their own words what their CI does not run: Monarch marks tests
``oss_skip`` (skipped in its open-source CI), keeps "DISABLED <test>" lists in a file, and,
like torchft, skips GPU tests with ``skipif``/``skipUnless`` on the device. A certification run
must not count those as passes or as our failures: each becomes an exemption with an id, the
reason (the project's own words where it gave some) and an expiry by which the list is
reviewed again (an expired convention fails the run, as an expired registry entry does).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

# A skip reason that says the test needs a device this host lacks.
_NEEDS_DEVICE = re.compile(r"\b(cuda|gpus?|nccl|rccl|rdma|ibverbs|infiniband|device)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Convention:
    id: str
    reason: str
    tracking: str
    expires: dt.date


OSS_SKIP = Convention("UP-OSS-SKIP", "the project marks it oss_skip (not run in its open-source CI)",
                      "upstream marker oss_skip", dt.date(2027, 6, 30))
DISABLED = Convention("UP-DISABLED", "listed in the project's disabled-tests file",
                      "upstream disabled-tests list", dt.date(2027, 6, 30))
NEEDS_DEVICE = Convention("UP-NEEDS-DEVICE", "the project's own skip: it needs a device this host lacks",
                          "upstream skipif/skipUnless", dt.date(2027, 6, 30))
ALL = (OSS_SKIP, DISABLED, NEEDS_DEVICE)


def read_disabled(paths: Iterable[Path]) -> frozenset[str]:
    """Entries of "DISABLED <test>" files: one per line, the prefix optional, # comments."""
    out: set[str] = set()
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the disabled-tests list ({exc.strerror})") from None
        for line in text.splitlines():
            entry = line.split("#", 1)[0].strip()
            if entry.startswith("DISABLED "):
                entry = entry[len("DISABLED "):].strip()
            if entry:
                out.add(entry)
    return frozenset(out)


def is_disabled(nodeid: str, disabled: frozenset[str]) -> bool:
    """Monarch's rule: a whole node id, a file/class prefix at a ``::`` or ``[`` boundary, or
    a bare test name (with or without parameters)."""
    name = nodeid.rsplit("::", 1)[-1]
    for entry in disabled:
        if nodeid == entry or name == entry or name.startswith(f"{entry}["):
            return True
        if nodeid.startswith((f"{entry}::", f"{entry}[")):
            return True
    return False


def device_skip_reason(item: Any) -> str | None:
    """The project's own reason when it skips ``item`` for a missing device, decided at
    collection: a ``skipif`` whose condition is already True, or unittest's ``skipUnless``."""
    for mark in item.iter_markers("skipif"):
        reason = str(mark.kwargs.get("reason", ""))
        conditions = mark.args or (mark.kwargs.get("condition"),)
        if all(c is True for c in conditions) and _NEEDS_DEVICE.search(reason):
            return reason
    for obj in (getattr(item, "obj", None), getattr(item, "cls", None)):
        if getattr(obj, "__unittest_skip__", False):
            why = str(getattr(obj, "__unittest_skip_why__", ""))
            if _NEEDS_DEVICE.search(why):
                return why
    return None


def match(item: Any, disabled: frozenset[str]) -> tuple[Convention, str] | None:
    """The convention that exempts ``item`` and the project's words for it, if any."""
    mark = item.get_closest_marker("oss_skip")
    if mark is not None:
        return OSS_SKIP, str(mark.kwargs.get("reason") or (mark.args[0] if mark.args else ""))
    if disabled and is_disabled(item.nodeid, disabled):
        return DISABLED, f"DISABLED {item.nodeid.rsplit('::', 1)[-1]}"
    reason = device_skip_reason(item)
    if reason is not None:
        return NEEDS_DEVICE, reason
    return None
