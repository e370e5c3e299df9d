"""Issue 11, items 9-11 and 15: bounded numbers, versions, probe files and config/baseline
loaders. Property-based where the input space is text: every input is a value or a PortError,
never a traceback, a hang or a version that passes a gate it should not."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porting.config import load_config, workers_value
from porting.errors import ConfigError, InputError, PortError
from porting.matrix.exemptions import registry_files
from porting.parsing import bounded_int, load_json, loads_json, loads_toml
from porting.probe import fs
from porting.probe.cuda import version_from_header as cuda_header
from porting.probe.cuda import version_from_json as cuda_json
from porting.probe.gpus import gfx_name, probe_gpus
from porting.probe.rocm import probe_rocm
from porting.report.junit_reader import read_run
from porting.versions import compare, parse_version

HUGE = "9" * 5000  # past Python's int-conversion limit (4300 digits)
UNICODE_DIGITS = ["²", "٣", "７", "𝟡", "¹²"]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# -- numbers and versions ----------------------------------------------------------------
@SETTINGS
@given(st.text())
def test_bounded_int_is_an_ascii_int_or_none(text: str) -> None:
    value = bounded_int(text)
    stripped = text.strip()
    if value is None:
        assert not (stripped.isascii() and stripped.isdigit() and len(stripped) <= 9)
    else:
        assert 0 <= value < 10 ** 9 and value == int(stripped)


@pytest.mark.parametrize("text", [HUGE, *UNICODE_DIGITS, "", "-", "1e3", "0x10", " 12 3"])
def test_bounded_int_rejects(text: str) -> None:
    assert bounded_int(text) is None


@SETTINGS
@given(st.text())
def test_parse_version_never_raises_and_fields_are_bounded(text: str) -> None:
    v = parse_version(text)
    assert v is None or (1 <= len(v) <= 3 and all(0 <= f < 10 ** 6 for f in v))


@pytest.mark.parametrize("text", ["1" * 26 + ".0", "99999999999999999999999999.0.1", HUGE + ".0",
                                  "7" + "0" * 25, "²·⁰", "٧.٠"])
def test_absurd_versions_are_unknown_not_past_the_gate(text: str) -> None:
    v = parse_version(text)
    assert v is None or not compare(v, ">=", (7, 0))


@SETTINGS
@given(st.integers(1, 99), st.integers(0, 15), st.integers(0, 15))
def test_gfx_name_encodes_every_valid_target(major: int, minor: int, stepping: int) -> None:
    assert gfx_name(major * 10000 + minor * 100 + stepping) == f"gfx{major}{minor:x}{stepping:x}"


@pytest.mark.parametrize("target", [9999999999, 1000000, 90416, 91600, 9999, 0, -90402])
def test_gfx_name_refuses_what_no_gpu_reports(target: int) -> None:
    assert gfx_name(target) is None


# -- probe files ---------------------------------------------------------------------------
def _write(root: Path, path: str, text: str) -> Path:
    real = root / path.lstrip("/")
    real.parent.mkdir(parents=True, exist_ok=True)
    real.write_text(text)
    return real


def _fifo(root: Path, path: str) -> Path:
    real = root / path.lstrip("/")
    real.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(real)
    return real


def _returns(fn, *args):
    """Call ``fn`` in a thread; a read that blocks on a FIFO fails the test instead of hanging it."""
    box: dict[str, object] = {}
    thread = threading.Thread(target=lambda: box.setdefault("value", fn(*args)), daemon=True)
    thread.start()
    thread.join(timeout=60)  # a hang guard, not a speed limit
    assert "value" in box, f"{fn.__name__} blocked"
    return box["value"]


def test_read_text_of_a_fifo_or_device_is_absent_without_blocking(tmp_path: Path) -> None:
    _fifo(tmp_path, "/opt/rocm/.info/version")
    assert _returns(fs.read_text, tmp_path, "/opt/rocm/.info/version") is None
    assert _returns(fs.read_text, Path("/"), "/dev/zero") is None  # a device: no endless read
    _write(tmp_path, "/big", "x" * (fs.READ_LIMIT + 4096))
    assert len(fs.read_text(tmp_path, "/big") or "") == fs.READ_LIMIT


def test_rocm_probe_survives_fifos_huge_and_unicode_numbers(tmp_path: Path) -> None:
    home = "/opt/rocm"
    _fifo(tmp_path, f"{home}/.info/version")
    _write(tmp_path, f"{home}/include/hip/hip_version.h",
           f"#define HIP_VERSION_MAJOR {HUGE}\n#define HIP_VERSION_MINOR 0\n")
    _write(tmp_path, f"{home}/share/hip/version", "HIP_VERSION_MAJOR=²\nHIP_VERSION_MINOR=1\n")
    info = _returns(probe_rocm, tmp_path, {"PATH": "/usr/bin"})
    assert info.version is None and any("no version could be read" in p for p in info.problems)


def test_a_26_digit_rocm_version_file_is_not_a_version(tmp_path: Path) -> None:
    _write(tmp_path, "/opt/rocm/.info/version", "1" * 26 + ".0.0-1\n")
    _write(tmp_path, "/opt/rocm/include/hip/hip_version.h",
           "#define HIP_VERSION_MAJOR " + "1" * 26 + "\n#define HIP_VERSION_MINOR 0\n")
    assert probe_rocm(tmp_path, {"PATH": "/usr/bin"}).version is None


def test_cuda_probe_survives_huge_numbers_and_deep_json(tmp_path: Path) -> None:
    _write(tmp_path, "/cuda/include/cuda.h", f"#define CUDA_VERSION {HUGE}\n")
    _write(tmp_path, "/cuda/version.json", "[" * 100_000 + "]" * 100_000)
    assert cuda_header(tmp_path, "/cuda")[0] is None
    assert cuda_json(tmp_path, "/cuda") == (None, "/cuda/version.json: unparseable")
    _write(tmp_path, "/cuda2/version.json", json.dumps({"cuda": {"version": "²³.⁰"}}))
    assert cuda_json(tmp_path, "/cuda2")[0] is None


KFD = "/sys/class/kfd/kfd/topology/nodes"


def test_kfd_bad_target_versions_fifos_and_unicode_nodes(tmp_path: Path) -> None:
    _write(tmp_path, f"{KFD}/0/properties", "cpu_cores_count 8\ngfx_target_version 0\n")
    _write(tmp_path, f"{KFD}/1/properties", "gfx_target_version 9999999999\n")
    _write(tmp_path, f"{KFD}/²/properties", f"gfx_target_version {HUGE}\nsimd_count ²\n")
    _fifo(tmp_path, f"{KFD}/3/properties")
    _write(tmp_path, f"{KFD}/4/properties", "gfx_target_version 90402\n")
    _fifo(tmp_path, f"{KFD}/4/name")
    info = _returns(probe_gpus, tmp_path)
    assert [g.arch for g in info.gpus] == ["gfx942"]
    assert any("9999999999 is not a GPU architecture" in p for p in info.problems)


# -- JSON / TOML loaders ---------------------------------------------------------------------
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"


def test_deep_json_and_toml_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nested too deeply"):
        loads_json(DEEP_JSON, "x.json")
    with pytest.raises(ConfigError, match="x.toml: invalid TOML"):
        loads_toml(DEEP_TOML, "x.toml")
    (tmp_path / "int.json").write_text(HUGE)
    with pytest.raises(InputError, match="int.json"):
        load_json(tmp_path / "int.json")


@SETTINGS
@given(st.binary(max_size=300))
def test_any_bytes_are_json_or_one_error(data: bytes) -> None:
    try:
        loads_json(data, "f.json")
    except PortError as exc:
        assert str(exc).startswith("f.json: ") and "\n" not in str(exc)


@SETTINGS
@given(st.text(max_size=300))
def test_any_text_is_toml_or_one_error(text: str) -> None:
    try:
        assert isinstance(loads_toml(text, "f.toml"), dict)
    except PortError as exc:
        assert str(exc).startswith("f.toml: ") and "\n" not in str(exc)


TOML_VALUES = st.recursive(st.one_of(st.integers(-10 ** 30, 10 ** 30), st.text(max_size=10), st.booleans()),
                           lambda inner: st.lists(inner, max_size=3), max_leaves=8)


@SETTINGS
@given(st.sampled_from(["platform", "jobs", "min_rocm", "sources", "matrix.workers", "matrix.exemptions",
                        "audit.fail_on", "nonsense"]), TOML_VALUES)
def test_any_config_value_is_accepted_or_blamed_on_file_and_key(tmp_path: Path, key: str, value: object) -> None:
    section, _, name = key.rpartition(".")
    body = (f"[{section}]\n" if section else "") + f"{name} = {json.dumps(value)}\n"
    config_file = tmp_path / "port.toml"
    config_file.write_text(body)
    try:
        load_config(env={}, project_dir=tmp_path, config_file=config_file)
    except ConfigError as exc:
        # the file (and its key) is to blame, never a flag such as --workers
        assert str(exc).startswith(str(config_file)) and "\n" not in str(exc)


@SETTINGS
@given(st.binary(max_size=400))
def test_any_junit_bytes_are_a_run_or_one_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "run.xml"
    path.write_bytes(b"<testsuites><testsuite name='s'>" + data)
    try:
        read_run(path, label="cpu")
    except PortError as exc:
        assert "\n" not in str(exc)


@pytest.mark.parametrize("prop", [HUGE, "²", "1" * 26 + ".0", "²·⁰"])
def test_junit_rocm_version_property_cannot_pass_the_gate(tmp_path: Path, prop: str) -> None:
    from porting.report.matrix_builder import build_matrix
    from porting.report.verdict import decide

    xml = ("<testsuites><testsuite name='s' tests='1'><properties>"
           "<property name='port.platform' value='rocm'/>"
           f"<property name='port.rocm_version' value='{prop}'/>"
           "<property name='port.collected' value='" + HUGE + "'/>"
           "</properties><testcase classname='t' name='a'/></testsuite></testsuites>")
    (tmp_path / "r.xml").write_text(xml)
    verdict = decide(build_matrix([read_run(tmp_path / "r.xml")]), "auto", "7.0")
    assert verdict.rocm == [] and verdict.status != "certified"


# -- config (item 15) -----------------------------------------------------------------------
def test_integer_workers_in_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "port.toml").write_text("[matrix]\nworkers = 2\n")
    assert load_config(env={}, project_dir=tmp_path)["matrix.workers"] == "2"


@pytest.mark.parametrize("value", ['"lots"', '"²"', f'"{HUGE}"', "-1", "true", "2.5"])
def test_bad_workers_is_blamed_on_the_file_and_key(tmp_path: Path, value: str) -> None:
    (tmp_path / "port.toml").write_text(f"[matrix]\nworkers = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_config(env={}, project_dir=tmp_path)
    assert "port.toml" in str(info.value) and "'matrix.workers'" in str(info.value)
    assert "--workers" not in str(info.value)


def test_workers_from_the_environment_is_blamed_on_the_variable() -> None:
    with pytest.raises(ConfigError, match="PORT_MATRIX_WORKERS"):
        load_config(env={"PORT_MATRIX_WORKERS": "lots"}, project_dir="/nonexistent-project")
    assert workers_value("logical") == "logical" and workers_value(" 4 ") == "4"


def test_missing_exemptions_file_named_explicitly_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "port.toml").write_text('[matrix]\nexemptions = ["typo.toml"]\n')
    config = load_config(env={}, project_dir=tmp_path)
    with pytest.raises(ConfigError, match="port.toml: matrix.exemptions: typo.toml: no such file"):
        registry_files(config)
    with pytest.raises(ConfigError, match="PORT_MATRIX_EXEMPTIONS: matrix.exemptions: typo.toml"):
        registry_files(load_config(env={"PORT_MATRIX_EXEMPTIONS": "typo.toml"}, project_dir=tmp_path / "none"))
    registry_files(load_config(env={}, project_dir=tmp_path / "none"))  # the shipped one may be absent


# -- baselines (report --baseline, audit --baseline) ----------------------------------------------
JSON_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10 ** 20, 10 ** 20), st.floats(),
                                     st.text(max_size=8)),
                           lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                   st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                           max_leaves=12)
CELL = st.fixed_dictionaries({}, optional={"status": JSON_VALUES, "duration": JSON_VALUES})
PARITY = st.fixed_dictionaries(
    {"kind": st.just("rocm-port.parity"), "schema": st.just(1),
     "tests": st.lists(st.one_of(JSON_VALUES, st.fixed_dictionaries(
         {"id": st.sampled_from(["t::a", "t::b"])},
         optional={"results": st.one_of(JSON_VALUES, st.dictionaries(st.sampled_from(["cpu", "rocm"]),
                                                                    st.one_of(CELL, JSON_VALUES)))})),
         max_size=3)},
    optional={"columns": st.one_of(JSON_VALUES, st.lists(st.one_of(JSON_VALUES, st.fixed_dictionaries(
        {"key": st.sampled_from(["cpu", "rocm"])}, optional={"platform": JSON_VALUES})), max_size=3))})


@SETTINGS
@given(PARITY)
def test_any_report_baseline_is_diffed_or_one_error(tmp_path: Path, baseline: dict) -> None:
    from porting.report import build_report

    run = tmp_path / "cpu.xml"
    run.write_text("<testsuites><testsuite name='s'><properties><property name='port.platform' value='cpu'/>"
                   "</properties><testcase classname='t' name='a' time='2.5'/></testsuite></testsuites>")
    (tmp_path / "base.json").write_text(json.dumps(baseline))
    try:
        build_report([run], labels={}, reference="auto", min_rocm="7.0", baseline=tmp_path / "base.json")
    except PortError as exc:
        assert str(exc).startswith(str(tmp_path / "base.json")) and "\n" not in str(exc)


@SETTINGS
@given(st.one_of(JSON_VALUES, st.fixed_dictionaries({"schema": st.integers(0, 3), "findings": JSON_VALUES})))
def test_any_audit_baseline_is_read_or_one_error(tmp_path: Path, data: object) -> None:
    from porting.audit.findings import Baseline

    (tmp_path / "audit-baseline.json").write_text(json.dumps(data))
    try:
        Baseline.load(tmp_path / "audit-baseline.json")
    except PortError as exc:
        assert "audit-baseline.json" in str(exc) and "\n" not in str(exc)
