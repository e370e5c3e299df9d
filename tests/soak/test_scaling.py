"""The scaling study's pure parts (porting.soak.scaling): recovery times read from a soak record,
and the least-squares fits and the model choice, on points whose answer is known."""

from __future__ import annotations

import math

import pytest

from porting.errors import InputError
from porting.soak.scaling import best_fit, fault_times, fit_model, medians, reform_s


def _step(t, replica, quorum, participants, committed=True):
    return {"t": t, "replica": replica, "gen": 0, "step": 0, "loss": 1.0, "committed": committed,
            "quorum_id": quorum, "participants": participants}


def _record():
    """4 replica groups, host 1 holds replicas 0 and 1, cut off at t=10 and back at t=15."""
    steps = [_step(9.0 + 0.1 * r, r, 3, 4) for r in range(4)]
    steps += [_step(10.5, 2, 3, 4, committed=False),  # a survivor's step fails: quorum 3 is broken
              _step(11.0, 0, 3, 4),  # a victim's stale commit in the old quorum does not count
              _step(11.5, 0, 7, 2),  # nor a victim's, whatever its quorum
              _step(12.0, 3, 4, 4),  # a new quorum that still counts the victims in: not re-formed
              _step(12.6, 2, 5, 2), _step(12.7, 3, 5, 2),  # the survivors' new quorum: 2.6 s
              _step(16.0, 0, 6, 4), _step(16.4, 1, 6, 4)]
    victims = [{"replica": 0, "healed_after_link_s": 0.8, "rejoin_after_heal_s": 1.0},
               {"replica": 1, "healed_after_link_s": 1.1, "rejoin_after_heal_s": 1.4}]
    faults = [{"id": 0, "kind": "partition", "host": 1, "t": 10.0, "victims": victims},
              {"id": 1, "kind": "slow", "host": 2, "t": 30.0, "victims": []}]
    return {"spec": {"replicas": 4}, "steps": steps, "faults": faults}


def test_fault_times_read_reform_heal_and_rejoin_of_each_cut_off_fault():
    (row,) = fault_times(_record())  # the slow link is not a cut-off fault
    assert row == {"replicas": 4, "fault": 0, "kind": "partition", "host": 1, "victims": 2,
                   "reform_s": 2.6, "heal_s": 1.1, "rejoin_s": 1.4}


def test_a_victim_that_never_healed_leaves_the_time_unknown_and_no_new_quorum_is_none():
    data = _record()
    data["faults"][0]["victims"][1]["healed_after_link_s"] = None
    data["steps"] = [s for s in data["steps"] if s["quorum_id"] != 5]
    (row,) = fault_times(data)
    assert row["heal_s"] is None and row["rejoin_s"] == 1.4 and row["reform_s"] is None
    assert reform_s(data["steps"], 10.0, [0, 1], 4) is None


@pytest.mark.parametrize("model, truth", [
    ("linear", lambda n: 1.5 + 0.25 * n),
    ("log", lambda n: 0.5 + 2.0 * math.log(n)),
    ("constant", lambda n: 3.0),
])
def test_best_fit_recovers_the_model_that_made_the_points(model, truth):
    points = [(n, truth(n)) for n in (4, 4, 8, 8, 12, 16, 16)]
    chosen, fits = best_fit(points)
    assert chosen.model == model and {f.model for f in fits} == {"constant", "linear", "log"}
    assert chosen.rss == pytest.approx(0, abs=1e-9)
    assert chosen.predict(256) == pytest.approx(truth(256), rel=1e-6)


def test_least_squares_on_noisy_points_matches_the_closed_form():
    points = [(4, 2.0), (8, 3.5), (12, 3.9), (16, 6.2)]
    fit = fit_model(points, "linear")
    # by hand: mean n 10, mean y 3.9, Sxx 80, Sxy = (-6)(-1.9)+(-2)(-0.4)+(2)(0)+(6)(2.3) = 26
    assert fit.b == pytest.approx(26 / 80) and fit.a == pytest.approx(3.9 - 26 / 80 * 10)
    residuals = [y - fit.predict(n) for n, y in points]
    assert fit.rss == pytest.approx(sum(r * r for r in residuals))
    assert fit.stderr == pytest.approx(math.sqrt(fit.rss / 2))
    assert fit.formula() == f"{fit.a:.4g} + {fit.b:.4g}*n"
    chosen, _ = best_fit(points)
    assert chosen.model == "linear"  # a clear upward trend: the constant's residual is larger


def test_a_trend_too_small_for_its_parameter_keeps_the_constant():
    points = [(4, 5.0), (8, 5.2), (12, 5.2), (16, 5.0)]  # no trend in n, a little in ln(n)
    chosen, fits = best_fit(points)
    assert chosen.model == "constant"
    by = {f.model: f for f in fits}
    assert by["linear"].rss <= by["constant"].rss  # more parameters always fit at least as well ...
    assert by["linear"].stderr > by["constant"].stderr  # ... but not per degree of freedom left


@pytest.mark.parametrize("points", [[(4, 1.0), (8, 2.0)], [(4, 1.0), (4, 2.0), (4, 3.0)], [(0, 1.0), (4, 2.0),
                                                                                         (8, 3.0)]])
def test_too_few_or_bad_points_are_refused(points):
    with pytest.raises(InputError):
        fit_model(points, "log")


def test_medians_per_size_are_not_pulled_by_one_stretched_trial():
    points = [(4, 0.5), (4, 0.6), (4, 0.4), (8, 0.7), (8, 0.6), (8, 0.8), (16, 1.1), (16, 0.9), (16, 7.0)]
    assert medians(points) == [(4, 0.5), (8, 0.7), (16, 1.1)]
    by_median, by_point = fit_model(medians(points), "linear"), fit_model(points, "linear")
    assert by_median.b == pytest.approx(0.05) and by_point.b > 0.2  # the 7 s trial triples the slope
