"""`port sdk fetch|path`: the compile-only ROCm 7 SDK from a hash-pinned wheel, for wheel users.

A synthetic wheel laid out like triton's (``triton/backends/amd/include``, ``lib/*.bc``) stands
in for the real one, with its own pin; nothing here touches the network or the user's cache.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from porting import cli, sdk_fetch
from porting.errors import InputError, UsageError
from porting.probe.rocm_sdk import probe_rocm_sdk

VERSION_H = "#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 1\n#define HIP_VERSION_PATCH 25424\n"


def make_wheel(path: Path, extra: dict[str, bytes] | None = None, libs=("ocml.bc", "ockl.bc")) -> sdk_fetch.Pin:
    members = {
        "triton/__init__.py": b"",
        "triton/backends/amd/include/hip/hip_version.h": VERSION_H.encode(),
        "triton/backends/amd/include/hip/hip_runtime_api.h": b"hipError_t hipMalloc(void**, unsigned long);\n",
        "triton/backends/amd/lib/libamdhip64.so": b"not kept",
        **{f"triton/backends/amd/lib/{n}": b"BC\xc0\xde" + n.encode() for n in libs},
        **(extra or {}),
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return sdk_fetch.Pin("9.9.9", path.name, hashlib.sha256(path.read_bytes()).hexdigest())


def test_fetch_from_a_wheel_keeps_headers_and_device_libraries_only(tmp_path):
    pin = make_wheel(tmp_path / "t.whl")
    sdk, did = sdk_fetch.fetch(tmp_path / "cache/sdk", tmp_path / "t.whl", pin=pin)
    assert did and sdk_fetch.is_ready(sdk)
    assert sorted(p.relative_to(sdk).as_posix() for p in sdk.rglob("*") if p.is_file()) == [
        "MANIFEST.json", "SOURCE.json",
        "include/hip/hip_runtime_api.h", "include/hip/hip_version.h", "lib/ockl.bc", "lib/ocml.bc"]
    source = (sdk / "SOURCE.json").read_text()
    assert pin.sha256 in source and '"hip_version": "7.1.25424"' in source
    # leaves nothing else in the cache directory (the staging directory is gone)
    assert os.listdir(tmp_path / "cache") == ["sdk"]


def test_the_probe_finds_what_fetch_unpacked(tmp_path):
    pin = make_wheel(tmp_path / "t.whl")
    sdk, _ = sdk_fetch.fetch(tmp_path / "sdk", tmp_path / "t.whl", pin=pin)
    info = probe_rocm_sdk(Path("/"), {"PORT_ROCM7_SDK": str(sdk), "PATH": ""})
    assert info.hip_version == "7.1.25424" and info.device_lib_dir == f"{sdk}/lib"
    assert info.source["sha256"] == pin.sha256 and not info.problems


def test_a_wheel_with_another_hash_is_refused_before_anything_is_written(tmp_path):
    pin = make_wheel(tmp_path / "t.whl")
    other = sdk_fetch.Pin(pin.version, pin.wheel, "0" * 64)
    with pytest.raises(InputError, match=r"t\.whl: sha256 [0-9a-f]{64} is not the pinned"):
        sdk_fetch.fetch(tmp_path / "cache/sdk", tmp_path / "t.whl", pin=other)
    assert not (tmp_path / "cache").exists()


def test_members_outside_the_sdk_prefixes_are_never_written(tmp_path):
    pin = make_wheel(tmp_path / "t.whl", extra={
        "triton/backends/amd/include/../../../../escape.h": b"x",
        "/abs/triton/backends/amd/include/abs.h": b"x",
        "triton/backends/amd/lib/other.bc": b"x",
    })
    sdk, _ = sdk_fetch.fetch(tmp_path / "out/sdk", tmp_path / "t.whl", pin=pin)
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert written == {"t.whl", "out/sdk/MANIFEST.json", "out/sdk/SOURCE.json", "out/sdk/include/hip/hip_runtime_api.h",
                       "out/sdk/include/hip/hip_version.h", "out/sdk/lib/ockl.bc", "out/sdk/lib/ocml.bc"}


def test_fetch_is_idempotent_and_force_replaces_atomically(tmp_path):
    pin = make_wheel(tmp_path / "t.whl")
    sdk, did = sdk_fetch.fetch(tmp_path / "sdk", tmp_path / "t.whl", pin=pin)
    marker = sdk / "include/hip/local-edit.h"
    assert sdk_fetch.fetch(sdk, tmp_path / "t.whl", pin=pin) == (sdk, False)
    marker.write_text("x")  # a file the manifest does not list: the SDK is not "already there" any more
    with pytest.raises(InputError, match="added include/hip/local-edit.h"):
        sdk_fetch.fetch(sdk, tmp_path / "t.whl", pin=pin)
    assert marker.exists()
    assert sdk_fetch.fetch(sdk, tmp_path / "t.whl", pin=pin, force=True) == (sdk, True)
    assert not marker.exists() and sdk_fetch.is_ready(sdk)


def test_a_wheel_without_device_libraries_leaves_the_old_sdk_in_place(tmp_path):
    good = make_wheel(tmp_path / "good.whl")
    sdk, _ = sdk_fetch.fetch(tmp_path / "sdk", tmp_path / "good.whl", pin=good)
    bad = make_wheel(tmp_path / "bad.whl", libs=("ocml.bc",))
    with pytest.raises(InputError, match=r"bad\.whl: lacks triton/backends/amd/lib/ockl\.bc"):
        sdk_fetch.fetch(sdk, tmp_path / "bad.whl", pin=bad, force=True)
    assert sdk_fetch.is_ready(sdk) and sorted(os.listdir(tmp_path)) == ["bad.whl", "good.whl", "sdk"]


def test_default_dir_follows_the_probe_order():
    assert sdk_fetch.default_dir({"PORT_ROCM7_SDK": "/x/sdk", "HOME": "/h"}) == Path("/x/sdk")
    assert sdk_fetch.default_dir({"XDG_CACHE_HOME": "/c", "HOME": "/h"}) == Path(
        f"/c/rocm-port/rocm7-sdk/triton-{sdk_fetch.PIN.version}")
    assert sdk_fetch.default_dir({"HOME": "/h"}) == Path(
        f"/h/.cache/rocm-port/rocm7-sdk/triton-{sdk_fetch.PIN.version}")
    with pytest.raises(UsageError, match="--dir"):
        sdk_fetch.default_dir({})


def test_cli_path_and_fetch(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PORT_ROCM7_SDK", str(tmp_path / "sdk"))
    assert cli.main(["sdk", "path"]) == 1
    assert "no ROCm 7 SDK in" in capsys.readouterr().err
    # the real pin: a wheel that is not it is refused in one line, exit 2
    (tmp_path / "fake.whl").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert cli.main(["sdk", "fetch", "--wheel", str(tmp_path / "fake.whl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("port: error: ") and "fake.whl: sha256" in err and err.count("\n") == 1
    assert cli.main(["sdk", "path", "--force"]) == 2
    assert cli.main(["sdk", "fetch", "--wheel", str(tmp_path / "missing.whl")]) == 2
    assert "missing.whl: no such wheel file" in capsys.readouterr().err


@pytest.mark.parametrize("what", ["file", "foreign-dir", "symlink"])
def test_a_dir_that_is_not_our_sdk_is_refused_and_left_alone(tmp_path, what):
    pin = make_wheel(tmp_path / "t.whl")
    target = tmp_path / "target"
    if what == "file":
        target.write_text("mine")
    elif what == "foreign-dir":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    else:
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "notes.txt").write_text("mine")
        target.symlink_to(tmp_path / "elsewhere")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    for force in (False, True):
        with pytest.raises(UsageError, match="is not an SDK unpacked by `port sdk fetch`"):
            sdk_fetch.fetch(target, tmp_path / "t.whl", pin=pin, force=force)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_an_empty_dir_is_filled(tmp_path):
    pin = make_wheel(tmp_path / "t.whl")
    (tmp_path / "empty").mkdir()
    assert sdk_fetch.fetch(tmp_path / "empty", tmp_path / "t.whl", pin=pin) == (tmp_path / "empty", True)


def test_a_fifo_as_wheel_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.whl")
    with pytest.raises(InputError, match=r"pipe\.whl: not a regular file"):
        sdk_fetch.fetch(tmp_path / "sdk", tmp_path / "pipe.whl")


def test_a_fifo_named_source_json_in_the_target_is_refused_without_blocking(tmp_path):
    pin = make_wheel(tmp_path / "t.whl")
    (tmp_path / "target").mkdir()
    os.mkfifo(tmp_path / "target" / "SOURCE.json")
    with pytest.raises(UsageError, match="is not an SDK unpacked by `port sdk fetch`"):
        sdk_fetch.fetch(tmp_path / "target", tmp_path / "t.whl", pin=pin, force=True)
