"""`cargo test --offline` of the hip-aliases crate and its test -sys crate, in both configurations.

The cfg comes from the build.rs helper (hip_aliases::build::configure): PORT_GPU_PLATFORM, else
`port detect --json`. With use_rocm, the test -sys crate's CUDA-named code must compile against
its fake HIP bindings through the generated aliases and reach the HIP items; without it, the
aliases must vanish. Target directories live under hip_aliases/rust/target/ (git-ignored).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def cargo_test(cargo: str, rust_dir: Path, target: str, env_extra: dict[str, str],
               *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PORT_GPU_PLATFORM", "PORT_BIN", "RUSTFLAGS")}
    env.update({"CARGO_TARGET_DIR": str(rust_dir / "target" / target), "RUSTFLAGS": "-D warnings",
                "CARGO_TERM_COLOR": "never", **env_extra})
    env["PATH"] = f"{Path(cargo).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([cargo, "test", "--offline", "--workspace", *args], cwd=rust_dir, env=env,
                          capture_output=True, text=True)


ROCM_TESTS = ("tests::aliases_resolve_to_the_hip_items", "cuda_names_resolve_to_the_hip_items",
              "macro_and_generated_file_give_the_same_aliases")
CUDA_TESTS = ("tests::without_use_rocm_the_cuda_items_are_untouched",
              "without_rocm_the_cuda_bindings_are_used_unchanged")


@pytest.mark.parametrize("platform", ["rocm", "cuda"])
def test_crate_in_both_configurations(cargo: str, hip_aliases_dir: Path, platform: str) -> None:
    proc = cargo_test(cargo, hip_aliases_dir / "rust", f"pytest-{platform}", {"PORT_GPU_PLATFORM": platform})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    ran, absent = (ROCM_TESTS, CUDA_TESTS) if platform == "rocm" else (CUDA_TESTS, ROCM_TESTS)
    for name in ran:
        assert f"test {name} ... ok" in out
    for name in absent:
        assert f"test {name} " not in out
    assert "build::tests::env_decides_without_running_detect ... ok" in out
    assert "unexpected `cfg` condition" not in proc.stderr  # check-cfg declared (rustc >= 1.80)


def test_auto_platform_asks_port_detect(cargo: str, hip_aliases_dir: Path, tmp_path: Path) -> None:
    fake_port = tmp_path / "port"
    fake_port.write_text(f"#!{sys.executable}\nimport json, sys\n"
                         "assert sys.argv[1:] == ['detect', '--json'], sys.argv\n"
                         "print(json.dumps({'schema': 1, 'gpus': [{'device': 'cuda'}], 'device': 'rocm'}))\n")
    fake_port.chmod(0o755)
    proc = cargo_test(cargo, hip_aliases_dir / "rust", "pytest-auto", {"PORT_GPU_PLATFORM": "auto",
                                                                       "PORT_BIN": str(fake_port)},
                      "-p", "hip-aliases-test-sys")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "test cuda_names_resolve_to_the_hip_items ... ok" in proc.stdout


def test_unknown_name_in_the_macro_is_a_compile_error(cargo: str, hip_aliases_dir: Path, tmp_path: Path) -> None:
    crate = tmp_path / "bad-sys"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "bad-sys"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n\n'
        f'[dependencies]\nhip-aliases = {{ path = "{hip_aliases_dir / "rust"}" }}\n')
    (crate / "src" / "lib.rs").write_text("hip_aliases::rocm_compat!(cuInit, cuFrobnicateEverything);\n")
    env = {k: v for k, v in os.environ.items() if k != "RUSTFLAGS"}
    env.update({"CARGO_TARGET_DIR": str(hip_aliases_dir / "rust" / "target" / "pytest-bad"),
                "PORT_GPU_PLATFORM": "rocm", "CARGO_TERM_COLOR": "never"})
    proc = subprocess.run([cargo, "build", "--offline"], cwd=crate, env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "hip-aliases: `cuFrobnicateEverything` has no HIP counterpart in the alias table" in proc.stderr
