"""Device cases that only a correct ROCm port passes (marker ``rocm_device``).

The rest of the matrix runs the same code on a CUDA and a ROCm GPU and cannot tell them
apart (torch calls both "cuda"). These cases can:

* identity: on a ROCm run torch is a HIP build, the GPU's gfx arch is the one detection
  recorded (``port.gpu_arch``) and a CDNA GPU (gfx9xx) runs 64-lane wavefronts;
* warp-level sum, max, inclusive scan and ballot count through the portable header
  (kernels/port_warp.cuh), compiled for this GPU and checked at its real width: a 32-lane
  assumption fails here on a wave64 GPU (and under ``port emulate`` at 64 lanes on any host,
  tests/matrix/test_device_kernels.py);
* RCCL collectives on device tensors (the library torch reports must be RCCL on ROCm);
* peer copies and IPC between two GPUs (skipped on one);
* HIP graph capture and replay, pinned and registered host memory (what RDMA registers),
  and ordering across streams.

Collected everywhere; skipped with detection's reason where there is no GPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.matrix.monarch_util import load_file

pytestmark = [pytest.mark.component("device"), pytest.mark.rocm_device,
              pytest.mark.requires(device="gpu", why="rocm_device: a case about the GPU itself")]

_here = Path(__file__).resolve().parent
cases = load_file(_here / "device_cases.py", "port_matrix_device_cases")
KERNELS = _here / "kernels"
TWO_GPUS = pytest.mark.requires(device="gpu", world_size=2, why="two GPUs: one rank or peer per device")
SIZES = [64, 1000, 4096]  # one wave64; a partial last wavefront; many blocks


def _wave_width_for(arch: str) -> int | None:
    """The wavefront width a gfx arch runs by default: 64 on GCN/CDNA (gfx9xx), 32 on RDNA."""
    if arch.startswith("gfx9"):
        return 64
    if arch.startswith(("gfx10", "gfx11", "gfx12")):
        return 32
    return None


# ---- identity ---------------------------------------------------------------------------

def test_torch_build_matches_the_platform(facts):
    import torch

    if facts.platform == "rocm":
        assert torch.version.hip, "a ROCm run with a torch that is not a HIP build (the CUDA wheel?)"
    else:
        assert torch.version.hip is None and torch.version.cuda


def test_gpu_arch_is_the_recorded_one(facts):
    import torch

    recorded = [a for a in facts.properties.get("port.gpu_arch", "").split(",") if a]
    name = getattr(torch.cuda.get_device_properties(0), "gcnArchName", "")
    if facts.platform != "rocm":
        pytest.skip("gfx arch: a ROCm GPU property (this run is CUDA)")
    assert recorded, "detection recorded no gfx arch for a ROCm run"
    assert name.split(":")[0] in recorded, f"torch sees {name}, detection recorded {recorded}"


def test_wavefront_width_is_the_archs(facts):
    import torch

    props = torch.cuda.get_device_properties(0)
    width = props.warp_size
    if facts.platform == "rocm":
        want = _wave_width_for(props.gcnArchName.split(":")[0])
        assert want is not None, f"unknown gfx family {props.gcnArchName}"
        assert width == want
    else:
        assert width == 32


# ---- warp-level kernels through the portable header ----------------------------------------

_WRAPPERS = r"""
#include <torch/extension.h>
#include "port_warp.cuh"

static int grid(int n) { return (n + 255) / 256; }

int64_t warp_size() {
  auto out = torch::zeros({1}, torch::dtype(torch::kInt32).device(torch::kCUDA));
  port_warp_size_kernel<<<1, 256>>>(out.data_ptr<int>());
  return out.item<int>();
}
torch::Tensor warp_sum(torch::Tensor x, int64_t width) {
  int n = x.numel();
  auto out = torch::zeros({grid(n) * 256 / width}, x.options());
  port_warp_sum_kernel<<<grid(n), 256>>>(x.data_ptr<float>(), n, out.data_ptr<float>());
  return out;
}
torch::Tensor warp_max(torch::Tensor x, int64_t width) {
  int n = x.numel();
  auto out = torch::zeros({grid(n) * 256 / width}, x.options());
  port_warp_max_kernel<<<grid(n), 256>>>(x.data_ptr<int>(), n, out.data_ptr<int>());
  return out;
}
torch::Tensor warp_scan(torch::Tensor x) {
  auto out = torch::zeros_like(x);
  port_warp_scan_kernel<<<grid(x.numel()), 256>>>(x.data_ptr<int>(), x.numel(), out.data_ptr<int>());
  return out;
}
torch::Tensor warp_ballot(torch::Tensor x, int64_t width) {
  int n = x.numel();
  auto out = torch::zeros({grid(n) * 256 / width}, x.options().dtype(torch::kInt32));
  port_warp_ballot_kernel<<<grid(n), 256>>>(x.data_ptr<float>(), n, out.data_ptr<int>());
  return out;
}
"""


@pytest.fixture(scope="module")
def warp_ops(tmp_path_factory):
    """port_warp.cuh compiled for this GPU by torch's extension builder (hipified on ROCm)."""
    from torch.utils.cpp_extension import load_inline

    build = tmp_path_factory.mktemp("warp-ops")
    return load_inline(name="port_warp_ops", cpp_sources="", cuda_sources=_WRAPPERS,
                       functions=["warp_size", "warp_sum", "warp_max", "warp_scan", "warp_ballot"],
                       extra_include_paths=[str(KERNELS)], build_directory=str(build), verbose=False)


def _per_warp(x, width, reduce):
    import torch

    pad = (-x.numel()) % 256
    padded = torch.cat([x.cpu(), torch.full((pad,), reduce[1], dtype=x.dtype)])
    return reduce[0](padded.view(-1, width))


def test_kernel_wave_width_is_the_devices(warp_ops):
    import torch

    assert warp_ops.warp_size() == torch.cuda.get_device_properties(0).warp_size


@pytest.mark.parametrize("n", SIZES)
def test_warp_sum(warp_ops, n):
    import torch

    width = warp_ops.warp_size()
    x = (torch.arange(n, dtype=torch.float32) % 7 - 3).cuda()
    want = _per_warp(x, width, (lambda v: v.sum(dim=1), 0.0))
    assert torch.equal(warp_ops.warp_sum(x, width).cpu(), want)


@pytest.mark.parametrize("n", SIZES)
def test_warp_max(warp_ops, n):
    import torch

    width = warp_ops.warp_size()
    x = ((torch.arange(n, dtype=torch.int32) * 53) % 97).cuda()
    want = _per_warp(x, width, (lambda v: v.max(dim=1).values, -2**31))
    assert torch.equal(warp_ops.warp_max(x, width).cpu(), want)


@pytest.mark.parametrize("n", SIZES)
def test_warp_inclusive_scan(warp_ops, n):
    import torch

    width = warp_ops.warp_size()
    x = ((torch.arange(n, dtype=torch.int32) * 31) % 13).cuda()
    padded = _per_warp(x, width, (lambda v: v.cumsum(dim=1, dtype=torch.int32), 0))
    assert torch.equal(warp_ops.warp_scan(x).cpu(), padded.flatten()[:n])


@pytest.mark.parametrize("n", SIZES)
def test_warp_ballot_count(warp_ops, n):
    import torch

    width = warp_ops.warp_size()
    x = ((torch.arange(n) * 37) % 11 - 5).float().cuda()  # positives in both halves of a wave64
    want = _per_warp(x, width, (lambda v: (v > 0).sum(dim=1, dtype=torch.int32), 0.0))
    assert torch.equal(warp_ops.warp_ballot(x, width).cpu(), want)


# ---- RCCL collectives ----------------------------------------------------------------------

@pytest.fixture
def device_pool(rank_pools):
    return rank_pools("nccl")


@TWO_GPUS
def test_collective_library_is_rccl_on_rocm(device_pool, facts):
    out = device_pool.run(cases.backend_name)
    assert {o["backend"] for o in out} == {"nccl"}  # torch's name for NCCL and RCCL alike
    if facts.platform == "rocm":
        assert all(o["hip"] for o in out), "device ranks run a non-HIP torch: RCCL is not in use"


@TWO_GPUS
@pytest.mark.parametrize("n", [1, 4099])
def test_rccl_all_reduce(device_pool, n):
    out = device_pool.run(cases.all_reduce, n=n)
    w = len(out)
    want = [float(i * w * (w + 1) // 2) for i in range(n)]
    assert all(o == want for o in out)


@TWO_GPUS
def test_rccl_all_gather(device_pool):
    out = device_pool.run(cases.all_gather, n=33)
    assert all(o == [[float(r)] * 33 for r in range(len(out))] for o in out)


@TWO_GPUS
def test_rccl_reduce_scatter(device_pool):
    out = device_pool.run(cases.reduce_scatter, n=17)
    w = len(out)
    assert out == [[float(sum(src + r for src in range(w)))] * 17 for r in range(w)]


@TWO_GPUS
def test_rccl_broadcast(device_pool):
    out = device_pool.run(cases.broadcast, n=1025)
    assert all(o == list(range(1025)) for o in out)


@TWO_GPUS
def test_rccl_all_to_all(device_pool):
    n = 3
    out = device_pool.run(cases.all_to_all, n=n)
    w = len(out)
    for r, got in enumerate(out):
        assert got == [float(r * n + i + 100 * src) for src in range(w) for i in range(n)]


@TWO_GPUS
def test_rccl_send_recv_ring(device_pool):
    out = device_pool.run(cases.send_recv_ring, n=8)
    w = len(out)
    assert out == [[float((r - 1) % w)] * 8 for r in range(w)]


# ---- peers and IPC -------------------------------------------------------------------------

@TWO_GPUS
def test_peer_copy_between_gpus():
    import torch

    src = torch.arange(1 << 20, device="cuda:0", dtype=torch.float32)
    dst = src.to("cuda:1")
    assert dst.device.index == 1 and torch.equal(dst.cpu(), src.cpu())


@TWO_GPUS
def test_peer_access_is_symmetric():
    import torch

    assert torch.cuda.can_device_access_peer(0, 1) == torch.cuda.can_device_access_peer(1, 0)


def _ipc_child(queue, done):
    import torch

    t = queue.get()
    t.add_(1)
    torch.cuda.synchronize()
    done.put(t.device.index)


@TWO_GPUS
def test_ipc_tensor_shared_with_another_process():
    import torch
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue, done = ctx.Queue(), ctx.Queue()
    t = torch.zeros(1024, device="cuda:1")
    child = ctx.Process(target=_ipc_child, args=(queue, done))
    child.start()
    try:
        queue.put(t)
        assert done.get(timeout=120) == 1
    finally:
        child.join(60)
        if child.is_alive():
            child.kill()
    torch.cuda.synchronize()
    assert torch.equal(t.cpu(), torch.ones(1024))


# ---- graphs ----------------------------------------------------------------------------------

def test_graph_capture_and_replay():
    import torch

    x = torch.zeros(4096, device="cuda")
    g = torch.cuda.CUDAGraph()  # a HIP graph under ROCm torch
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x.add_(0)  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        x.add_(1)
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    assert torch.equal(x.cpu(), torch.full((4096,), 3.0))


def test_graph_replay_reads_updated_inputs():
    import torch

    static_in = torch.ones(256, device="cuda")
    g = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    with torch.cuda.graph(g):
        static_out = static_in * 2
    for value in (3.0, 5.0):
        static_in.fill_(value)
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_out.cpu(), torch.full((256,), 2 * value))


def test_graph_capture_of_a_warp_kernel(warp_ops):
    import torch

    width = warp_ops.warp_size()
    x = torch.ones(1024, device="cuda")
    warp_ops.warp_sum(x, width)  # warm-up: the module's first launch outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = warp_ops.warp_sum(x, width)
    x.fill_(2.0)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(out.cpu(), torch.full((1024 // width,), 2.0 * width))


# ---- pinned and registered host memory ------------------------------------------------------

def test_pinned_memory_round_trip():
    import torch

    host = torch.arange(1 << 16, dtype=torch.float32).pin_memory()
    assert host.is_pinned()
    dev = host.to("cuda", non_blocking=True)
    back = torch.empty_like(host).pin_memory()
    back.copy_(dev, non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(back, host)


def test_registered_host_memory_is_device_visible():
    """cudaHostRegister / hipHostRegister on memory torch did not allocate (what RDMA does to a
    user's buffer), then a device copy from it."""
    import torch

    cudart = torch.cuda.cudart()
    host = torch.arange(4096, dtype=torch.int32)
    rc = cudart.cudaHostRegister(host.data_ptr(), host.numel() * host.element_size(), 0)
    assert int(rc) == 0, f"host register failed: {rc}"
    try:
        assert torch.equal(host.to("cuda").cpu(), host)
    finally:
        assert int(cudart.cudaHostUnregister(host.data_ptr())) == 0


def test_pinned_copy_overlaps_on_a_side_stream():
    import torch

    host = torch.full((1 << 20,), 7.0).pin_memory()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        dev = host.to("cuda", non_blocking=True)
        dev.mul_(2)
    s.synchronize()
    assert torch.equal(dev.cpu(), torch.full((1 << 20,), 14.0))


# ---- stream ordering -------------------------------------------------------------------------

def test_event_orders_two_streams():
    import torch

    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    x = torch.zeros(1 << 20, device="cuda")
    done = torch.cuda.Event()
    with torch.cuda.stream(a):
        torch.cuda._sleep(1_000_000)  # a long first kernel: without the wait, b would overtake
        x.fill_(1.0)
        done.record(a)
    with torch.cuda.stream(b):
        b.wait_event(done)
        y = x * 3
    torch.cuda.synchronize()
    assert torch.equal(y.cpu(), torch.full((1 << 20,), 3.0))


def test_wait_stream_orders_default_after_side():
    import torch

    side = torch.cuda.Stream()
    x = torch.zeros(4096, device="cuda")
    with torch.cuda.stream(side):
        torch.cuda._sleep(1_000_000)
        x.add_(5)
    torch.cuda.current_stream().wait_stream(side)
    y = x + 1
    torch.cuda.synchronize()
    assert torch.equal(y.cpu(), torch.full((4096,), 6.0))


def test_stream_order_is_fifo_within_a_stream():
    import torch

    s = torch.cuda.Stream()
    x = torch.zeros(1, device="cuda")
    with torch.cuda.stream(s):
        for i in range(100):
            x.mul_(0).add_(i)
    s.synchronize()
    assert x.item() == 99.0
