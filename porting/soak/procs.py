"""Process liveness and identity, shared by the supervisor's fallback watch and the driver's
reaping check.

A pid alone does not name a process for long: once a replica has exited its pid is free, and on a
busy host (pid_max 32768, compilers and test runs starting thousands of processes) another process
gets it within minutes. A soak run that killed "every pid it ever launched that is still alive"
killed whatever now held such a pid (seen in CI: another test's `sleep` died). A process is named
by its pid and its start time (``/proc/PID/stat`` field 22, clock ticks since boot): the launch
records carry both, and only a process with both is signalled.
"""

from __future__ import annotations


def _stat_fields(pid: int) -> list[str] | None:
    """``/proc/PID/stat`` after the command name (field 3, the state, is index 0), or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (read from /proc, no signal sent)."""
    fields = _stat_fields(pid)
    return fields is not None and bool(fields) and fields[0] != "Z"


def start_ticks(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot), or None when there is no such process."""
    fields = _stat_fields(pid)
    try:
        return int(fields[19]) if fields else None
    except (IndexError, ValueError):
        return None


def same_process_alive(pid: int, start: int | None) -> bool:
    """True while the process launched as ``pid`` at ``start`` lives (not a zombie). Without a
    recorded start time the process cannot be told from a later holder of its pid: False."""
    return start is not None and pid_alive(pid) and start_ticks(pid) == start
