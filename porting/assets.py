"""Where the files the commands need live: ``native/``, ``hip_aliases/``, ``test_matrix/``,
``cmake/`` and the JSON schemas. The one place that knows; every command asks here.

The repository keeps those directories at its top level. A wheel (and the sdist's build of
one) maps them into the package as ``porting/_assets/<dir>`` (setup.py's build_py hook), so
the lookup is by the package's own location, never the current directory:

* installed wheel: ``<site-packages>/porting/_assets/`` holds them;
* checkout (editable install or PYTHONPATH): no ``_assets``; the package's parent directory
  (the repository root) holds them.

Both give the same relative layout, so a checkout and an installed wheel behave the same.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from .errors import PortError

ASSET_DIRS = ("native", "hip_aliases", "test_matrix", "cmake")  # what setup.py maps into the wheel
PACKAGED = "_assets"  # the package subdirectory a wheel holds them in
# A file each layout must have: it tells a checkout's root from an unrelated parent directory.
MARKER = "native/include/port_native.h"
# Schemas shipped inside the package itself (package data), by name.
SCHEMAS = {"detect-1": "schemas/detect-1.schema.json", "parity": "report/parity.schema.json",
           "emulate-1": "schemas/emulate-1.schema.json", "check-1": "schemas/check-1.schema.json",
           "fix-1": "schemas/fix-1.schema.json"}
# `port emulate`'s C++ runtime: package data (pyproject.toml), so a wheel carries it as is.
EMULATE_RUNTIME = "emulate/runtime"
# its translation units (emu_internal.h says which concern each holds), compiled into one object
EMULATE_RUNTIME_SOURCES = ("emu_launch.cpp", "emu_scheduler.cpp", "emu_warp.cpp", "emu_host_api.cpp", "emu_sites.cpp",
                           "emu_graph.cpp")


class AssetError(PortError):
    """The installation lacks a file it should ship (a broken wheel or a partial checkout)."""


def package_dir() -> Path:
    # A regular directory: the package is not zip-safe (it runs compilers on these files).
    return Path(str(importlib.resources.files("porting")))


def root() -> Path:
    """The directory holding native/, hip_aliases/, test_matrix/ and cmake/."""
    packaged = package_dir() / PACKAGED
    if (packaged / MARKER).is_file():
        return packaged
    checkout = package_dir().parent
    if (checkout / MARKER).is_file():
        return checkout
    raise AssetError(f"{package_dir()}: rocm-port installation lacks its assets (no {PACKAGED}/{MARKER} in "
                     f"the package, no {MARKER} beside it); reinstall the wheel or use a full checkout")


def is_checkout() -> bool:
    """True when the assets are a repository's own files (editable), not an installed copy."""
    return root() != package_dir() / PACKAGED


def native_dir() -> Path:
    return root() / "native"


def aliases_dir() -> Path:
    return root() / "hip_aliases"


def aliases_include() -> Path:
    """The include directory of the portable header (``#include "hip_aliases/gpu_runtime.h"``)."""
    return aliases_dir() / "include"


def overrides_file() -> Path:
    return aliases_dir() / "overrides.toml"


def rust_crate() -> Path:
    return aliases_dir() / "rust"


def matrix_dir() -> Path:
    return root() / "test_matrix"


def exemptions_file() -> Path:
    return matrix_dir() / "exemptions.toml"


def cmake_dir() -> Path:
    """Holds RocmPort.cmake (``list(APPEND CMAKE_MODULE_PATH ...)``; ``include(RocmPort)``)."""
    return root() / "cmake"


def emulate_runtime_dir() -> Path:
    """emu_runtime.h, the runtime's sources and the shim include/ directory `port emulate` compiles against."""
    path = package_dir() / EMULATE_RUNTIME
    for name in ("emu_runtime.h", *EMULATE_RUNTIME_SOURCES):
        if not (path / name).is_file():
            raise AssetError(f"{path}: rocm-port installation lacks port emulate's runtime ({name}); "
                             "reinstall the wheel or use a full checkout")
    return path


def schema(name: str) -> Path:
    """A JSON schema shipped with the package, by name (``detect-1``, ``parity``)."""
    if name not in SCHEMAS:
        raise AssetError(f"schema {name!r}: unknown (known: {', '.join(sorted(SCHEMAS))})")
    return package_dir() / SCHEMAS[name]
