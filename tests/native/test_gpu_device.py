"""The GPU build on a real device: runs only where detection picks a GPU path (cuda,
native-hip, hipified-cuda) and torch sees the device; everywhere else each test skips with
the reason. (On the CPU-only development machine these have not run.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch

from porting import native

pytestmark = [pytest.mark.component("native"), pytest.mark.slow]


@pytest.fixture(scope="session")
def gpu_lib(build_dir):
    from porting.builder import build
    from porting.config import load_config
    from porting.plan import make_plan
    from porting.probe import probe_machine

    plan = make_plan(probe_machine(), load_config())
    if plan.path == "cpu":
        pytest.skip("detection picks the cpu path: no GPU platform can run here")
    if not torch.cuda.is_available():
        pytest.skip(f"detection picks {plan.path} but this torch ({torch.__version__}) sees no GPU")
    record = build(plan.path, build_dir, gpu_archs=list(plan.gpu_archs))
    assert record.ok, f"{record.error}\n{record.error_output}"
    lib = native.load(plan.path, build_dir)
    assert lib.usable(), f"{plan.path} build loaded but reports no usable device"
    return lib


def dev(t: torch.Tensor) -> torch.Tensor:
    return t.to("cuda")


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64])
@pytest.mark.parametrize("shape,dim,chunks", [((10, 7), 0, 4), ((10, 7), 1, 3), ((3, 5, 9), 2, 4),
                                              ((6, 33, 4), -2, 5)])
def test_gather_scatter_on_device(gpu_lib, dtype, shape, dim, chunks):
    g = torch.Generator().manual_seed(1)
    t = dev((torch.randn(shape, generator=g) * 100).to(dtype)).transpose(0, -1).contiguous().transpose(0, -1)
    ref = torch.chunk(t, chunks, dim)
    for index in range(chunks):
        got = native.gather_shard(t, dim, chunks, index, lib=gpu_lib)
        torch.cuda.synchronize()
        if index < len(ref):
            assert got.is_cuda and torch.equal(got, ref[index].contiguous())
            out = torch.zeros_like(t)
            native.scatter_shard(got, out, dim, chunks, index, lib=gpu_lib)
            torch.cuda.synchronize()
            assert torch.equal(torch.chunk(out, chunks, dim)[index], ref[index])
        else:
            assert got.numel() == 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64])
@pytest.mark.parametrize("op", ["sum", "avg", "max"])
def test_reduce_on_device(gpu_lib, dtype, op):
    if op == "avg" and not dtype.is_floating_point:
        pytest.skip("avg needs a floating dtype")
    g = torch.Generator().manual_seed(2)
    bufs = [dev((torch.randn(1000, generator=g) * 50).to(dtype)) for _ in range(5)]
    got = native.reduce(bufs, op, lib=gpu_lib)
    torch.cuda.synchronize()
    acc_t = torch.float32 if dtype.is_floating_point else torch.int64
    acc = bufs[0].to(acc_t)
    for b in bufs[1:]:
        acc = torch.maximum(acc, b.to(acc_t)) if op == "max" else acc + b.to(acc_t)
    if op == "avg":
        acc = acc / len(bufs)
    assert torch.equal(got, acc.to(dtype))


def test_classify_device_memory(gpu_lib):
    info = native.classify(dev(torch.zeros(16)), lib=gpu_lib)
    assert info.kind == "device" and info.device == torch.cuda.current_device()
    assert info.pci_bus_id  # e.g. 0000:41:00.0
    assert native.classify(torch.zeros(16), lib=gpu_lib).kind == "host"


def test_copy_engine_on_device(gpu_lib):
    with native.Registry(gpu_lib) as reg, native.CopyEngine(reg) as eng:
        src = dev(torch.arange(1024, dtype=torch.float32))
        dst = dev(torch.zeros(1024))
        torch.cuda.synchronize()
        s, d = reg.register(src), reg.register(dst)
        assert s.info.kind == "device"
        ev = eng.write(d.key, 0, s.key, 512 * 4, 256 * 4)
        ev.wait()
        assert ev.done() and torch.equal(dst[:256], src[512:768]) and dst[256:].eq(0).all()
        with pytest.raises(native.NativeError, match="outside segment"):
            eng.write(d.key, 1020 * 4, s.key, 0, 16 * 4)


def test_ipc_export_to_another_process(gpu_lib, build_dir):
    with native.Registry(gpu_lib) as reg:
        seg = reg.alloc_exportable(64 * 4, elem_size=4)
        with native.CopyEngine(reg) as eng:
            host = reg.register(dev(torch.arange(64, dtype=torch.float32)))
            eng.write(seg.key, 0, host.key, 0, 64 * 4).wait()
        child = textwrap.dedent(f"""
            import sys, torch
            from porting import native
            lib = native.load({gpu_lib.path!r}, {str(build_dir)!r})
            reg = native.Registry(lib)
            remote = reg.import_handle(bytes.fromhex(sys.argv[1]), elem_size=4)
            local = torch.zeros(64, device="cuda")
            mine = reg.register(local)
            eng = native.CopyEngine(reg)
            eng.read(remote.key, 0, mine.key, 0, 64 * 4).wait()
            assert torch.equal(local.cpu(), torch.arange(64, dtype=torch.float32)), local
            print("ok")
        """)
        proc = subprocess.run([sys.executable, "-c", child, reg.export(seg.key).hex()], capture_output=True,
                              text=True)
        assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr
