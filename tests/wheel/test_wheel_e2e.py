"""End to end, as a new user: build the sdist and the wheel, install the wheel into a fresh
venv, and run every command from an unrelated temporary directory.

The fresh venv. A venv with torch 2.14 installed from disk is ~5.5 GB and minutes; instead
`python -m venv` makes an empty one (no --system-site-packages, so the project's editable
install and everything else of the test environment stay out) and a ``.pth`` file adds an
*overlay*: a directory of symlinks to exactly the distributions the wheel declares, computed
from the wheel's own Requires-Dist and their closure, taken from the test environment's
site-packages (no download, no copy: seconds). pip installs the wheel with ``--no-index``, so
it must find every declared dependency in the overlay, and the commands can import nothing
undeclared: a missing or wrong dependency fails here. Phase one exposes the core
dependencies (detect, hipify, audit, aliases, build, report; `port matrix` must say which
extra it needs), phase two adds the closure of the ``matrix`` extra and runs a pack.

What runs: everything here executes on this machine's CPU (the build is `--path cpu`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from porting import assets

pytestmark = pytest.mark.slow

# Not copied into the build's source tree: this checkout's build outputs and environments.
TOP_LEVEL_SKIP = {".git", ".venv", "build", "dist", "port-out", ".whl", ".gl", ".ci"}
ANYWHERE_SKIP = {"__pycache__", "target", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}

CUDA_KERNEL = """#include <cuda_runtime.h>
__global__ void lane_sum(int* out, int v) {
  int lane = threadIdx.x % 32;  // lanes by 32, warps by warpSize: a wave64 hazard for port audit
  v += __shfl_xor_sync(~0ull, v, 1);
  if (lane == 0) atomicAdd(&out[threadIdx.x / warpSize], v);
}
int devices() { int n = 0; return cudaGetDeviceCount(&n) == cudaSuccess ? n : -1; }
"""
JUNIT = """<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="1">
<properties><property name="port.schema" value="1"/><property name="port.platform" value="cpu"/>
<property name="port.run_id" value="r"/><property name="port.complete" value="true"/></properties>
<testcase classname="mine.test_x" name="test_ok"/></testsuite></testsuites>
"""
RUST = "pub unsafe fn alloc(p: *mut *mut u8, n: usize) -> i32 { cudaMalloc(p as _, n) as i32 }\n"


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)):
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode in ok, f"{' '.join(map(str, argv))} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _ignore(root: Path):
    def ignore(directory: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n in ANYWHERE_SKIP or n.endswith(".egg-info")}
        if Path(directory) == root:
            skip |= {n for n in names if n in TOP_LEVEL_SKIP}
        if Path(directory) == root / "bench":
            skip.add("out")  # benchmark results
        return skip
    return ignore


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """sdist and wheel (the wheel built from the sdist, as `python -m build` does), plus a
    wheel built straight from the source tree, from a copy of the checkout."""
    if not assets.is_checkout():
        pytest.skip("needs the source tree (this is an installed copy)")
    base = tmp_path_factory.mktemp("dists")
    src = base / "src"
    shutil.copytree(assets.root(), src, ignore=_ignore(assets.root()), symlinks=True)
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(base / "dist"), str(src)], base)
    run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(base / "tree"), str(src)], base)
    [sdist] = (base / "dist").glob("*.tar.gz")
    [wheel] = (base / "dist").glob("*.whl")
    [tree_wheel] = (base / "tree").glob("*.whl")
    return {"sdist": sdist, "wheel": wheel, "tree_wheel": tree_wheel}


def _contents(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as z:
        return {name: z.read(name) for name in z.namelist()}


def test_wheel_and_sdist_carry_every_asset_and_the_sdist_builds_the_same_wheel(dists):
    wheel = _contents(dists["wheel"])
    assert wheel == _contents(dists["tree_wheel"])  # file for file, byte for byte
    shipped = {n for n in wheel if n.startswith(f"porting/{assets.PACKAGED}/")}
    for name in ("native/include/port_native.h", "native/src/library.cpp", "hip_aliases/overrides.toml",
                 "hip_aliases/include/hip_aliases/gpu_runtime.h", "hip_aliases/gpu_runtime_api.toml",
                 "hip_aliases/rust/Cargo.toml", "hip_aliases/rust/src/lib.rs", "test_matrix/conftest.py",
                 "test_matrix/exemptions.toml", "cmake/RocmPort.cmake"):
        assert f"porting/{assets.PACKAGED}/{name}" in shipped, name
    checkout = {str(p.relative_to(assets.root())) for d in assets.ASSET_DIRS for p in (assets.root() / d).rglob("*")
                if p.is_file() and not ANYWHERE_SKIP & set(p.relative_to(assets.root()).parts)}
    assert {n.split("/", 2)[2] for n in shipped} == checkout  # all of them, and no build outputs
    assert "porting/schemas/detect-1.schema.json" in wheel and "porting/report/parity.schema.json" in wheel
    assert "porting/schemas/emulate-1.schema.json" in wheel
    # every file of port emulate's runtime (headers, the .cpp files build.py compiles, the shims)
    runtime = assets.emulate_runtime_dir()
    runtime_files = {f"porting/{assets.EMULATE_RUNTIME}/{p.relative_to(runtime).as_posix()}"
                     for p in runtime.rglob("*") if p.suffix in (".h", ".cpp")}
    assert {f"porting/{assets.EMULATE_RUNTIME}/{n}" for n in assets.EMULATE_RUNTIME_SOURCES} <= runtime_files
    assert runtime_files <= set(wheel), sorted(runtime_files - set(wheel))
    import tarfile

    with tarfile.open(dists["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert checkout <= names and "setup.py" in names and "MANIFEST.in" in names


def _requires(dist_meta: str, extra: str | None) -> list[Requirement]:
    """Requirements a METADATA text declares for ``extra`` (None: the unconditional ones)."""
    msg = Parser().parsestr(dist_meta)
    out = []
    for line in msg.get_all("Requires-Dist") or []:
        req = Requirement(line)
        env = {"extra": extra or ""}
        if req.marker is None and extra is None:
            out.append(req)
        elif req.marker is not None and req.marker.evaluate(env) and (extra is None) != ("extra" in str(req.marker)):
            out.append(req)
    return out


def _closure(roots: list[Requirement]) -> list[metadata.Distribution]:
    """The installed distributions that ``roots`` need, transitively (in this environment)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [(r, ) for r in roots]
    while todo:
        (req,) = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        dist = metadata.distribution(req.name)  # PackageNotFoundError: the test env lacks a declared dep
        assert dist.version in req.specifier or not req.specifier, f"{req} but {dist.version} is installed"
        seen[name] = dist
        for sub in _requires(dist.read_text("METADATA") or "", None):
            todo.append((sub,))
        for extra in req.extras:
            todo += [(sub,) for sub in _requires(dist.read_text("METADATA") or "", extra)]
    return list(seen.values())


def _overlay(directory: Path, dists: list[metadata.Distribution]) -> Path:
    """Symlinks to each distribution's top-level files (packages, modules, its .dist-info)."""
    directory.mkdir(parents=True, exist_ok=True)
    for dist in dists:
        site = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            link = directory / top
            if not link.exists() and (site / top).exists():
                link.symlink_to(site / top)
    return directory


class FreshVenv:
    def __init__(self, root: Path) -> None:
        self.root = root
        run([sys.executable, "-m", "venv", "--without-pip", str(root)], root.parent)
        self.python = root / "bin" / "python"
        self.site = Path(run([str(self.python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             root).stdout.strip())

    def add_overlay(self, name: str, directory: Path) -> None:
        (self.site / f"_test_overlay_{name}.pth").write_text(f"{directory}\n")

    def pip_install(self, spec: str) -> None:
        run([sys.executable, "-m", "pip", "--python", str(self.python), "install", "--no-index",
             "--disable-pip-version-check", "--no-compile", spec], self.root)

    def env(self) -> dict[str, str]:
        outer = {str(Path(sys.prefix) / "bin"), str(Path(sys.executable).parent)}
        path = [str(self.root / "bin")] + [p for p in os.environ.get("PATH", "").split(os.pathsep) if p not in outer]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PORT_", "PYTEST_", "PYTHON", "VIRTUAL_ENV", "COV_"))}
        env.update(PATH=os.pathsep.join(path), VIRTUAL_ENV=str(self.root))
        return env

    def port(self, cwd: Path, *argv: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
        return run([str(self.root / "bin" / "port"), *argv], cwd, self.env(), ok)


def _wheel_meta(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        [meta] = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return z.read(meta).decode()


def _user_project(work: Path) -> None:
    (work / "proj").mkdir()
    (work / "proj" / "kernel.cu").write_text(CUDA_KERNEL)
    (work / "rs" / "src").mkdir(parents=True)
    (work / "rs" / "src" / "lib.rs").write_text(RUST)


def _core_commands(venv: FreshVenv, work: Path) -> None:
    detect = json.loads(venv.port(work, "detect", "--json").stdout)
    assert detect["path"] in ("cpu", "cuda", "native-hip", "hipified-cuda") and detect["schema"] == 1
    venv.port(work, "hipify", "proj", "--out", "hip")
    assert "hipGetDeviceCount" in (work / "hip" / "kernel.hip").read_text()
    audit = json.loads(venv.port(work, "audit", "proj", "--format", "json", ok=(0, 1)).stdout)
    assert "warp-size-literal" in json.dumps(audit)
    block = venv.port(work, "aliases", "scan", "rs").stdout
    assert "cudaMalloc" in block and "hipMalloc" in block
    include = Path(venv.port(work, "aliases", "--include-dir").stdout.strip())
    assert include.is_relative_to(venv.site) and (include / "hip_aliases" / "gpu_runtime.h").is_file()
    venv.port(work, "build", "--path", "cpu")
    record = json.loads((work / "build" / "port" / "cpu" / "build-record.json").read_text())
    assert record["ok"] and Path(record["source_dir"]).is_relative_to(venv.site)
    assert (work / "build" / "port" / "cpu" / record["library"]).is_file()
    (work / "cpu.xml").write_text(JUNIT)  # report needs only the core install
    venv.port(work, "report", "cpu.xml", "--out", "core-report", ok=(0, 1, 3))
    parity = json.loads((work / "core-report" / "parity.json").read_text())
    assert [t["id"] for t in parity["tests"]] == ["mine.test_x::test_ok"]
    no_extra = venv.port(work, "matrix", ok=(2,))
    assert "rocm-port[matrix]" in no_extra.stderr and "Traceback" not in no_extra.stderr


def _junit_cases(path: Path) -> dict[str, str]:
    import xml.etree.ElementTree as ET

    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        status = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        out[f"{case.get('classname')}::{case.get('name')}"] = status
    return out


def _collected(argv: list[str], cwd: Path, env: dict[str, str] | None) -> set[str]:
    out = run([*argv, "matrix", "-n", "0", "--junit", "collect", "--", "--collect-only"], cwd, env).stdout
    return {line.strip() for line in out.splitlines() if "::" in line and line.startswith("test_matrix/")}


def test_installed_wheel_runs_every_command_outside_a_checkout(dists, tmp_path):
    venv = FreshVenv(tmp_path / "venv")
    meta = _wheel_meta(dists["wheel"])
    venv.add_overlay("core", _overlay(tmp_path / "core", _closure(_requires(meta, None))))
    venv.pip_install(str(dists["wheel"]))
    where = run([str(venv.python), "-c", "import porting; print(porting.__file__)"], tmp_path, venv.env())
    assert Path(where.stdout.strip()).is_relative_to(venv.site)  # not the checkout's editable install
    work = tmp_path / "work"
    work.mkdir()
    _user_project(work)
    _core_commands(venv, work)

    venv.add_overlay("matrix", _overlay(tmp_path / "matrix", _closure(_requires(meta, "matrix"))))
    venv.pip_install(f"{dists['wheel']}[matrix]")  # --no-index: the extra's closure must be all there
    venv.port(work, "matrix", "-n", "0", "--junit", "junit", "--", "-k", "test_native_copy")
    shipped = venv.site / "porting" / assets.PACKAGED
    assert not [p for p in shipped.rglob("*") if p.suffix == ".pyc"]  # the run wrote nothing into site-packages
    [junit] = (work / "junit").glob("*.xml")
    cases = _junit_cases(junit)
    assert cases and all(c.startswith("test_matrix.rdma.test_native_copy") for c in cases)
    # executed against the library built above (device-memory cases skip on a machine without a GPU)
    assert set(cases.values()) <= {"passed", "skipped"} and list(cases.values()).count("passed") >= 10, cases
    venv.port(work, "report", "junit", "--out", "report", ok=(0, 1, 3))  # 3: no ROCm run on this machine
    parity = json.loads((work / "report" / "parity.json").read_text())
    assert {t["id"] for t in parity["tests"]} == set(cases)
    assert all((work / "report" / f).is_file() for f in ("index.html", "parity.md", "chart.svg"))

    # The same cases as in the checkout: identical node ids (so exemptions and JUnit names too).
    installed = _collected([str(venv.root / "bin" / "port")], work, venv.env())
    checkout = _collected([sys.executable, "-m", "porting"], tmp_path, None)
    assert installed and installed == checkout
