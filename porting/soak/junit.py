"""soak.xml: one JUnit test case per injected fault and per invariant, component ``soak``,
with the ``port.*`` testsuite properties of docs/junit-properties.md."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..atomic import write_text
from ..junit_contract import SCHEMA

if TYPE_CHECKING:
    from junitparser import TestCase, TestSuite


def fault_ok(fault: dict[str, Any], downtime_bound: float) -> tuple[bool, str]:
    if "victims" in fault:
        return host_fault_ok(fault, downtime_bound)
    src = fault.get("heal_source")
    detail = (f"{fault['kind']} on replica {fault['replica']} (gen {fault['gen']}) at t={fault['t']} s: "
              f"detected {fault['detect_s']} s, healed {fault['heal_s']} s, rejoined {fault['rejoin_s']} s, "
              f"downtime {fault['downtime_s']} s, healed from "
              + (f"replica {src['replica']} via {src['via']}" if src else "nobody"))
    ok = (fault["recovered"] and src is not None and src["replica"] != fault["replica"]
          and src["checksum_match"] and fault["downtime_s"] <= downtime_bound
          and all(n > 0 for n in fault["survivor_commits"].values()))
    return ok, detail


def host_fault_ok(fault: dict[str, Any], downtime_bound: float) -> tuple[bool, str]:
    """A network fault (netfaults.py): every replica of the host back and healed from another host's
    replica, within the downtime bound; the survivors committing."""
    victims = fault["victims"]
    detail = (f"{fault['kind']} of host {fault['host']} at t={fault['t']} s for {fault['healed_s']} s: "
              + (", ".join(f"replica {v['replica']} back {v['rejoin_after_heal_s']} s after the heal"
                           + (f" from replica {v['heal_source']['replica']} via {v['heal_source']['via']}"
                              if v["heal_source"] else "") for v in victims) or "no replica on that host"))
    ok = (fault["recovered"] and fault["downtime_s"] <= downtime_bound
          and all(n > 0 for n in fault["survivor_commits"].values()) and not (
              fault["kind"] == "lighthouse_partition" and fault["new_quorums_while_cut_off"]))
    return ok, detail


def _case(name: str, classname: str, ok: bool, detail: str, seconds: float = 0.0) -> TestCase:
    """One soak check as a JUnit case of component ``soak``: passed with its detail on stdout, or
    failed with it as the message."""
    from junitparser import Failure, Properties, Property, TestCase

    tc = TestCase(name, classname=classname, time=max(0.0, seconds))
    props = Properties()
    props.add_property(Property("component", "soak"))
    tc.append(props)
    if ok:
        tc.system_out = detail
    else:
        tc.result = [Failure(detail)]
    return tc


def _xml_text(suite: TestSuite) -> str:
    from junitparser import JUnitXml

    xml = JUnitXml("port soak")
    xml.add_testsuite(suite)
    text = xml.tostring()
    return text.decode("utf-8") if isinstance(text, bytes) else str(text)


def build_xml(record: dict[str, Any], properties: Mapping[str, str]) -> str:
    from junitparser import TestSuite

    suite = TestSuite("soak")
    for name, value in properties.items():
        suite.add_property(name, value)
    bound = float(record["bounds"]["downtime_s"])

    for fault in record.get("faults", []):
        ok, detail = fault_ok(fault, bound)
        where = f"host{fault['host']}" if "victims" in fault else f"replica{fault['replica']}"
        suite.add_testcase(_case(f"fault[{fault['id']}-{fault['kind']}-{where}]", "soak.faults",
                                 ok, detail, float(fault.get("rejoin_s") or fault["downtime_s"] or 0.0)))
    for skipped in [i for i in record["run"].get("injections", []) if "skipped" in i]:
        suite.add_testcase(_case(f"fault[{skipped['id']}-{skipped['kind']}-replica{skipped['replica']}]",
                                 "soak.faults", False, f"not injected: {skipped['skipped']}"))
    for inv in record.get("invariants", []):
        suite.add_testcase(_case(inv["name"], "soak.invariants", inv["ok"], inv["detail"]))
    return _xml_text(suite)


def shard_of(record: dict[str, Any]) -> dict[str, str]:
    """A soak across a cluster's hosts is one run in shards, as the matrix's are: shard 1 is the
    Lighthouse's (the whole analysis), shard ``k + 2`` replica group ``k``'s host (cluster.py),
    so `port report` re-joins them and names a host that never reported as a missing shard."""
    cluster = record.get("run", {}).get("cluster")
    if not cluster:
        return {}
    return {"run_id": f"soak-{cluster['scheduler']}-{cluster['job']}",
            "shard": f"1/{len(cluster['replicas']) + 1}"}


def suite_properties(record: dict[str, Any], env: Mapping[str, str] | None = None,
                     shard: Mapping[str, str] | None = None) -> dict[str, str]:
    """Detection-derived ``port.*`` properties plus the run's own (complete, collected)."""
    try:
        from ..fingerprint import current_properties

        props = dict(current_properties(env=env, **(shard or shard_of(record))))
    except Exception as exc:  # detection must not lose the soak's results; say what is missing
        props = {"port.schema": SCHEMA, "port.platform": "cpu", "port.incomplete_reason": f"detection failed: {exc}"}
    errors = record["run"].get("errors", [])
    cases = len(record.get("faults", [])) + len(record.get("invariants", []))
    props["port.complete"] = "false" if errors else "true"
    props["port.incomplete_reason"] = "; ".join(errors)[:300] if errors else props.get("port.incomplete_reason", "")
    props["port.collected"] = str(cases)
    return props


def write_junit(record: dict[str, Any], path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> None:
    write_text(path, build_xml(record, suite_properties(record, env)))


def write_host_shard(path: str | os.PathLike[str], replica: int, run_id: str, shard: str,
                     supervisor: list[dict[str, Any]], commits: int, env: Mapping[str, str] | None = None) -> None:
    """The JUnit shard of one replica group's host in a cluster soak: its generations all
    ended (none left running), the last at the run's end (status 0), and it committed steps."""
    from junitparser import TestSuite

    launches = [e for e in supervisor if e.get("event") == "launch"]
    exits = {e["pid"]: e for e in supervisor if e.get("event") == "exit"}
    left = [e["pid"] for e in launches if e["pid"] not in exits]
    last = exits.get(launches[-1]["pid"]) if launches else None
    checks = [
        ("generations_ended", bool(launches) and not left,
         f"{len(launches)} generations launched, {len(left)} not ended: {left}"),
        ("ran_to_the_end", last is not None and last.get("rc") == 0,
         f"last generation {'exited with ' + str(last.get('rc')) if last else 'never exited'}"),
        ("committed_steps", commits > 0, f"{commits} committed steps"),
    ]
    suite = TestSuite("soak-host")
    record = {"run": {"errors": []}, "faults": [], "invariants": checks}
    for name, value in suite_properties(record, env, {"run_id": run_id, "shard": shard}).items():
        suite.add_property(name, value)
    for name, ok, detail in checks:
        suite.add_testcase(_case(f"replica{replica}-{name}", "soak.hosts", ok, detail))
    write_text(path, _xml_text(suite))
