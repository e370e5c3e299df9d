"""The records of `port fix`: a repair (one edit of the CUDA source), its verifications, a finding
left for a person, and the per-file and whole-run results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA = "rocm-port/fix/1"

# the verification steps, in the order they run; each records "pass", "fail" or "skipped: why"
STEPS = ("nvcc", "check", "emulate")


@dataclass
class Repair:
    """Replace ``text[start:end]`` (``old``) by ``new``; ``rule`` is the audit rule id it answers."""
    path: str  # relative to the root it was found under
    line: int
    col: int
    start: int
    end: int
    old: str
    new: str
    rule: str
    kind: str  # the repair class: mask, ballot, shift, lane-math, warp-array, shuffle-width, mask-const
    why: str
    status: str = "proposed"  # proposed -> offered | withdrawn
    reason: str = ""  # why it was withdrawn
    verifications: dict[str, str] = field(default_factory=dict)
    needs_header: bool = False  # the replacement names GPU_FULL_MASK

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "col": self.col, "rule": self.rule, "kind": self.kind,
                "old": self.old, "new": self.new, "why": self.why, "status": self.status,
                "reason": self.reason, "verifications": dict(self.verifications)}


@dataclass
class Note:
    """A hazard `port fix` saw but does not repair (it is not sure what the code means)."""
    path: str
    line: int
    col: int
    rule: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "col": self.col, "rule": self.rule, "message": self.message}


@dataclass
class FileFix:
    path: str  # as shown (relative to its root)
    root: str  # the tree the file was found in (absolute)
    original: str
    repairs: list[Repair] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    emulation: dict[str, Any] = field(default_factory=dict)  # before/after verdicts when it ran
    problem: str = ""

    def offered(self) -> list[Repair]:
        return [r for r in self.repairs if r.status == "offered"]


@dataclass
class FixResult:
    files: list[FileFix]
    problems: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # --out copies

    def counts(self) -> dict[str, int]:
        reps = [r for f in self.files for r in f.repairs]
        emus = [f.emulation for f in self.files if f.emulation]
        return {"files": len(self.files), "repairs": len(reps),
                "offered": sum(r.status == "offered" for r in reps),
                "withdrawn": sum(r.status == "withdrawn" for r in reps),
                "notes": sum(len(f.notes) for f in self.files),
                "emulated": len(emus),
                "diverged_before": sum(e.get("before") == "diverged" for e in emus),
                "diverged_to_agree": sum(e.get("before") == "diverged" and e.get("after") == "same" for e in emus)}

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "summary": self.counts(),
                "files": [{"path": f.path, "repairs": [r.to_json() for r in f.repairs],
                           "notes": [n.to_json() for n in f.notes], "emulation": f.emulation or None,
                           "problem": f.problem or None} for f in self.files],
                "problems": list(self.problems), "applied": list(self.applied), "written": list(self.written)}
