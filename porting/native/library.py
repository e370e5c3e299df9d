"""Find, load and type the native shared library (ctypes over the C ABI)."""

from __future__ import annotations

import ctypes
import json
import os
import threading
from pathlib import Path

from ..registry import PATH_NAMES
from .errors import STATUS_NAMES, NativeError, NoDeviceError

ABI_VERSION = 1
PATHS = PATH_NAMES  # load() preference order: the registry declares paths in it
RECORD_NAME = "build-record.json"
DEFAULT_BUILD_DIR = "build/port"

c_i32, c_i64, c_u32, c_u64, c_vp = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
P = ctypes.POINTER


class PointerInfoC(ctypes.Structure):
    _fields_ = [("kind", c_i32), ("device", c_i32), ("pci_bus_id", ctypes.c_char * 32)]


class ExportHandleC(ctypes.Structure):
    _fields_ = [("kind", c_i32), ("device", c_i32), ("size", c_u64), ("offset", c_u64),
                ("bytes", ctypes.c_ubyte * 128)]


_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "pn_abi_version": (ctypes.c_int, []),
    "pn_backend_name": (ctypes.c_char_p, []),
    "pn_build_path": (ctypes.c_char_p, []),
    "pn_last_error": (ctypes.c_char_p, []),
    "pn_device_count": (ctypes.c_int, [P(c_i32)]),
    "pn_set_num_threads": (None, [c_i32]),
    "pn_get_num_threads": (c_i32, []),
    "pn_classify_pointer": (ctypes.c_int, [c_vp, P(PointerInfoC)]),
    "pn_registry_create": (ctypes.c_int, [P(c_vp)]),
    "pn_registry_destroy": (None, [c_vp]),
    "pn_register": (ctypes.c_int, [c_vp, c_vp, c_u64, c_u32, P(c_u64)]),
    "pn_deregister": (ctypes.c_int, [c_vp, c_u64]),
    "pn_segment": (ctypes.c_int, [c_vp, c_u64, P(c_vp), P(c_u64), P(PointerInfoC)]),
    "pn_segment_count": (ctypes.c_int, [c_vp, P(c_u64)]),
    "pn_alloc_exportable": (ctypes.c_int, [c_vp, c_u64, c_u32, P(c_vp), P(c_u64)]),
    "pn_export": (ctypes.c_int, [c_vp, c_u64, P(ExportHandleC)]),
    "pn_import": (ctypes.c_int, [c_vp, P(ExportHandleC), c_u32, P(c_vp), P(c_u64)]),
    "pn_engine_create": (ctypes.c_int, [c_vp, P(c_vp)]),
    "pn_engine_destroy": (None, [c_vp]),
    "pn_engine_copy": (ctypes.c_int, [c_vp, c_u64, c_u64, c_u64, c_u64, c_u64, P(c_u64)]),
    "pn_event_query": (ctypes.c_int, [c_vp, c_u64, P(c_i32)]),
    "pn_event_wait": (ctypes.c_int, [c_vp, c_u64]),
    "pn_engine_synchronize": (ctypes.c_int, [c_vp]),
    "pn_gather_shard": (ctypes.c_int, [c_vp, c_i32, P(c_i64), P(c_i64), c_i32, c_i32, c_i64, c_i64, c_vp, c_vp]),
    "pn_scatter_shard": (ctypes.c_int, [c_vp, c_i32, P(c_i64), P(c_i64), c_i32, c_i32, c_i64, c_i64, c_vp, c_vp]),
    "pn_reduce": (ctypes.c_int, [P(c_vp), c_i32, c_i64, c_i32, c_i32, c_vp, c_vp]),
    "pn_stream_synchronize": (ctypes.c_int, [c_vp]),
}


class Library:
    """A loaded native library: typed ctypes functions plus status checking."""

    def __init__(self, file: str | os.PathLike[str]) -> None:
        self.file = Path(file)
        try:
            self.cdll = ctypes.CDLL(str(self.file))
        except OSError as exc:
            raise NativeError(f"{self.file}: cannot load native library: {exc}", "runtime") from None
        for name, (restype, argtypes) in _SIGNATURES.items():
            try:
                fn = getattr(self.cdll, name)
            except AttributeError:
                raise NativeError(f"{self.file}: missing symbol {name} (stale build? run `port build`)") from None
            fn.restype, fn.argtypes = restype, argtypes
        abi = self.cdll.pn_abi_version()
        if abi != ABI_VERSION:
            raise NativeError(f"{self.file}: ABI version {abi}, this binding needs {ABI_VERSION}; rebuild")
        self.backend: str = self.cdll.pn_backend_name().decode()
        self.path: str = self.cdll.pn_build_path().decode()

    def call(self, name: str, *args: object) -> None:
        """Call ``name``; raise NativeError with the library's message if it fails."""
        status = getattr(self.cdll, name)(*args)
        if status != 0:
            message = (self.cdll.pn_last_error() or b"").decode(errors="replace") or "failed"
            kind = STATUS_NAMES.get(status, "runtime")
            if kind == "no-device":
                raise NoDeviceError(f"{name}: {message}")
            raise NativeError(f"{name}: {message}", kind)

    def device_count(self) -> int:
        """Number of devices (0 on the cpu backend); NoDeviceError if a GPU build has none."""
        count = c_i32(0)
        self.call("pn_device_count", ctypes.byref(count))
        return count.value

    def set_num_threads(self, threads: int) -> None:
        """Host threads for one cpu copy/reduce above 4 MiB (default 1: torch's own intra-op
        threads may already occupy the cores; 0 = one per core; no effect on GPU builds)."""
        self.cdll.pn_set_num_threads(int(threads))

    def num_threads(self) -> int:
        return int(self.cdll.pn_get_num_threads())

    def usable(self) -> bool:
        if self.backend == "cpu":
            return True
        try:
            return self.device_count() > 0
        except NativeError:
            return False

    def __repr__(self) -> str:
        return f"Library(path={self.path!r}, backend={self.backend!r}, file={str(self.file)!r})"


def _build_dir(build_dir: str | os.PathLike[str] | None) -> Path:
    if build_dir is not None:
        return Path(build_dir)
    from ..config import load_config  # the project's build_dir (port.toml / env / default)

    try:
        return Path(load_config()["build_dir"])
    except Exception:  # a broken config must not break loading with an explicit fallback
        return Path(DEFAULT_BUILD_DIR)


def library_path(path: str, build_dir: str | os.PathLike[str] | None = None) -> Path:
    """The library recorded by `port build --path PATH` in build_dir; NativeError if none."""
    if path not in PATHS:
        raise NativeError(f"unknown build path {path!r} (expected one of {', '.join(PATHS)})")
    record = _build_dir(build_dir) / path / RECORD_NAME
    try:
        data = json.loads(record.read_text())
    except FileNotFoundError:
        raise NativeError(f"{record}: no build record; run `port build --path {path}`", "not-found") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise NativeError(f"{record}: unreadable build record: {exc.__class__.__name__}") from None
    if not isinstance(data, dict) or not data.get("ok") or not data.get("library"):
        raise NativeError(f"{record}: the last `port build --path {path}` did not succeed", "not-found")
    if data.get("runnable") is False:  # loading would only fail on ROCm's missing runtime symbols
        raise NativeError(f"{record}: built by the compile-only {data.get('toolchain')} toolchain (compiled for "
                          f"{','.join(data.get('gpu_archs') or [])}); nothing built with it runs here", "not-found")
    lib = Path(data["library"])
    return lib if lib.is_absolute() else record.parent / lib


_cache: dict[Path, Library] = {}
_lock = threading.Lock()
_default: list[Library] = []


def _load_file(file: Path) -> Library:
    key = file.resolve()
    with _lock:
        if key not in _cache:
            _cache[key] = Library(key)
        return _cache[key]


def load(path: str | None = None, build_dir: str | os.PathLike[str] | None = None) -> Library:
    """Load the library built for ``path``; with no path, the first usable of cuda,
    native-hip, hipified-cuda, cpu that has been built. The first load becomes the default
    library used by the module-level functions (``gather_shard``, ``Registry``...)."""
    lib: Library | None
    if path is not None:
        lib = _load_file(library_path(path, build_dir))
    else:
        problems: list[str] = []
        statuses: list[str] = []
        lib = None
        for candidate in PATHS:
            try:
                found = _load_file(library_path(candidate, build_dir))
            except NativeError as exc:
                problems.append(str(exc))
                statuses.append(exc.status)
                continue
            if found.usable():
                lib = found
                break
            problems.append(f"{candidate}: built, but no usable device")
        if lib is None:
            raise NativeError("no usable native build: " + "; ".join(problems), _worst(statuses))
    with _lock:
        if not _default:
            _default.append(lib)
    return lib


PLACEMENTS = ("host", "device")
GPU_PATHS = tuple(p for p in PATHS if p != "cpu")


def load_for(memory: str, gpu_path: str | None = None,
             build_dir: str | os.PathLike[str] | None = None) -> Library:
    """The library for tensors in ``memory``: ``host`` tensors use the cpu build (a GPU build
    works on device tensors only), ``device`` tensors the GPU build of ``gpu_path`` (default:
    the first usable of cuda, native-hip, hipified-cuda). A GPU host that runs both kinds of
    case therefore needs both builds (`port build --path cpu` and its GPU path)."""
    if memory not in PLACEMENTS:
        raise NativeError(f"memory placement {memory!r}: expected one of {', '.join(PLACEMENTS)}")
    if memory == "host":
        return load("cpu", build_dir)
    problems: list[str] = []
    statuses: list[str] = []
    for candidate in (gpu_path,) if gpu_path else GPU_PATHS:
        if candidate == "cpu":
            raise NativeError("device memory needs a GPU build; path 'cpu' was given")
        try:
            lib = load(candidate, build_dir)
        except NativeError as exc:
            problems.append(str(exc))
            statuses.append(exc.status)
            continue
        if lib.usable():
            return lib
        problems.append(f"{candidate}: built, but no usable device")
    raise NativeError("no usable GPU build for device memory: " + "; ".join(problems), _worst(statuses))


def _worst(statuses: list[str]) -> str:
    """``not-found`` only when every candidate was simply not built (or built compile-only, or
    without a device): a build that exists but does not load (dlopen error, missing symbol, ABI
    mismatch, unreadable record) keeps its own status, so callers can tell "absent" (skip) from
    "broken" (an error) -- see ``absent``."""
    return next((s for s in statuses if s != "not-found"), "not-found")


def absent(exc: NativeError) -> bool:
    """Was the native build simply not made for this machine (cases skip), as opposed to made
    and failing to load (cases error)?"""
    return exc.status == "not-found"


def default_library(lib: Library | None = None) -> Library:
    if lib is not None:
        return lib
    with _lock:
        if _default:
            return _default[0]
    return load()


def is_available(path: str | None = None, build_dir: str | os.PathLike[str] | None = None) -> bool:
    try:
        load(path, build_dir)
        return True
    except NativeError:
        return False


def ensure_built(path: str = "cpu", build_dir: str | os.PathLike[str] | None = None, jobs: int = 0) -> Library:
    """Build ``native/`` for ``path`` into build_dir (incremental; a no-op when up to date),
    then load it. For test fixtures: serialise concurrent callers with a file lock."""
    from ..builder import build

    out = _build_dir(build_dir)
    record = build(path, build_dir=out, jobs=jobs)
    if not record.ok:
        raise NativeError(f"port build --path {path} failed: {record.error}", "runtime")
    return load(path, out)
