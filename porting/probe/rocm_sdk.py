"""Probe: the compile-only ROCm 7 toolchain (a versioned clang + the ROCm 7 SDK headers).

The SDK is ROCm's HIP headers and the ocml/ockl device libraries, unpacked by
``port sdk fetch`` from a pinned PyPI triton wheel into
``$PORT_ROCM7_SDK`` or ``${XDG_CACHE_HOME:-$HOME/.cache}/rocm-port/rocm7-sdk/<name>/``, with a
``SOURCE.json`` saying where it came from. With Debian's ``clang++-N``,
``clang-offload-bundler-N`` and ``ld.lld-N`` (N new enough to know gfx950) it compiles and
device-links HIP code for gfx942/gfx950; there is no runtime, so nothing built with it runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import PortError
from ..parsing import loads_json
from ..records import Record, asdict
from . import fs
from .rocm import version_from_header

TYPE_CHECKING = False  # typing is not imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from .fs import Root

MIN_CLANG_MAJOR = 20  # the first LLVM whose AMDGPU backend knows gfx950 (MI350/355)
SDK_SUBDIR = "rocm-port/rocm7-sdk"


class RocmSdkInfo(Record):
    found: bool = False  # SDK headers and a new enough clang with its bundler and lld
    sdk: str | None = None
    include_dir: str | None = None
    device_lib_dir: str | None = None  # ocml.bc, ockl.bc
    hip_version: str | None = None  # from the SDK's hip/hip_version.h
    source: dict = {}  # SOURCE.json: origin, wheel, sha256 (where the headers came from)
    clang: str | None = None
    clang_major: int | None = None
    bundler: str | None = None
    lld: str | None = None
    evidence: list[str] = []
    problems: list[str] = []

    def to_json(self) -> dict:
        return asdict(self)

    @property
    def headers_from(self) -> str:
        """One phrase: where the headers came from (for detect and the build record)."""
        origin = self.source.get("wheel") or self.source.get("origin") or "unknown origin"
        digest = self.source.get("sha256")
        tree = self.source.get("tree_sha256")
        state = (f", tree sha256 {tree[:12]} verified" if tree
                 else ", UNVERIFIED against a manifest" if self.source.get("manifest") else "")
        return f"{self.include_dir} (from {origin}" + (f", sha256 {digest[:12]}" if digest else "") + state + ")"


def sdk_cache(env: Mapping[str, str]) -> str | None:
    """The per-user directory the SDKs are unpacked into (``port sdk fetch``) and looked for;
    None when neither XDG_CACHE_HOME nor HOME is set."""
    base = env.get("XDG_CACHE_HOME") or (f"{env['HOME']}/.cache" if env.get("HOME") else None)
    return None if base is None else f"{base.rstrip('/')}/{SDK_SUBDIR}"


def _manifest_ok(root: Root, sdk: str, source: dict, info: RocmSdkInfo, explicit: bool) -> bool:
    """The cheap check at every selection (sizes and mtimes against MANIFEST.json, the tree
    digest against the pin when SOURCE.json names the pinned wheel). A cache entry that fails
    it is not used; an SDK the user named (PORT_ROCM7_SDK) is used, marked unverified."""
    from .. import sdk_manifest
    from ..sdk_pin import PIN

    pinned = PIN.tree_sha256 if source.get("wheel") == PIN.wheel else None
    verdict = sdk_manifest.verify(str(fs.under(root, sdk)), pinned, full=False)
    info.evidence.append(verdict.why)
    if verdict.ok:
        source["manifest"] = f"verified (sizes and mtimes; tree sha256 {verdict.tree_sha256[:16]})"
        source["tree_sha256"] = verdict.tree_sha256
        return True
    if explicit:
        source["manifest"] = "UNVERIFIED: " + verdict.why
        info.problems.append(f"{sdk}: used as PORT_ROCM7_SDK names it, but {verdict.why}")
        return True
    info.problems.append(f"{sdk}: not used: {verdict.why}")
    return False


def _sdk_candidates(root: Root, env: Mapping[str, str], info: RocmSdkInfo) -> list[str]:
    if env.get("PORT_ROCM7_SDK"):
        return [env["PORT_ROCM7_SDK"]]
    info.evidence.append("PORT_ROCM7_SDK: unset")
    parent = sdk_cache(env)
    if parent is None:
        info.evidence.append("XDG_CACHE_HOME and HOME unset: no default SDK cache")
        return []
    names = [n for n in fs.listdir(root, parent) if not n.startswith(".")]
    if not names:
        info.evidence.append(f"{parent}: no SDK (`port sdk fetch` fetches one)")
    return [f"{parent}/{n}" for n in sorted(names, reverse=True)]


def _read_sdk(root: Root, sdk: str, info: RocmSdkInfo, explicit: bool = False) -> bool:
    version, note = version_from_header(root, sdk)
    info.evidence.append(note if version is None else f"{note}: {version}")
    if version is None:
        return False
    text = fs.read_text(root, f"{sdk}/SOURCE.json")
    try:
        source = loads_json(text, f"{sdk}/SOURCE.json") if text is not None else {}
    except PortError:  # not JSON, or nested too deeply
        source = {}
        info.problems.append(f"{sdk}/SOURCE.json: not JSON; the headers' origin is unknown")
    if text is None:
        info.problems.append(f"{sdk}/SOURCE.json: absent; the headers' origin is unknown")
    source = source if isinstance(source, dict) else {}
    if not _manifest_ok(root, sdk, source, info, explicit):
        return False
    libs = [n for n in ("ocml.bc", "ockl.bc") if not fs.exists(root, f"{sdk}/lib/{n}")]
    if libs:
        info.problems.append(f"{sdk}/lib lacks {', '.join(libs)}: no device link")
    info.sdk, info.include_dir, info.hip_version = sdk, f"{sdk}/include", version
    info.device_lib_dir = None if libs else f"{sdk}/lib"
    info.source = {k: source[k] for k in ("kind", "origin", "wheel", "sha256", "hip_version", "manifest",
                                          "tree_sha256") if k in source}
    return True


def _clang(root: Root, env: Mapping[str, str], info: RocmSdkInfo) -> None:
    majors: set[int] = set()
    for entry in env.get("PATH", "").split(":"):
        for name in fs.glob_names(root, entry, "clang++-"):
            if re.fullmatch(r"clang\+\+-\d+", name):
                majors.add(int(name.rsplit("-", 1)[1]))
    usable = sorted((m for m in majors if m >= MIN_CLANG_MAJOR), reverse=True)
    if not usable:
        seen = ", ".join(f"clang++-{m}" for m in sorted(majors)) or "none"
        info.evidence.append(f"versioned clang++ on PATH: {seen} (need {MIN_CLANG_MAJOR}+ for gfx950)")
        return
    for major in usable:
        tools = [fs.which(root, env, f"{t}-{major}") for t in ("clang++", "clang-offload-bundler", "ld.lld")]
        if all(tools):
            info.clang, info.bundler, info.lld = tools
            info.clang_major = major
            info.evidence.append(f"clang++-{major} with clang-offload-bundler-{major} and ld.lld-{major}")
            return
        missing = [t for t, p in zip(("clang-offload-bundler", "ld.lld"), tools[1:]) if not p]
        info.evidence.append(f"clang++-{major}: no {', '.join(f'{m}-{major}' for m in missing)} on PATH")


def probe_rocm_sdk(root: Root, env: Mapping[str, str]) -> RocmSdkInfo:
    info = RocmSdkInfo()
    for sdk in _sdk_candidates(root, env, info):
        if _read_sdk(root, sdk, info, explicit=bool(env.get("PORT_ROCM7_SDK"))):
            break
    _clang(root, env, info)
    info.found = info.sdk is not None and info.clang is not None
    return info
