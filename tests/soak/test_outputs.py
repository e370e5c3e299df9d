"""soak.json round trip, the JUnit file `port report` reads, the plot, the CLI's argument errors."""

from __future__ import annotations

import json

import pytest

from porting.cli import main
from porting.soak.invariants import check
from porting.soak.junit import build_xml, fault_ok
from porting.soak.metrics import analyse
from porting.soak.plot import render_png
from porting.soak.record import SoakRecord
from porting.soak.spec import SoakSpec, make_schedule

PROPS = {"port.schema": "1", "port.platform": "cpu", "port.run_id": "r1", "port.complete": "true"}


def _record(raw, **kwargs) -> SoakRecord:
    spec = SoakSpec.from_json(raw["spec"])
    result = analyse(raw)
    return SoakRecord(spec=raw["spec"], schedule=[f.to_json() for f in make_schedule(spec)],
                      bounds={"downtime_s": 5.0, "detect_s": 6.5, "join_timeout_s": 2.0, "heartbeat_timeout_s": 1.5},
                      run=raw["run"], result=result,
                      invariants=[i.to_json() for i in check(spec, result, raw["run"])], **kwargs)


def test_record_round_trips_and_is_ok_only_if_every_invariant_holds(make_history):
    record = _record(make_history())
    data = json.loads(json.dumps(record.to_json()))
    assert data["schema"] == 1 and data["scale"] == "cpu" and data["ok"] is True
    assert {"faults", "replicas", "participants", "loss_curve", "steps", "downtime", "steps_lost"} <= set(data)
    again = SoakRecord.from_json(data)
    assert again.to_json() == data
    bad = _record(make_history(decay=1.0))
    assert bad.ok is False and bad.to_json()["ok"] is False
    with pytest.raises(ValueError, match="schema"):
        SoakRecord.from_json({**data, "schema": 99})


def test_junit_has_one_case_per_fault_and_per_invariant(make_history):
    from junitparser import JUnitXml

    data = _record(make_history(decay=1.0)).to_json()
    xml = build_xml(data, PROPS)
    suites = list(JUnitXml.fromstring(xml)) if "<testsuites" in xml else [JUnitXml.fromstring(xml)]
    (suite,) = suites
    props = {p.name: p.value for p in suite.properties()}
    assert props["port.platform"] == "cpu" and props["port.run_id"] == "r1"
    cases = {c.name: c for c in suite}
    assert set(cases) == {"fault[0-kill-replica1]"} | {i["name"] for i in data["invariants"]}
    assert cases["fault[0-kill-replica1]"].is_passed
    assert not cases["loss_halves"].is_passed and cases["restarts_heal_from_peer"].is_passed
    assert "component" in xml and 'value="soak"' in xml


def test_junit_is_read_by_port_report(tmp_path, make_history):
    reader = pytest.importorskip("porting.report.junit_reader")
    data = _record(make_history()).to_json()
    path = tmp_path / "soak.xml"
    path.write_text(build_xml(data, PROPS))
    run = reader.read_run(path)
    assert run.info.problems == []
    assert run.info.platform == "cpu"
    comps = {case.component for case in run.cases.values()}
    assert comps == {"soak"} and len(run.cases) == 1 + len(data["invariants"])


def test_fault_case_fails_when_replica_healed_from_itself(make_history):
    fault = analyse(make_history(source=1))["faults"][0]
    ok, detail = fault_ok(fault, 5.0)
    assert not ok and "healed from replica 1" in detail


def test_plot_is_a_png(make_history):
    png = render_png(_record(make_history()).to_json())
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


@pytest.mark.parametrize("argv, fragment", [
    (["--replicas", "1"], "--replicas"),
    (["--faults", "kill,meteor"], "'meteor'"),
    (["--duration", "10", "--fault-every", "20"], "--duration"),
    (["--step-period", "0"], "--step-period"),
])
def test_cli_rejects_bad_arguments_with_one_line(capsys, tmp_path, argv, fragment):
    assert main(["soak", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("port: error:") and fragment in err and "\n" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("out", ["file", "file/o"])
def test_cli_rejects_an_out_that_is_or_is_under_a_file(capsys, tmp_path, out):
    (tmp_path / "file").write_text("")
    assert main(["soak", "--out", str(tmp_path / out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"port: error: --out: {tmp_path / 'file'} exists and is not a directory"
