"""Network-fault analysis and invariants over known histories: 2 hosts x 2 replica groups, host 1
(replicas 0 and 1) cut off from step ``fault_at`` and back at step ``back_at``. Each invariant is
also given the history built to break it."""

from __future__ import annotations

import pytest

from porting.soak.hosts import Layout
from porting.soak.invariants import check
from porting.soak.metrics import analyse
from porting.soak.netfaults import loss_discontinuities, split_brain
from porting.soak.spec import SoakSpec

T0 = 2_000_000.0
LAYOUT = Layout(hosts=2, per_host=2)


def host_history(*, kind: str = "partition", steps: int = 120, period: float = 0.1, fault_at: int = 40,
                 heal_at: int = 65, back_at: int = 70, source: int = 2, via_host: int = 2, rogue_quorum: bool = False,
                 stale: bool = False, never_back: bool = False, chained: str | None = None,
                 held: bool = False) -> dict:
    """Raw records in the formats the trainer, supervisor and driver write. ``rogue_quorum``: the
    cut-off replicas commit steps of their own under quorum 99 (split brain); ``stale``: they come
    back without healing, training on from their own old weights (a jump in the loss); ``chained``:
    replica 1 heals from its host-mate 0 (0.1 s "after" 0 healed from off the host, or "before");
    ``held``: the survivors commit nothing either until the victims are back (a collective in flight
    that TCP delivered once the link healed), and nobody heals. Times are
    ``period`` per tick; the step index counts the ticks in which some replica committed."""
    lighthouse = kind == "lighthouse_partition"
    victims = [] if lighthouse else LAYOUT.replicas_on(1)
    cut_off = LAYOUT.replicas_on(1) if lighthouse else victims  # who commits in a rogue quorum
    gen_back = 1 if kind == "host_loss" else 0
    events = []
    for s in range(steps):
        t = T0 + s * period
        paused = held or (lighthouse and not rogue_quorum)  # nobody commits while it lasts
        idle = paused and fault_at <= s < back_at
        step = s - (min(s, back_at) - fault_at if paused and s >= fault_at else 0)
        for r in range(LAYOUT.replicas):
            cut = r in cut_off and fault_at <= s < back_at
            if (cut and not rogue_quorum) or idle:
                continue  # cut off; without the Lighthouse nobody commits past the next quorum
            if lighthouse and fault_at <= s < back_at and r not in cut_off:
                continue
            if r in victims and never_back and s >= back_at:
                continue
            gen = gen_back if (r in victims and s >= back_at) else 0
            loss = 100.0 * 0.98 ** s
            if stale and r in victims and s >= back_at:
                loss = 100.0 * 0.98 ** fault_at * 6  # its own old weights, far behind
            events.append({"event": "step", "t": t + 0.001 * r, "replica": r, "gen": gen, "pid": 100 + r,
                           "step": step, "loss": loss, "committed": True,
                           "quorum_id": 99 if cut else (2 if s >= fault_at else 1),
                           "participants": 2 if fault_at <= s < back_at else 4, "checksum": f"w{s}"})
    if not (stale or held):
        for r in victims:
            src, via, t_heal = source, via_host, T0 + back_at * period - 0.05
            if chained and r == 1:
                src, via, t_heal = 0, 1, t_heal + (0.1 if chained == "after" else -0.1)
            events.append({"event": "heal", "t": t_heal, "replica": r, "gen": gen_back,
                           "pid": 100 + r, "source_replica": src, "source_gen": 0, "source_pid": 100 + src,
                           "source_checksum": "abc", "checksum": "abc",
                           "transport": {"src_rank": 0, "step": back_at,
                                         "url": f"http://{Layout.address(via)}:4000/checkpoint/{back_at}"}})
    t_fault = T0 + fault_at * period - 0.05
    supervisor = [{"t": T0 - 5, "event": "launch", "replica": r, "gen": 0, "pid": 100 + r} for r in range(4)]
    if kind == "host_loss":
        supervisor += [{"t": t_fault + 0.2, "event": "failure", "replica": r, "gen": 0, "via": "monarch-supervise",
                        "report": "Killed(sig=9)", "detected": t_fault + 0.2} for r in victims]
    injection = {"id": 0, "at_s": 4.0, "kind": kind, "replica": 0, "target": 0,
                 "host": 0 if kind == "lighthouse_partition" else 1, "victims": victims,
                 "gens": {str(r): 0 for r in victims}, "pids": {str(r): 100 + r for r in victims},
                 "t": t_fault, "healed": T0 + heal_at * period}
    hosts = {Layout.name(h): {"netns": f"net:[{h}]", "address": Layout.address(h), "links": ["lo", "eth0"],
                              "addresses": ["127.0.0.1/8", f"{Layout.address(h)}/24"]} for h in LAYOUT.all_hosts}
    run = {"schema": 1, "origin": T0, "end": T0 + steps * period, "injections": [injection],
           "hosts": {"layout": LAYOUT.to_json(), "bridge": "soakbr0", "hosts": hosts},
           "network": {"netns": "net:[9]", "links": ["lo", "soakbr0", "vh0", "vh1", "vh2"],
                       "addresses": ["127.0.0.1/8", "10.77.0.254/24"]},
           "listener_snapshots": [{"t": T0, "listeners": [],
                                   "hosts": {"lighthouse": ["10.77.0.10:29510"],
                                             "host1": ["*:4000", "10.77.0.11:4001", "[::]:4002"],
                                             "host2": ["10.77.0.12:4000"]}}],
           "reaped": {"launched": [100, 101, 102, 103], "stragglers_killed": []},
           "unhandled_faults": [], "errors": []}
    spec = SoakSpec(replicas=4, hosts=2, replicas_per_host=2, duration_s=steps * period, fault_every_s=5.0,
                    timeout_s=1.0, link_fault_s=2.0, faults=[kind]).to_json()
    return {"spec": spec, "run": run, "supervisor": supervisor, "events": events}


def _invariants(raw):
    result = analyse(raw)
    return result, {i.name: i for i in check(SoakSpec.from_json(raw["spec"]), result, raw["run"])}


@pytest.mark.parametrize("kind", ["partition", "host_loss", "slow", "lighthouse_partition"])
def test_a_clean_network_fault_passes_every_invariant(kind):
    result, inv = _invariants(host_history(kind=kind))
    assert {n: i.detail for n, i in inv.items() if not i.ok} == {}
    assert inv["hosts_isolated"].ok and "loopback_only" not in inv


def test_partition_timeline_measures_each_victim_and_the_survivors():
    result, _ = _invariants(host_history())
    (fault,) = result["faults"]
    assert fault["host"] == 1 and [v["replica"] for v in fault["victims"]] == [0, 1]
    v0 = fault["victims"][0]
    assert v0["recovered"] and v0["heal_source"]["replica"] == 2
    assert v0["rejoin_after_heal_s"] == pytest.approx(0.5, abs=0.01)  # healed at step 65, back at 70
    assert v0["downtime_s"] == pytest.approx(3.05, abs=0.01)  # from the fault (t=3.95 s) to step 70
    assert set(fault["survivor_commits"]) == {"2", "3"} and min(fault["survivor_commits"].values()) > 0
    assert fault["new_quorums_while_cut_off"] == [2]  # the survivors' new quorum without host 1


def test_a_partition_that_ends_before_anyone_commits_without_the_host_needs_no_heal():
    result, inv = _invariants(host_history(held=True))
    v0, v1 = result["faults"][0]["victims"]
    assert v0["heal_source"] is None and v0["missed_steps"] == 0 and v0["recovered"]
    assert inv["cut_off_hosts_rejoin_from_live_peer"].ok, inv["cut_off_hosts_rejoin_from_live_peer"].detail
    assert "in step" in inv["cut_off_hosts_rejoin_from_live_peer"].detail


def test_a_host_mate_that_healed_from_another_host_first_is_a_live_source():
    result, inv = _invariants(host_history(chained="after"))
    v0, v1 = result["faults"][0]["victims"]
    assert (v0["heal_source"]["replica"], v1["heal_source"]["replica"]) == (2, 0)
    assert v0["healed_after_link_s"] == pytest.approx(0.45) and v1["healed_after_link_s"] == pytest.approx(0.55)
    assert inv["cut_off_hosts_rejoin_from_live_peer"].ok, inv["cut_off_hosts_rejoin_from_live_peer"].detail


@pytest.mark.parametrize("change, broken", [
    (dict(rogue_quorum=True), "no_split_brain"),
    (dict(stale=True), "loss_curve_continuous"),
    (dict(stale=True), "cut_off_hosts_rejoin_from_live_peer"),  # came back without healing, steps behind
    (dict(kind="host_loss", held=True), "cut_off_hosts_rejoin_from_live_peer"),  # a new process, no heal
    (dict(source=1), "cut_off_hosts_rejoin_from_live_peer"),  # healed from the cut-off host itself
    (dict(chained="before"), "cut_off_hosts_rejoin_from_live_peer"),  # from a host-mate not yet healed
    (dict(via_host=1), "cut_off_hosts_rejoin_from_live_peer"),  # state not from the source's address
    (dict(never_back=True), "cut_off_hosts_rejoin_from_live_peer"),
    (dict(back_at=116), "cut_off_hosts_rejoin_from_live_peer"),  # 5.1 s after the heal > bound 4.6 s
    (dict(kind="lighthouse_partition", rogue_quorum=True), "no_quorum_without_lighthouse"),
    (dict(kind="lighthouse_partition", back_at=116), "no_quorum_without_lighthouse"),
])
def test_each_network_invariant_fails_on_the_history_built_to_break_it(change, broken):
    _, inv = _invariants(host_history(**change))
    assert not inv[broken].ok, inv[broken].detail


def test_a_listener_or_link_outside_its_host_breaks_isolation():
    raw = host_history()
    raw["run"]["listener_snapshots"][0]["hosts"]["host2"].append("10.77.0.11:5000")  # another host's address
    _, inv = _invariants(raw)
    assert not inv["hosts_isolated"].ok and "host2: listener 10.77.0.11:5000" in inv["hosts_isolated"].detail
    raw = host_history()
    raw["run"]["network"]["links"].append("eth0")  # the soak namespace reaching the machine's network
    raw["run"]["listener_snapshots"][0]["listeners"].append("0.0.0.0:8080")
    _, inv = _invariants(raw)
    assert not inv["hosts_isolated"].ok and "eth0" in inv["hosts_isolated"].detail


def test_split_brain_and_loss_jumps_on_small_inputs():
    ok = {"committed": True, "participants": 2}
    assert split_brain([{**ok, "step": 1, "replica": 0, "quorum_id": 1},
                        {**ok, "step": 1, "replica": 1, "quorum_id": 1}]) == []
    assert split_brain([{**ok, "step": 1, "replica": 0, "quorum_id": 1},
                        {**ok, "step": 1, "replica": 1, "quorum_id": 2}])
    assert split_brain([{**ok, "step": 1, "replica": r, "quorum_id": 1, "participants": 2} for r in range(3)])
    assert loss_discontinuities([[0, 10.0, 0.0], [1, 9.0, 0.1], [2, 8.0, 0.2]]) == []
    assert loss_discontinuities([[0, 10.0, 0.0], [2, 9.0, 0.1]]) == ["steps 1..1 missing"]


def _curve(losses):
    return [[k, loss, 0.1 * k] for k, loss in enumerate(losses)]


def test_one_noisy_step_is_not_a_jump_but_a_sustained_rise_is():
    # steps 465..482 of a real 4-group soak with no fault near: step 479's batches averaged 6.48
    real = [3.72, 3.73, 3.07, 3.57, 2.42, 2.95, 2.98, 2.83, 2.73, 2.92, 3.20, 2.57, 3.17, 2.90, 6.48, 2.64, 2.59,
            3.25, 2.9, 3.1, 2.8, 3.0, 2.7, 3.3, 2.9, 3.0]
    assert loss_discontinuities(_curve(real)) == []
    stale = real[:14] + [7.5, 6.9, 8.1, 7.2, 6.6, 7.7, 7.0, 8.3, 6.8, 7.4, 7.1, 7.9]  # back on old weights
    (jump,) = loss_discontinuities(_curve(stale))
    assert jump.startswith("steps 10..19: median loss")  # the first 10 steps most of which are stale
    falling = [200.0 * 0.9 ** k for k in range(40)]  # training as it should: never a jump
    assert loss_discontinuities(_curve(falling)) == []


def test_a_network_fault_is_one_junit_case_named_by_its_host():
    from porting.soak.junit import build_xml, host_fault_ok

    raw = host_history()
    result, inv = _invariants(raw)
    record = {**result, "run": raw["run"], "bounds": {"downtime_s": 5.0},
              "invariants": [i.to_json() for i in inv.values()]}
    xml = build_xml(record, {"port.platform": "cpu"})
    assert 'name="fault[0-partition-host1]"' in xml and "<failure" not in xml
    broken = analyse(host_history(never_back=True))["faults"][0]
    ok, detail = host_fault_ok(broken, 5.0)
    assert not ok and "replica 0" in detail
