"""Configuration: precedence CLI > env > file > defaults, and one-line errors for bad files."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from porting.config import load_config
from porting.errors import ConfigError


def run_port(cwd, *args, env=None):
    base = {k: v for k, v in os.environ.items() if not k.startswith("PORT_")}
    env = {**base, **(env or {})}
    return subprocess.run([sys.executable, "-m", "porting", *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_defaults(tmp_path):
    cfg = load_config(env={}, project_dir=tmp_path)
    assert cfg["platform"] == "auto" and cfg["min_rocm"] == "7.0" and cfg.origin["platform"] == "default"


def test_precedence_cli_over_env_over_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.port]\nplatform = "rocm"\njobs = 3\n'
                                             '[tool.port.audit]\nfail_on = "warning"\n')
    cfg = load_config(env={}, project_dir=tmp_path)
    assert (cfg["platform"], cfg["jobs"], cfg["audit.fail_on"]) == ("rocm", 3, "warning")
    assert cfg.origin["platform"] == f"file:{tmp_path / 'pyproject.toml'}"
    cfg = load_config(env={"PORT_GPU_PLATFORM": "cuda", "PORT_JOBS": "5"}, project_dir=tmp_path)
    assert (cfg["platform"], cfg["jobs"]) == ("cuda", 5) and cfg.origin["platform"] == "env:PORT_GPU_PLATFORM"
    cfg = load_config(cli={"platform": "none"}, env={"PORT_GPU_PLATFORM": "cuda"}, project_dir=tmp_path)
    assert cfg["platform"] == "none" and cfg.origin["platform"] == "cli"


def test_port_toml_wins_over_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.port]\nplatform = "rocm"\n')
    (tmp_path / "port.toml").write_text('platform = "none"\n')
    assert load_config(env={}, project_dir=tmp_path)["platform"] == "none"


@pytest.mark.parametrize("text,message", [
    ('[tool.port]\nplatfrom = "rocm"\n', "unknown key 'platfrom'"),
    ('[tool.port]\njobs = "four"\n', "key 'jobs' must be an integer, got str 'four'"),
    ('[tool.port]\nplatform = "metal"\n', "key 'platform' must be one of auto, cuda, rocm, none"),
    ('[tool.port]\nsources = "native"\n', "key 'sources' must be a list of strings"),
    ('[tool.port\nplatform = 1\n', "invalid TOML"),
])
def test_bad_config_is_one_line_exit_2(tmp_path, text, message):
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(env={}, project_dir=tmp_path)
    proc = run_port(tmp_path, "detect")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(tmp_path / "pyproject.toml") in lines[0] and message.split(",")[0] in lines[0]


def test_unreadable_config_file(tmp_path):
    (tmp_path / "port.toml").mkdir()  # a directory where a file should be: unreadable as a file
    (tmp_path / "cfg.toml").write_bytes(b"platform = \"\xff\xfe\"\n")
    proc = run_port(tmp_path, "detect", "--config", str(tmp_path / "port.toml"))
    assert proc.returncode == 2 and "cannot read config file" in proc.stderr
    proc = run_port(tmp_path, "detect", "--config", str(tmp_path / "cfg.toml"))
    assert proc.returncode == 2 and "not UTF-8" in proc.stderr
    proc = run_port(tmp_path, "detect", "--config", str(tmp_path / "missing.toml"))
    assert proc.returncode == 2 and "missing.toml: config file does not exist" in proc.stderr


def test_bad_env_value_names_the_variable(tmp_path):
    proc = run_port(tmp_path, "detect", env={"PORT_JOBS": "many"})
    assert proc.returncode == 2 and "environment variable PORT_JOBS: must be an integer" in proc.stderr
    proc = run_port(tmp_path, "detect", env={"PORT_GPU_PLATFORM": "metal"})
    assert proc.returncode == 2 and "PORT_GPU_PLATFORM" in proc.stderr


def test_bad_root_and_usage(tmp_path):
    proc = run_port(tmp_path, "detect", "--root", str(tmp_path / "nope"))
    assert proc.returncode == 2 and "--root" in proc.stderr and "not a directory" in proc.stderr
    proc = run_port(tmp_path, "--version")
    assert proc.returncode == 0 and "rocm-port" in proc.stdout
    proc = run_port(tmp_path, "--help")
    assert proc.returncode == 0 and "detect" in proc.stdout


def test_unwritable_output_is_one_line_naming_the_file(tmp_path):
    (tmp_path / "file").write_text("x")
    proc = run_port(tmp_path, "detect", "--out", str(tmp_path / "file" / "detect.json"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("port: error: ") and "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and str(tmp_path / "file") in proc.stderr
