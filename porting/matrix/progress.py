"""Progress a person can read during a long matrix or suite run.

Instead of pytest's rows of dots: tests done of total, pass/fail/skip counts and an estimate
of the time left (mean time per finished test so far, times the tests left). A line is
written when the done count crosses each step (about every 2 % of the run, at least every
25 tests) and at the end, so a 1,500-test run prints about fifty lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OUTCOMES = ("passed", "failed", "skipped")


@dataclass
class Progress:
    total: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    started: float | None = None
    step: int = 1
    _seen: set[str] = field(default_factory=set)

    def start(self, total: int, now: float | None = None) -> None:
        """The run's size, and (once) when its first test began."""
        self.total = total
        if self.started is None:
            self.started = now
        self.step = max(1, min(25, total // 50))

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def add(self, nodeid: str, outcome: str, now: float) -> str | None:
        """Count one finished test; the line to print, or None."""
        if self.started is None:
            self.started = now
        if nodeid in self._seen or outcome not in self.counts:
            return None
        self._seen.add(nodeid)
        self.counts[outcome] += 1
        done = self.done
        if done % self.step and done != self.total:
            return None
        return self.line(now)

    def eta_s(self, now: float) -> float | None:
        done = self.done
        if self.started is None or done == 0 or not self.total:
            return None
        return (now - self.started) / done * max(0, self.total - done)

    def line(self, now: float) -> str:
        c = self.counts
        total = str(self.total) if self.total else "?"
        eta = self.eta_s(now)
        left = "?" if eta is None else format_duration(eta)
        return (f"port matrix: {self.done}/{total} tests done: {c['passed']} passed, {c['failed']} failed, "
                f"{c['skipped']} skipped; about {left} left")


def format_duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
