"""GPUs the driver lists but whose device node was not passed into the container are not counted
(the runtimes could not open them either); a driver entry that names no node is counted."""

from __future__ import annotations

from porting.probe.gpus import probe_gpus

KFD = "/sys/class/kfd/kfd/topology/nodes"


def _amd(fake, node: int, minor: int | None) -> None:
    extra = f"drm_render_minor {minor}\n" if minor is not None else ""
    fake.file(f"{KFD}/{node}/properties", f"cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\n{extra}")


def _nvidia(fake, bus: str, minor: int | None) -> None:
    line = f"Device Minor: \t {minor}\n" if minor is not None else ""
    fake.file(f"/proc/driver/nvidia/gpus/{bus}/information", f"Model: \t\t NVIDIA H200\nIRQ: 42\n{line}")


def test_amd_counts_only_gpus_whose_render_node_is_here(fake):
    fake.file("/dev/kfd")
    fake.file(f"{KFD}/0/properties", "cpu_cores_count 64\nsimd_count 0\ngfx_target_version 0\n")
    for node, minor in ((1, 128), (2, 129), (3, 130)):
        _amd(fake, node, minor)
    fake.file("/dev/dri/renderD129")  # `docker run --device=/dev/kfd --device=/dev/dri/renderD129`
    info = probe_gpus(fake.root)
    assert [g.source for g in info.gpus] == [f"{KFD}/2/properties"]
    assert len(info.unreachable) == 2 and all("not passed to this container" in u for u in info.unreachable)
    assert "/dev/dri/renderD128" in info.unreachable[0]


def test_amd_without_render_minor_is_counted(fake):
    fake.file("/dev/kfd")
    _amd(fake, 1, None)
    assert len(probe_gpus(fake.root).gpus) == 1


def test_nvidia_counts_only_gpus_whose_device_node_is_here(fake):
    for i, bus in enumerate(("0000:01:00.0", "0000:41:00.0", "0000:81:00.0")):
        _nvidia(fake, bus, i)
    fake.file("/dev/nvidia2")  # `docker run --gpus device=2`
    fake.file("/dev/nvidiactl")
    info = probe_gpus(fake.root)
    assert [g.source.split("/")[-2] for g in info.gpus] == ["0000:81:00.0"]
    assert ["0000:01:00.0" in info.unreachable[0], "0000:41:00.0" in info.unreachable[1]] == [True, True]
    assert "/dev/nvidia0 is not here" in info.unreachable[0]


def test_nvidia_entry_without_device_minor_is_counted(fake):
    _nvidia(fake, "0000:01:00.0", None)
    fake.file("/dev/nvidia0")
    assert len(probe_gpus(fake.root).gpus) == 1


def test_detect_shows_the_unreachable_gpus_in_its_device_evidence(fake, project, detect):
    fake.rocm("7.0.2")
    fake.file("/dev/kfd")
    _amd(fake, 1, 128)
    _amd(fake, 2, 129)
    fake.file("/dev/dri/renderD128")
    rec = detect(fake, project)
    assert [g["source"] for g in rec["gpus"]] == [f"{KFD}/1/properties"]
    assert any("renderD129 is not here" in e for e in rec["evidence"]["devices"])
