"""Shared fixtures of the certification matrix.

Loaded only for test_matrix/ (the porting.matrix plugin is what activates the matrix).
Expensive subjects are shared: one rank pool per pytest process (session scope), Monarch
proc meshes per module. On GPU hosts the same cases run on device tensors and the
accelerator's process group (NCCL, which is RCCL on ROCm torch).
"""

from __future__ import annotations

import os

# Before Monarch is imported anywhere in this process: supervision polls every second
# (the default is about 10 s), which the supervision pack measures.
os.environ.setdefault("HYPERACTOR_MESH_SUPERVISION_POLL_FREQUENCY", "1s")

import pytest  # noqa: E402

from porting.matrix.facts import facts_for_process  # noqa: E402


@pytest.fixture(scope="session")
def facts():
    return facts_for_process(os.environ)


@pytest.fixture(scope="session")
def device(facts) -> str:
    """'cuda' on CUDA and ROCm hosts (torch names both so), else 'cpu'."""
    return "cuda" if facts.platform in ("cuda", "rocm") else "cpu"


@pytest.fixture(scope="session")
def fault_log():
    """Replace Monarch's client-side unhandled-fault hook for the whole session.

    The default hook ends the client (a KeyboardInterrupt in the pytest worker) when a mesh
    it owns fails; the supervision pack kills procs on purpose. Faults are recorded instead.
    """
    import monarch.actor

    seen: list[str] = []
    original = monarch.actor.unhandled_fault_hook

    def record(failure) -> None:
        seen.append(str(failure))

    monarch.actor.unhandled_fault_hook = record
    yield seen
    monarch.actor.unhandled_fault_hook = original


@pytest.fixture(scope="session")
def rank_pools(facts):
    """One persistent pool of ranks per backend per pytest process: gloo (4 CPU ranks) and,
    where there are GPUs, NCCL/RCCL over min(4, visible GPUs) device ranks."""
    from porting.matrix.rank_pool import RankPool

    holders: dict[str, PoolHolder] = {}

    def get(backend: str) -> PoolHolder:
        if backend not in holders:
            if backend == "nccl":
                world, device = min(4, facts.gpu_count), "cuda"
            else:
                world, device = 4, "cpu"
            if world < 2:
                pytest.skip(f"DTensor cases need 2 ranks; detection: {facts.gpu_count} GPU(s)")
            holders[backend] = PoolHolder(lambda: RankPool(world_size=world, backend=backend, device=device))
        return holders[backend]

    yield get
    for holder in holders.values():
        holder.close()


@pytest.fixture
def backend() -> str:
    """The DTensor backend of a case (packs parametrize it with porting.matrix.params.BACKENDS)."""
    return "gloo"


@pytest.fixture
def rank_pool(rank_pools, backend):
    return rank_pools(backend)


class PoolHolder:
    """Builds the pool on first use and rebuilds it if a rank died (that case fails; later ones run)."""

    def __init__(self, make) -> None:
        self._make = make
        self._pool = None

    @property
    def world_size(self) -> int:
        return self.get().world_size

    def get(self):
        if self._pool is not None and self._pool.broken:
            self._pool.close()
            self._pool = None
        if self._pool is None:
            self._pool = self._make()
        return self._pool

    def run(self, fn, ranks=None, **kwargs):
        from porting.matrix.rank_pool import run_case

        return run_case(self.get(), fn, ranks=ranks, **kwargs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


@pytest.fixture(scope="session")
def native_libs(facts):
    """``lib_for(memory)``: the native build for that placement (porting.native.load_for:
    cpu build for host memory, this platform's GPU build for device memory); skips with the
    reason if that build is absent."""
    try:
        from porting import native
    except ImportError as exc:
        pytest.skip(f"porting.native not importable: {exc}")
    gpu_path = facts.properties.get("port.path") if facts.platform in ("cuda", "rocm") else None

    def lib_for(memory: str):
        try:
            return native.load_for(memory, gpu_path)
        except native.NativeError as exc:
            _absent_or_fail(native, exc, f"native build for {memory} memory")

    return lib_for


def _absent_or_fail(native, exc, what: str):
    """No build for this machine: the cases skip with the reason. A build that was made (its
    record says it succeeded) but does not load is a broken port: the cases error, never skip."""
    if native.absent(exc):
        pytest.skip(f"{what} absent: {exc}")
    pytest.fail(f"{what} was built but does not load: {exc}", pytrace=False)
