"""The ``port.*`` JUnit testsuite properties: every name declared once (docs/junit-properties.md).

Producers (``porting.fingerprint``, the matrix plugin, ``porting.matrix.scheduler``, ``port
soak``) write them; ``port report`` reads them into ``RunInfo`` fields. Each entry is the property
name and the ``RunInfo`` field it fills (None: read by the reader's own logic, e.g.
``port.complete``). A test holds producers, reader and the documentation to this table.
"""

from __future__ import annotations

import re
from pathlib import Path

SCHEMA = "1"

PROPERTIES: dict[str, str | None] = {
    "port.schema": None,
    "port.platform": "platform",
    "port.path": "path",
    "port.rocm_version": "rocm_version",
    "port.rocm_usable": "rocm_usable",
    "port.cuda_version": "cuda_version",
    "port.gpu_arch": "gpu_arch",
    "port.torch_version": "torch_version",
    "port.torch_flavour": "torch_flavour",
    "port.monarch_version": "monarch_version",
    "port.monarch_flavour": "monarch_flavour",
    "port.rdma_backend": "rdma_backend",
    "port.host": "host",
    "port.run_id": "run_id",
    "port.shard": "shard",
    "port.complete": None,
    "port.incomplete_reason": None,
    "port.collected": None,
    "port.runner": "runner",
    "port.runner_detail": "runner_detail",
}
# The most shards one run may have (``port.shard`` "I/N", `port matrix --shard`, a Slurm array or an
# Indexed Job): the report lists every shard of a run, so N must be a count a cluster can have,
# never one a forged file picks to make the reader allocate (a Slurm array is at most 4M tasks
# by MaxArraySize, but no matrix of ours is split in more than a few hundred).
MAX_SHARDS = 10_000

# Properties a label (`port report --label FILE=rocm-7.0.2/gfx942`) overrides: the platform facts.
LABELLED = ("platform", "rocm_version", "cuda_version", "gpu_arch", "rocm_usable")


def run_fields() -> dict[str, str]:
    """property -> RunInfo field, for the reader."""
    return {name: attr for name, attr in PROPERTIES.items() if attr is not None}


# Per testcase: the component it checks (`component`), and the exemption applied (`exemption`).
COMPONENT = "component"
EXEMPTION = "exemption"
# A suite run with --rerun-failures: the outcomes of a failed test run again alone after the run,
# comma-separated in order (`failed,passed`: one `passed` makes it flaky; the testcase keeps its
# failure, which is what the verdict reads).
RERUN = "rerun"
# Leading test-tree directories that name no component.
_TEST_ROOTS = ("tests", "test", "test_matrix")


def default_component(test_id: str) -> str:
    """The component of a test that does not say: the first element of its id below a test
    root (``test_matrix/rdma/test_x.py::t`` and ``tests.rdma.test_x::t`` -> ``rdma``)."""
    parts = [p for p in re.split(r"[/.:\\]+", test_id) if p]
    while len(parts) > 1 and parts[0] in _TEST_ROOTS:
        parts = parts[1:]
    return parts[0] if parts else "(none)"


# A suite run's working directory (`<JUnit stem>.work/`, porting.commands.matrix): Monarch's
# tests write `.monarch/` and whatever else into the current directory, so it lives in the JUnit
# directory; the readers that take every *.xml under a directory skip it.
WORK_SUFFIX = ".work"  # porting.commands.matrix names the directory with it


def junit_files_under(directory: Path) -> list[Path]:
    """Every *.xml file under ``directory``, except in suite runs' working directories."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.rglob("*.xml")
                  if p.is_file() and not any(d.endswith(WORK_SUFFIX) for d in p.relative_to(directory).parts[:-1]))

