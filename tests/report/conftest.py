"""Fixtures for the report tests: JUnit files written the way the matrix plugin writes them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

ROCM = {"port.platform": "rocm", "port.path": "native-hip", "port.rocm_version": "7.0.2",
        "port.rocm_usable": "true", "port.gpu_arch": "gfx942",
        "port.torch_flavour": "rocm", "port.monarch_flavour": "rocm"}
CUDA = {"port.platform": "cuda", "port.path": "cuda", "port.cuda_version": "13.0", "port.gpu_arch": "sm_90"}
CPU = {"port.platform": "cpu", "port.path": "cpu", "port.cuda_version": "13.0", "port.rocm_version": "5.2.21153",
       "port.rocm_usable": "false"}

_RESULT = {
    "passed": "",
    "failed": '<failure message={m}>Traceback ...\nAssertionError</failure>',
    "error": '<error message={m}>setup failed</error>',
    "skipped": '<skipped type="pytest.skip" message={m}>skip</skipped>',
    "xfailed": '<skipped type="pytest.xfail" message={m}/>',
    "xpassed": '<skipped message="xfail-marked test passes unexpectedly"/>',
}


def junit_xml(props: dict[str, str] | None, cases: list[tuple], run_id: str = "r1", shard: str = "1/1",
              complete: bool = True, collected: int | None = None) -> str:
    """cases: (test_id "pkg.mod::name", status[, message[, duration[, component]]])."""
    body = []
    for case in cases:
        test_id, status = case[0], case[1]
        message = case[2] if len(case) > 2 else f"{status} here"
        duration = case[3] if len(case) > 3 else 0.01
        component = case[4] if len(case) > 4 else None
        classname, _, name = test_id.rpartition("::")
        inner = _RESULT[status].format(m=quoteattr(message))
        cprops = (f'<properties><property name="component" value={quoteattr(component)}/></properties>'
                  if component else "")
        body.append(f'<testcase classname={quoteattr(classname)} name={quoteattr(name)} time="{duration}">'
                    f"{cprops}{inner}</testcase>")
    properties = ""
    if props is not None:
        full = {"port.schema": "1", **props, "port.run_id": run_id, "port.shard": shard,
                "port.complete": "true" if complete else "false",
                "port.collected": str(len(cases) if collected is None else collected)}
        properties = "<properties>" + "".join(
            f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in full.items()) + "</properties>"
    return (f'<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="{len(cases)}">'
            f"{properties}{''.join(body)}</testsuite></testsuites>")


@pytest.fixture
def write_junit(tmp_path: Path):
    def write(name: str, props: dict[str, str] | None, cases: list[tuple], **kw) -> Path:
        path = tmp_path / name
        path.write_text(junit_xml(props, cases, **kw), encoding="utf-8")
        return path
    return write


@pytest.fixture(scope="session")
def real_pytest_junit(tmp_path_factory) -> Path:
    """A JUnit file written by pytest itself (no port plugin): every outcome pytest can report."""
    root = tmp_path_factory.mktemp("producer")
    (root / "tests" / "actor").mkdir(parents=True)
    (root / "tests" / "actor" / "test_outcomes.py").write_text(textwrap.dedent('''
        import pytest

        def test_pass():
            pass

        def test_fail():
            assert 1 == 2, "<script>alert(1)</script> & more"

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")

        def test_error(broken):
            pass

        def test_skip():
            pytest.skip("not here")

        @pytest.mark.xfail(reason="known bug")
        def test_xfail():
            assert False

        @pytest.mark.xfail(strict=True, reason="should fail")
        def test_xpass_strict():
            pass

        @pytest.mark.parametrize("n", [1, 2])
        def test_param(n):
            assert n
    '''))
    xml = root / "run.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:port_matrix",
                    f"--junitxml={xml}", "tests"], cwd=root, capture_output=True, check=False)
    assert xml.is_file()
    return xml


class _JUnitKit:
    """What tests need to build JUnit input (a fixture: importlib mode cannot import conftest)."""

    ROCM, CUDA, CPU = ROCM, CUDA, CPU
    xml = staticmethod(junit_xml)


@pytest.fixture
def jx() -> _JUnitKit:
    return _JUnitKit()
