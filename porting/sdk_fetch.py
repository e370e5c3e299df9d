"""`port sdk fetch`: the compile-only ROCm 7 SDK, for checkouts and wheel installs alike.

ROCm 7.1's HIP headers and the ocml/ockl device libraries ship inside PyPI's triton wheel
(``triton/backends/amd/``). One pinned wheel, checked against its sha256, is unpacked into a
cache outside any virtual environment (never installed next to torch), where
``porting.probe.rocm_sdk`` finds it: ``$PORT_ROCM7_SDK`` or
``${XDG_CACHE_HOME:-$HOME/.cache}/rocm-port/rocm7-sdk/triton-<version>``. Debian's clang 22
compiles and device-links gfx942/gfx950 code against it; it has no ROCm runtime, so nothing
built with it runs.

Where the machine has no route to PyPI (a cluster's air-gapped login node), ``--wheel FILE``
takes the same wheel copied there by hand; its hash is checked the same way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from . import process_group, sdk_manifest
from .errors import InputError, PortError, ToolError, UsageError
from .parsing import loads_json
from .paths import sha256_file
from .probe import fs
from .probe.rocm_sdk import sdk_cache
from .sdk_pin import PIN, Pin

_INCLUDE = "triton/backends/amd/include/"
_LIB = "triton/backends/amd/lib/"
DEVICE_LIBS = ("ocml.bc", "ockl.bc")
LACKS = ["hip_fp16.h", "hip_bf16.h", "hipCUB/rocPRIM/rocThrust", "hipBLAS and the other ROCm libraries",
         "ROCm runtime libraries"]
DOWNLOAD_TIMEOUT_S = 900
KIND = "rocm7-sdk-compile-only"  # SOURCE.json's mark of an SDK this module unpacked


def default_dir(env: Mapping[str, str]) -> Path:
    """Where the probe looks first: PORT_ROCM7_SDK, else the per-user cache."""
    if env.get("PORT_ROCM7_SDK"):
        return Path(env["PORT_ROCM7_SDK"])
    parent = sdk_cache(env)
    if parent is None:
        raise UsageError("port sdk: neither PORT_ROCM7_SDK, XDG_CACHE_HOME nor HOME is set; give --dir DIR")
    return Path(parent) / f"triton-{PIN.version}"


def is_ready(sdk: Path) -> bool:
    return (sdk / "SOURCE.json").is_file() and (sdk / "include/hip/hip_version.h").is_file() and all(
        (sdk / "lib" / n).is_file() for n in DEVICE_LIBS)


def download(dest: Path, pin: Pin = PIN, python: str = sys.executable) -> Path:
    """pip download of the pinned wheel (hash-checked by pip, then by us) into ``dest``."""
    req = dest / "requirements.txt"
    req.write_text(f"triton=={pin.version} --hash=sha256:{pin.sha256}\n")
    argv = [python, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
            "--require-hashes", "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
            "--abi", "cp311", "--platform", "manylinux_2_28_x86_64", "-d", str(dest / "dl"), "-r", str(req)]
    try:
        proc = process_group.run(argv, timeout=DOWNLOAD_TIMEOUT_S)
    except FileNotFoundError:
        raise ToolError(f"port sdk fetch: {python} not found (it runs pip)") from None
    except subprocess.TimeoutExpired:
        raise ToolError(f"port sdk fetch: pip download of {pin.wheel} ran past {DOWNLOAD_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout or "").strip().splitlines()[-1:] or ["no output"]
        raise ToolError(f"port sdk fetch: pip download of triton=={pin.version} failed (exit "
                        f"{proc.returncode}): {last[0]}; without PyPI, copy {pin.wheel} here and pass --wheel FILE")
    wheel = dest / "dl" / pin.wheel
    if not wheel.is_file():
        raise ToolError(f"port sdk fetch: pip did not produce {pin.wheel} in {dest / 'dl'}")
    return wheel


def check_wheel(wheel: Path, pin: Pin = PIN) -> None:
    if not wheel.exists():
        raise InputError(f"{wheel}: no such wheel file")
    if not wheel.is_file():  # a FIFO would block the hash, a directory is no wheel
        raise InputError(f"{wheel}: not a regular file")
    digest = sha256_file(wheel)
    if digest != pin.sha256:
        raise InputError(f"{wheel}: sha256 {digest} is not the pinned {pin.wheel} ({pin.sha256})")


def _member_target(name: str) -> tuple[str, str] | None:
    """(subdir, relative path) for a member we keep; None for the rest of the wheel."""
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or "" in parts[:-1]:
        return None
    if name.startswith(_INCLUDE) and len(name) > len(_INCLUDE):
        return "include", name[len(_INCLUDE):]
    if name.startswith(_LIB) and name[len(_LIB):] in DEVICE_LIBS:
        return "lib", name[len(_LIB):]
    return None


def unpack(wheel: Path, dest: Path, pin: Pin = PIN) -> str:
    """The headers and device libraries of ``wheel`` into ``dest``; returns the HIP version."""
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            target = None if info.is_dir() else _member_target(info.filename)
            if target is None:
                continue
            out = dest.joinpath(*target)
            out.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
    version = hip_version(dest / "include")
    missing = [n for n in DEVICE_LIBS if not (dest / "lib" / n).is_file()]
    if missing:
        raise InputError(f"{wheel}: lacks {', '.join(_LIB + n for n in missing)}")
    (dest / "SOURCE.json").write_text(json.dumps({
        "kind": KIND,
        "origin": "PyPI triton wheel (triton/backends/amd/include, lib/ocml.bc, lib/ockl.bc)",
        "wheel": pin.wheel, "sha256": pin.sha256, "hip_version": version, "lacks": LACKS}, indent=2) + "\n")
    return version


def _verify_existing(sdk: Path, pin: Pin) -> None:
    """`fetch` over an SDK that is there: every file re-hashed against its manifest and the pin.
    An SDK fetched before manifests existed gets one when its tree is exactly the pinned one."""
    verdict = sdk_manifest.verify(str(sdk), _pinned_for(sdk, pin), full=True)
    if verdict.ok:
        return
    if sdk_manifest.load(str(sdk)) is None and pin.tree_sha256 is not None \
            and sdk_manifest.build(str(sdk))["tree_sha256"] == pin.tree_sha256:
        sdk_manifest.write(str(sdk))
        return
    raise InputError(f"{verdict.why}: not used; `port sdk fetch --force` unpacks the pinned wheel again")


def _pinned_for(sdk: Path, pin: Pin) -> str | None:
    """The tree digest ``sdk`` must have: the pin's, when its SOURCE.json names the pinned wheel."""
    text = fs.read_text(Path("/"), str(sdk / "SOURCE.json"))
    try:
        source = loads_json(text, str(sdk / "SOURCE.json")) if text is not None else None
    except PortError:
        source = None
    return pin.tree_sha256 if isinstance(source, dict) and source.get("wheel") == pin.wheel else None


def verify(sdk: Path, pin: Pin = PIN) -> sdk_manifest.Verdict:
    """`port sdk verify`: every file re-hashed against the manifest, the tree against the pin."""
    return sdk_manifest.verify(str(sdk), _pinned_for(sdk, pin), full=True)


def _check_replaceable(sdk: Path) -> None:
    """Only an SDK this command unpacked (its SOURCE.json says so) or an empty directory is
    ever replaced: ``--dir`` pointing at anything else is refused, never deleted."""
    if not os.path.lexists(sdk):
        return
    if sdk.is_dir() and not sdk.is_symlink():
        if not any(sdk.iterdir()):
            return
        # the probe's bounded reader (a FIFO or a huge file is no SOURCE.json) and the one JSON parser
        text = fs.read_text(Path("/"), str(sdk / "SOURCE.json"))
        try:
            source = loads_json(text, str(sdk / "SOURCE.json")) if text is not None else None
        except PortError:
            source = None
        if isinstance(source, dict) and source.get("kind") == KIND:
            return
    raise UsageError(f"{sdk}: exists and is not an SDK unpacked by `port sdk fetch`; "
                     "give another --dir (nothing was changed)")


def hip_version(include_dir: Path) -> str:
    """The HIP version the unpacked headers declare (porting.probe.rocm's reader)."""
    from .probe.rocm import version_from_include

    version, where = version_from_include(Path("/"), str(include_dir))
    if version is None:
        raise InputError(f"the wheel's headers name no HIP version ({where})")
    return version


def fetch(sdk: Path, wheel: Path | None = None, force: bool = False, pin: Pin = PIN,
          python: str = sys.executable) -> tuple[Path, bool]:
    """Make ``sdk`` hold the SDK; (sdk, whether anything was done). Atomic: the SDK is
    unpacked in a sibling temporary directory and renamed into place, so a reader (or an
    interrupted fetch) never sees half an SDK."""
    if is_ready(sdk) and not force:
        _verify_existing(sdk, pin)
        return sdk, False
    _check_replaceable(sdk)
    if wheel is not None:
        check_wheel(wheel, pin)
    sdk.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch.", dir=sdk.parent) as tmp:
        work = Path(tmp)
        if wheel is None:
            wheel = download(work, pin, python)
            check_wheel(wheel, pin)
        staged = work / "sdk"
        unpack(wheel, staged, pin)
        manifest = sdk_manifest.write(str(staged))
        if pin.tree_sha256 is not None and manifest["tree_sha256"] != pin.tree_sha256:
            raise InputError(f"{wheel}: unpacks to tree sha256 {manifest['tree_sha256']}, not the pinned "
                             f"{pin.tree_sha256}")
        old = work / "old"
        if sdk.exists():
            os.rename(sdk, old)
        os.rename(staged, sdk)
    return sdk, True

