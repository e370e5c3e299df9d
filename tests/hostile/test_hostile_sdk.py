"""The SDK's origin is checked at use: MANIFEST.json (written by `port sdk fetch`) lists every
file with its size, mtime and sha256; the probe checks sizes and mtimes each time it selects an
SDK, `port sdk verify` and every fetch re-hash. A planted directory that sorts first, an edited
header, or a manifest rewritten to match an edited tree that still claims the pinned wheel, is
not used, and the reports name the tree that was."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

import pytest

from porting import sdk_fetch, sdk_manifest, sdk_pin
from porting.cli import main
from porting.errors import InputError
from porting.probe.rocm_sdk import probe_rocm_sdk

VERSION_H = "#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 1\n#define HIP_VERSION_PATCH 25424\n"


def _wheel(path: Path) -> sdk_fetch.Pin:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("triton/backends/amd/include/hip/hip_version.h", VERSION_H)
        z.writestr("triton/backends/amd/include/hip/hip_runtime.h", "#pragma once\n")
        for n in ("ocml.bc", "ockl.bc"):
            z.writestr(f"triton/backends/amd/lib/{n}", b"BC\xc0\xde" + n.encode())
    return sdk_fetch.Pin("3.9.0", path.name, hashlib.sha256(path.read_bytes()).hexdigest())


@pytest.fixture
def fetched(tmp_path, monkeypatch):
    """An SDK fetched into a per-user cache, with the pin (tree digest included) in force."""
    pin = _wheel(tmp_path / "t.whl")
    cache = tmp_path / "home" / ".cache" / "rocm-port" / "rocm7-sdk"
    sdk, _ = sdk_fetch.fetch(cache / "triton-3.9.0", tmp_path / "t.whl", pin=pin)
    pin = sdk_fetch.Pin(pin.version, pin.wheel, pin.sha256, json.loads((sdk / "MANIFEST.json").read_text())
                        ["tree_sha256"])
    monkeypatch.setattr(sdk_pin, "PIN", pin)  # the probe reads the pin from porting.sdk_pin
    return sdk, pin, {"HOME": str(tmp_path / "home"), "PATH": ""}


def test_fetch_writes_a_manifest_that_verifies(fetched):
    sdk, pin, env = fetched
    assert sdk_fetch.verify(sdk, pin).ok
    info = probe_rocm_sdk(Path("/"), env)
    assert info.sdk == str(sdk) and info.source["tree_sha256"] == pin.tree_sha256
    assert f"tree sha256 {pin.tree_sha256[:12]} verified" in info.headers_from


def test_a_planted_sdk_that_sorts_first_is_not_used(fetched):
    sdk, pin, env = fetched
    planted = sdk.parent / "triton-9.9.9"  # sorts first (newest), claims the pinned wheel
    (planted / "include" / "hip").mkdir(parents=True)
    (planted / "include" / "hip" / "hip_version.h").write_text(VERSION_H.replace("MINOR 1", "MINOR 9"))
    (planted / "include" / "hip" / "hip_runtime.h").write_text("#error TAMPERED\n")
    (planted / "SOURCE.json").write_text((sdk / "SOURCE.json").read_text())
    info = probe_rocm_sdk(Path("/"), env)
    assert info.sdk == str(sdk) and info.hip_version == "7.1.25424"
    assert any("triton-9.9.9" in p and "not used" in p for p in info.problems)
    sdk_manifest.write(str(planted))  # a manifest of its own: still not the pinned tree
    info = probe_rocm_sdk(Path("/"), env)
    assert info.sdk == str(sdk) and any("not the pinned SDK" in p for p in info.problems)


def test_an_edited_header_is_caught_at_use_and_by_fetch_and_verify(fetched, capsys):
    sdk, pin, env = fetched
    header = sdk / "include" / "hip" / "hip_runtime.h"
    header.write_text("#error TAMPERED\n")
    info = probe_rocm_sdk(Path("/"), env)
    assert info.sdk is None and any("hip_runtime.h changed" in p for p in info.problems)
    with pytest.raises(InputError, match="not used"):
        sdk_fetch.fetch(sdk, pin=pin)  # not "already there"
    assert main(["sdk", "verify", "--dir", str(sdk)]) == 1
    assert "TAMPERED" in capsys.readouterr().err


def test_same_size_same_mtime_edit_is_caught_by_a_full_verify(fetched):
    """The cheap check trusts sizes and mtimes; the full one (fetch, verify) re-hashes."""
    sdk, pin, _ = fetched
    header = sdk / "include" / "hip" / "hip_runtime.h"
    st = header.stat()
    header.write_bytes(b"#error TAMPER\n"[:st.st_size].ljust(st.st_size, b"\n"))
    os.utime(header, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert sdk_manifest.verify(str(sdk), pin.tree_sha256, full=False).ok
    verdict = sdk_fetch.verify(sdk, pin)
    assert not verdict.ok and "sha256" in verdict.why


def test_a_rewritten_manifest_still_claiming_the_pinned_wheel_is_refused(fetched):
    sdk, pin, env = fetched
    (sdk / "include" / "hip" / "hip_runtime.h").write_text("#error TAMPERED\n")
    sdk_manifest.write(str(sdk))  # the attacker's manifest matches the edited files
    info = probe_rocm_sdk(Path("/"), env)
    assert info.sdk is None and any("not the pinned SDK" in p for p in info.problems)
    assert not sdk_fetch.verify(sdk, pin).ok


def test_an_sdk_named_by_the_user_is_used_but_marked_unverified(fetched):
    sdk, _, env = fetched
    (sdk / "MANIFEST.json").unlink()
    info = probe_rocm_sdk(Path("/"), {**env, "PORT_ROCM7_SDK": str(sdk)})
    assert info.sdk == str(sdk) and "UNVERIFIED" in info.headers_from
