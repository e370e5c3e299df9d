"""Process liveness, shared by the supervisor's fallback watch and the driver's reaping check."""

from __future__ import annotations


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (read from /proc, no signal sent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
