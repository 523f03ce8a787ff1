"""Issue 17, BESIDE: the as-printed method beside the library rows, per-method sweep points, and the
Corollary 2 experiment (``beside-worst-case``)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.experiments.claims import check_claims
from safebandits.experiments.execute import execute_task
from safebandits.experiments.spec import AlgorithmSpec, expand, get_experiment
from safebandits.papers.beside.claims import (
    WORST_CASE_TOL,
    check_example1,
    check_hard,
    check_worst_case,
    worst_case_log_factor,
)
from safebandits.papers.beside.experiments import ALG1, ALG1_POINTS
from safebandits.problems.registry import make_instance


def by_id(claims):
    return {c["id"]: c for c in claims}


# -- per-method sweep points (AlgorithmSpec.points) -------------------------------------------------


def test_points_restrict_one_method_to_some_values(fakes):
    restricted = AlgorithmSpec(label="Few", name=fakes.ROUND_ROBIN, points={"quick": {"fixed-eps": (0.4,)}})
    spec = dataclasses.replace(fakes.SPEC, algorithms=(*fakes.SPEC.algorithms, restricted))
    few = [(t.panel, t.sweep_value) for t in expand(spec, "quick") if t.label == "Few"]
    assert sorted(set(few)) == [("fixed-eps", 0.4), ("sphere-n", 4), ("sphere-n", 6)]
    # the other methods' tasks are those of the spec without the restricted method
    others = [t.pk for t in expand(spec, "quick") if t.label != "Few"]
    assert others == [t.pk for t in expand(fakes.SPEC, "quick")]
    # a scale the restriction does not name: every value
    paper = {(t.panel, t.sweep_value) for t in expand(spec, "paper") if t.label == "Few"}
    assert ("fixed-eps", 0.1) in paper and len(paper) == 6
    none = dataclasses.replace(restricted, points={"quick": {"fixed-eps": ()}})
    spec = dataclasses.replace(fakes.SPEC, algorithms=(*fakes.SPEC.algorithms, none))
    assert {t.panel for t in expand(spec, "quick") if t.label == "Few"} == {"sphere-n"}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    eps=st.lists(st.sampled_from((0.1, 0.2, 0.4)), unique=True, max_size=3),
    n=st.lists(st.sampled_from((4, 6, 8)), unique=True, max_size=3),
    scale=st.sampled_from(("quick", "paper")),
)
def test_points_property_restricted_method_runs_exactly_where_allowed(fakes, eps, n, scale):
    points = {"paper": {"fixed-eps": tuple(eps), "sphere-n": tuple(n)}}
    restricted = AlgorithmSpec(label="Few", name=fakes.ROUND_ROBIN, points=points)
    spec = dataclasses.replace(fakes.SPEC, algorithms=(*fakes.SPEC.algorithms, restricted))
    tasks = expand(spec, scale)
    few = {(t.panel, t.sweep_value) for t in tasks if t.label == "Few"}
    everywhere = {(p.name, v) for p in spec.panels for v in p.values[scale]}
    allowed = {("fixed-eps", v) for v in eps} | {("sphere-n", v) for v in n}
    assert few == (allowed if scale == "paper" else everywhere)
    assert [t.pk for t in tasks if t.label != "Few"] == [t.pk for t in expand(fakes.SPEC, scale)]
    assert len({t.pk for t in tasks}) == len(tasks)


@pytest.mark.parametrize(
    "points",
    [
        {"huge": {"fixed-eps": (0.2,)}},
        {"quick": {"fixed-eps": [0.2]}},
        {"quick": ["fixed-eps"]},
    ],
)
def test_points_must_be_scales_to_panels_to_tuples(points):
    with pytest.raises(ConfigError, match="points"):
        AlgorithmSpec(label="A", name="a", points=points)


def test_points_must_be_values_of_the_panel(fakes):
    bad = AlgorithmSpec(label="Few", name=fakes.ROUND_ROBIN, points={"quick": {"fixed-eps": (0.3,)}})
    with pytest.raises(ConfigError, match="points"):
        dataclasses.replace(fakes.SPEC, algorithms=(*fakes.SPEC.algorithms, bad))


# -- the as-printed rows leave the existing runs unchanged ---------------------------------------------


@pytest.mark.parametrize("name", ["beside-hard", "beside-example1"])
@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_existing_beside_runs_are_unchanged_except_the_added_rows(name, scale):
    spec = get_experiment(name)
    library = dataclasses.replace(spec, algorithms=tuple(a for a in spec.algorithms if a.label != ALG1))
    tasks = expand(spec, scale)
    assert [t.pk for t in tasks if t.label != ALG1] == [t.pk for t in expand(library, scale)]
    added = [t for t in tasks if t.label == ALG1]
    assert {t.algorithm for t in added} == {"beside"}
    assert added[0].algorithm_params["estimator"] == "rips"  # Algorithm 1 as printed: RIPS, i.i.d. draws
    assert added[0].algorithm_params["sampling"] == "iid"
    wanted = ALG1_POINTS.get(name, {}).get(scale)
    for panel in spec.panels:
        values = {t.sweep_value for t in added if t.panel == panel.name}
        expect = set(wanted[panel.name]) if wanted and panel.name in wanted else set(panel.values[scale])
        assert values == expect


def test_library_labels_of_the_existing_experiments():
    assert {a.label for a in get_experiment("beside-hard").algorithms} == {
        "BESIDE",
        "XY_diff-only",
        "BASELINE",
        ALG1,
    }
    assert {a.label for a in get_experiment("beside-example1").algorithms} == {"BESIDE", "XY_diff-only", ALG1}
    assert ALG1_POINTS["beside-hard"]["quick"] == {"hard-i1": (0.02,)}


# -- readings on synthetic run tables ------------------------------------------------------------------


def _row(label, value, samples, *, panel="p", correct=True, stopped=True, **extra):
    return {
        "status": "ok",
        "panel": panel,
        "label": label,
        "sweep.value": value,
        "samples": samples,
        "stopped": stopped,
        "correct": correct,
        "algorithm.delta": 0.1,
        **extra,
    }


def hard_table(alg1_power=2.0, alg1_eps=(0.04, 0.028, 0.02, 0.014), alg1_errors=0):
    rows = []
    for eps in (0.04, 0.028, 0.02, 0.014, 0.01, 0.007, 0.005):
        for rep in range(5):
            rows.append(_row("BESIDE", eps, 10 * eps**-2.0))
            rows.append(_row("XY_diff-only", eps, 0.1 * eps**-3.0))
            rows.append(_row("BASELINE", eps, 20 * eps**-2.0))
            if eps in alg1_eps:
                rows.append(_row(ALG1, eps, 1e4 * eps**-alg1_power, correct=rep >= alg1_errors))
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("power", "passed"), [(2.0, True), (1.6, True), (3.0, False), (1.0, False)])
def test_hard_slope_of_beside_as_printed(power, passed):
    c = by_id(check_hard(hard_table(alg1_power=power)))
    assert c["hard-slope-alg1"]["passed"] is passed
    assert c["hard-slope-alg1"]["evidence"]["slope"] == pytest.approx(power)
    # the library rows' readings ignore the as-printed rows
    lib = by_id(check_hard(hard_table().query("label != @ALG1")))
    for cid in ("hard-slopes", "hard-beside-better-small-eps", "pac"):
        assert c[cid]["evidence"] == lib[cid]["evidence"]
        assert c[cid]["passed"] == lib[cid]["passed"]


def test_hard_slope_of_beside_as_printed_needs_two_eps():
    c = by_id(check_hard(hard_table(alg1_eps=(0.02,))))["hard-slope-alg1"]
    assert c["verdict"] == "inconclusive" and not c["passed"] and "fewer than 2" in c["reason"]


def test_pac_of_beside_as_printed_is_its_own_claim():
    c = by_id(check_hard(hard_table(alg1_errors=3)))  # 3 errors out of 5 runs at each of 4 eps: 60 %
    assert not c["pac-alg1"]["passed"] and c["pac"]["passed"]
    assert set(c["pac"]["evidence"]["per_method"]) == {"BESIDE", "XY_diff-only", "BASELINE"}
    assert set(c["pac-alg1"]["evidence"]["per_method"]) == {ALG1}


def test_budget_hits_of_beside_as_printed_leave_the_library_verdicts_alone():
    df = hard_table()
    df["experiment"], df["scale"], df["replicate"] = "beside-hard", "paper", 0
    df.loc[(df["label"] == ALG1) & (df["sweep.value"] == 0.014), "stopped"] = False
    c = by_id(check_claims(df, "beside-hard"))
    assert c["pac"]["verdict"] == "pass" and c["hard-slopes"]["verdict"] == "pass"
    assert c["pac-alg1"]["verdict"] == "inconclusive" and c["hard-slope-alg1"]["verdict"] == "inconclusive"
    assert "BESIDE as printed" in c["hard-slope-alg1"]["wording"]
    assert "practical BESIDE" in c["hard-slopes"]["wording"]


@pytest.mark.parametrize(("k2", "k3", "e2", "e3"), [(0.0, 0.0, True, True), (2.0, 0.0, False, True)])
def test_example1_is_read_on_beside_as_printed_too(k2, k3, e2, e3):
    rows = [
        _row(lbl, g, 1000 * (1 / abs(g)) ** (k if lbl == ALG1 else 0.0), panel=panel)
        for panel, k, gaps in (("e2-gap", k2, (0.1, 0.05, 0.025)), ("e3-safety", k3, (-0.04, -0.02, -0.01)))
        for g in gaps
        for lbl in ("BESIDE", "XY_diff-only", ALG1)
    ]
    c = by_id(check_example1(pd.DataFrame(rows)))
    assert c["example1-no-delta-e2-alg1"]["passed"] is e2
    assert c["example1-no-dsafe-e3-alg1"]["passed"] is e3
    # the library rows have slope 0
    assert c["example1-no-delta-e2"]["passed"] and c["example1-no-dsafe-e3"]["passed"]
    assert c["pac"]["passed"] and c["pac-alg1"]["passed"]


def worst_table(pulls_of_m, ms=(1, 2, 4, 8, 16), reps=5):
    return pd.DataFrame(
        [
            _row("BESIDE", m, pulls_of_m(m) * (1 + 0.01 * rep), **{"instance.n_arms": 20})
            for m in ms
            for rep in range(reps)
        ]
    )


@pytest.mark.parametrize(
    ("pulls_of_m", "passed"),
    [
        (lambda m: 1e4 * worst_case_log_factor(m, 20, 0.1), True),  # the bound's log factor
        (lambda m: 1e4, True),  # independent of m
        (lambda m: 1e4 * WORST_CASE_TOL * 0.95 * worst_case_log_factor(m, 20, 0.1), True),
        (lambda m: 1e4 * m**0.5, False),  # sqrt(m): 4x at m = 16
        (lambda m: 1e4 * m, False),  # one sample set per constraint
    ],
)
def test_worst_case_reads_growth_against_the_log_factor(pulls_of_m, passed):
    c = by_id(check_worst_case(worst_table(pulls_of_m)))
    w = c["worst-case-log-m"]
    assert w["passed"] is passed
    ratio = worst_case_log_factor(16, 20, 0.1) / worst_case_log_factor(1, 20, 0.1)
    assert w["evidence"]["log_factor_ratio"] == pytest.approx(ratio)
    assert w["evidence"]["limit"] == pytest.approx(WORST_CASE_TOL * ratio)
    assert w["evidence"]["growth"] == pytest.approx(pulls_of_m(16) / pulls_of_m(1), rel=1e-9)
    assert c["pac"]["passed"]


def test_worst_case_needs_two_values_of_m_and_scores_errors():
    c = by_id(check_worst_case(worst_table(lambda m: 1e4, ms=(4,))))["worst-case-log-m"]
    assert c["verdict"] == "inconclusive" and "fewer than 2" in c["reason"]
    df = worst_table(lambda m: 1e4)
    df.loc[df.index[:10], "correct"] = False
    assert not by_id(check_worst_case(df))["pac"]["passed"]


def test_log_factor_of_corollary_2():
    assert worst_case_log_factor(1, 20, 0.1) == pytest.approx(math.log(20) + math.log(10))
    assert worst_case_log_factor(16, 20, 0.1) == pytest.approx(math.log(320) + math.log(10))


# -- the instance and the experiment at a tiny scale ---------------------------------------------------


@pytest.mark.parametrize("m", [1, 3, 16])
def test_worst_case_instance_every_decision_barely_safe(m):
    inst = make_instance("beside/worst-case", np.random.default_rng(m), n_constraints=m, safety_scale=0.01)
    assert np.array_equal(inst.arms, inst.decisions) and inst.arms.shape == (20, 5)
    assert np.allclose(np.linalg.norm(inst.arms, axis=1), 1.0)
    mu = np.atleast_2d(inst.constraint_params)
    assert mu.shape == (m, 5) and np.allclose(np.linalg.norm(mu, axis=1), 0.01)
    gaps = inst.threshold - inst.decisions @ mu.T
    assert gaps.min() >= -1e-12 and gaps.max() <= 0.02 + 1e-12
    assert inst.epsilon == 0.1


@pytest.mark.parametrize(
    "kw", [{"n_constraints": 0}, {"d": 30}, {"safety_scale": -0.1}, {"epsilon": 0.0}, {"n_arms": 1}]
)
def test_worst_case_instance_rejects_bad_parameters(kw):
    with pytest.raises(ConfigError):
        make_instance("beside/worst-case", np.random.default_rng(0), **kw)


def test_worst_case_experiment_at_a_tiny_scale():
    spec = get_experiment("beside-worst-case")
    assert [p.values for p in spec.panels] == [{"quick": (1, 4, 16), "paper": (1, 2, 4, 8, 16)}]
    assert spec.labels == ["BESIDE"]
    tasks = [t for t in expand(spec, "quick", replicates=1) if t.sweep_value in (1, 16)]
    records = [execute_task(t) for t in tasks]
    assert all(r["status"] == "ok" and r["stopped"] and r["correct"] for r in records)
    assert {r["instance.n_constraints"] for r in records} == {1, 16}
    c = by_id(check_claims(pd.DataFrame(records), "beside-worst-case"))
    assert c["worst-case-log-m"]["verdict"] == "inconclusive"  # quick scale: only the paper scale decides
    assert c["worst-case-log-m"]["raw_verdict"] in ("pass", "fail")
    assert c["pac"]["verdict"] == "pass"
