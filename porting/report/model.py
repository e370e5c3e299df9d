"""The typed parity model: runs (one per JUnit input), columns (platforms), the matrix.

Data flows one way: JUnit files -> ``Run`` (junit_reader) -> ``Matrix`` (matrix_builder)
-> ``Verdict`` (verdict) -> renderers. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Status of one test on one platform, in display order.
PASSED = "passed"
FAILED = "failed"
ERROR = "error"
SKIPPED = "skipped"
XFAILED = "xfailed"
XPASSED = "xpassed"
MISSING = "missing"
STATUSES: tuple[str, ...] = (PASSED, FAILED, ERROR, SKIPPED, XFAILED, XPASSED, MISSING)
RAN = (PASSED, FAILED, ERROR, XFAILED, XPASSED)  # denominators of pass rates

# When one platform has the same test more than once (two runs on one platform), the
# worse outcome wins: a pass never hides a failure.
SEVERITY = {PASSED: 0, SKIPPED: 1, XFAILED: 2, XPASSED: 3, MISSING: 4, FAILED: 5, ERROR: 6}


@dataclass(slots=True)  # 100,000s per report: slots make each smaller and quicker to make
class Case:
    """One test's outcome in one run."""

    test_id: str
    component: str
    status: str
    duration: float = 0.0
    message: str = ""  # first line of the failure/error/skip message
    exemption: str = ""  # the `exemption` testcase property, if any


@dataclass
class RunInfo:
    """Where one JUnit file came from, and whether its evidence is whole."""

    file: str
    platform: str = ""  # cuda / rocm / cpu / "" (unknown)
    path: str = ""
    rocm_version: str = ""
    rocm_usable: str = ""
    cuda_version: str = ""
    gpu_arch: str = ""
    torch_version: str = ""
    torch_flavour: str = ""
    monarch_version: str = ""
    monarch_flavour: str = ""  # the GPU build torchmonarch was made as (cuda / rocm / none)
    rdma_backend: str = ""
    host: str = ""
    run_id: str = ""
    shard: str = ""
    runner: str = ""  # github-actions / slurm / kubernetes / local ("" = not recorded)
    runner_detail: str = ""  # which job of which run on which runner
    timestamp: str = ""  # when the run started (the testsuite's timestamp)
    collected: int | None = None
    source: str = "properties"  # properties / label / none
    complete: bool = True
    problems: list[str] = field(default_factory=list)  # why the run is incomplete
    warnings: list[str] = field(default_factory=list)  # recovered oddities (encoding, ...)
    tests: int = 0
    external: bool = False  # made elsewhere and handed in (`port certify --reference`), not by this run
    provenance: str = ""  # "signed by KEY" / "manifest, unsigned" / "" (porting.provenance)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__, problems=list(self.problems), warnings=list(self.warnings))


@dataclass
class Run:
    info: RunInfo
    cases: dict[str, Case] = field(default_factory=dict)


@dataclass
class Column:
    """One platform of the matrix: every run with the same platform label is merged in."""

    key: str  # e.g. "rocm-7.0.2/gfx942", "cuda-13.0/sm_90", "cpu"
    platform: str  # cuda / rocm / cpu / ""
    version: str  # ROCm or CUDA version, "" for cpu/unknown
    gpu_arch: str
    runs: list[RunInfo] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # incomplete-evidence reasons

    @property
    def complete(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "platform": self.platform, "version": self.version,
                "gpu_arch": self.gpu_arch, "complete": self.complete,
                "problems": list(self.problems), "runs": [r.to_json() for r in self.runs]}


@dataclass(slots=True)
class Cell:
    status: str
    duration: float = 0.0
    message: str = ""
    exemption: str = ""


@dataclass
class Matrix:
    """test id x column -> Cell (absent = missing)."""

    columns: list[Column]
    components: dict[str, str]  # test id -> component
    cells: dict[str, dict[str, Cell]]  # test id -> column key -> Cell
    problems: list[str] = field(default_factory=list)  # input-level problems (unreadable files, ...)
    _totals: dict[str, dict[str, dict[str, int]]] | None = field(default=None, repr=False, compare=False)
    _ids: tuple[int, list[str]] | None = field(default=None, repr=False, compare=False)

    @property
    def test_ids(self) -> list[str]:
        """The test ids, sorted (sorted once: the verdict and every renderer walk them in this order;
        sorted again should the number of tests change)."""
        if self._ids is None or self._ids[0] != len(self.cells):
            self._ids = (len(self.cells), sorted(self.cells))
        return list(self._ids[1])

    def cell(self, test_id: str, column: str) -> Cell:
        return self.cells.get(test_id, {}).get(column) or Cell(MISSING)

    @property
    def partial(self) -> bool:
        return bool(self.problems) or any(not c.complete for c in self.columns)

    def partial_reasons(self) -> list[str]:
        reasons = list(self.problems)
        for col in self.columns:
            reasons.extend(f"{col.key}: {p}" for p in col.problems)
        return reasons

    def totals(self) -> dict[str, dict[str, dict[str, int]]]:
        """column key -> component ("*" = all) -> status -> count (computed once: the matrix is final)."""
        if self._totals is not None:
            return self._totals
        out: dict[str, dict[str, dict[str, int]]] = {col.key: {"*": dict.fromkeys(STATUSES, 0)} for col in self.columns}
        keys = list(out)
        components = self.components
        for test_id, row in self.cells.items():  # one pass over the rows for every column
            comp = components[test_id]
            for key in keys:
                cell = row.get(key)
                status = cell.status if cell else MISSING
                per = out[key]
                bucket = per.get(comp)
                if bucket is None:
                    bucket = per[comp] = dict.fromkeys(STATUSES, 0)
                bucket[status] += 1
                per["*"][status] += 1
        self._totals = out
        return out


def pass_rate(counts: dict[str, int]) -> float | None:
    ran = sum(counts.get(s, 0) for s in RAN)
    return counts.get(PASSED, 0) / ran if ran else None
