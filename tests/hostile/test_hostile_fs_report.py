"""`port report` writes all its artifacts or none (issue 11, item 13): a blocked output path
(here index.html is a directory) fails naming that file, leaves the previous artifacts as they
were, and `port certify` lists only artifacts that exist."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest

from porting.certify import Progress, certify
from porting.cli import main
from porting.report import ARTIFACTS

JUNIT = ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="1">'
         '<testcase classname="tests.test_a" name="test_ok" time="0.01"/></testsuite></testsuites>')


def _junit(tmp_path: Path) -> Path:
    path = tmp_path / "run.xml"
    path.write_text(JUNIT, encoding="utf-8")
    return path


@pytest.mark.parametrize("blocked", ARTIFACTS)
def test_a_blocked_artifact_means_none_is_written(tmp_path: Path, capsys, blocked: str) -> None:
    out = tmp_path / "out"
    (out / blocked).mkdir(parents=True)
    rc = main(["report", str(_junit(tmp_path)), "--out", str(out), "--no-evidence-ok"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert str(out / blocked) in err
    assert sorted(p.name for p in out.iterdir()) == [blocked]  # nothing else, no temporary files


def test_a_blocked_artifact_keeps_the_previous_set(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    junit = _junit(tmp_path)
    main(["report", str(junit), "--out", str(out), "--no-evidence-ok"])
    before = {name: (out / name).read_bytes() for name in ARTIFACTS}
    os.chmod(out / "parity.md", 0o644)
    os.unlink(out / "index.html")
    (out / "index.html").mkdir()
    assert main(["report", str(junit), "--out", str(out), "--no-evidence-ok"]) == 2
    assert {name: (out / name).read_bytes() for name in ARTIFACTS if name != "index.html"} == \
        {name: data for name, data in before.items() if name != "index.html"}
    assert stat.S_IMODE((out / "parity.md").stat().st_mode) == 0o644


def test_artifacts_are_written_and_readable_per_umask(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = os.umask(0o022)
    try:
        assert main(["report", str(_junit(tmp_path)), "--out", str(out), "--no-evidence-ok"]) in (0, 3)
    finally:
        os.umask(old)
    for name in ARTIFACTS:
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o644


def test_certify_lists_only_artifacts_that_were_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").mkdir()
    (out / "parity.md").write_text("stale report of an earlier run")
    buf = io.StringIO()
    record = certify(out, sources=["native"], progress=Progress(stream=buf, interval=60), cwd=str(tmp_path),
                     skip={"detect", "audit", "hipify", "build", "matrix"})
    done = [line for line in buf.getvalue().splitlines() if "artifacts in" in line][-1]
    assert record.exit_code != 0
    assert "index.html" not in done and "parity.json" not in done and "parity.md" not in done
    assert "certify.json" in done
    assert not (out / "parity.md").exists()  # no stale artifact beside a failed report
