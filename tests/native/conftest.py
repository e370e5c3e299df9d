"""Fixtures for the native layer: build the cpu library once per test session.

Under pytest-xdist all workers share one build directory (the parent of their base temp
dirs); ``porting.builder.build`` serialises on a file lock, so the first worker compiles and
the others find every step up to date.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def shared_build_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    base = tmp_path_factory.getbasetemp()
    root = base.parent if worker_id != "master" else base
    return root / "native-build"


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    return shared_build_dir(tmp_path_factory, worker_id)


@pytest.fixture(scope="session")
def lib(build_dir: Path):
    from porting import native

    return native.ensure_built("cpu", build_dir)



EMULATED_UNITS = ("src/library.cpp", "src/registry.cpp", "src/copy_engine.cpp", "src/runtime_cpu.cpp",
                  "check/shard_kernels_emulated.cpp")


@pytest.fixture(scope="session")
def emulated_lib(build_dir: Path):
    """A test-only library whose shard functions run the GPU kernels (shard_kernels.cuh)
    through the CPU emulation of hip_aliases/gpu_runtime.h."""
    import shutil

    from porting import assets
    from porting.builder import _locked
    from porting.builder.sources import header_files
    from porting.builder.steps import Command, run_commands
    from porting.native import Library
    from porting.paths import OutputDir

    NATIVE_DIR, ALIASES_INCLUDE = assets.native_dir(), assets.aliases_include()
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None or not (ALIASES_INCLUDE / "hip_aliases" / "gpu_runtime.h").is_file():
        pytest.skip("needs a host C++ compiler and hip_aliases/include/hip_aliases/gpu_runtime.h")
    out = build_dir / "gpu-kernels-emulated"
    headers = header_files(NATIVE_DIR, ALIASES_INCLUDE)
    flags = ["-O2", "-std=c++17", "-fPIC", "-fvisibility=hidden", '-DPN_BUILD_PATH="gpu-kernels-emulated"',
             f"-I{NATIVE_DIR / 'include'}", f"-I{ALIASES_INCLUDE}"]
    objs = [out / (Path(u).name + ".o") for u in EMULATED_UNITS]
    compiles = [Command("compile", u, o, [cxx, *flags, "-c", str(NATIVE_DIR / u), "-o", str(o)],
                        [NATIVE_DIR / u] + headers) for u, o in zip(EMULATED_UNITS, objs)]
    library = out / "libport_native_emulated.so"
    link = Command("link", "objects", library, [cxx, "-shared", "-o", str(library), *map(str, objs), "-lpthread"],
                   [o.with_name(o.name + ".stamp") for o in objs])
    with _locked(OutputDir(build_dir), out.name):
        run_commands(compiles, 0)
        run_commands([link], 1)
    return Library(library)


@pytest.fixture(params=["cpu", "gpu-kernels-emulated"])
def shard_lib(request):
    """The cpu build's shard functions, and the GPU kernels run through the CPU emulation."""
    return request.getfixturevalue("lib" if request.param == "cpu" else "emulated_lib")
