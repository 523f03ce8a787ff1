"""The dose structure of a covariate declaration (issue 45, item 2): ``monotone_cost`` and ``max_increase``
checked at the boundary (Hypothesis), the ``"dose"`` view, and a truth that breaks the structure named
(refused by an experiment file unless flagged)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.problems.declare_covariate import AssumptionWarning, CovariateProblem
from safebandits.problems.dose import DoseInfo, structure_violations
from safebandits.problems.zoo.declared import declared

BASE = {"covariates": [10, 20, 30, 40], "threshold": 0.3, "safe_action": 0}


def test_the_dose_view_needs_the_step_bound():
    plain = CovariateProblem(**BASE, safe_cost=0.05)
    assert "dose" not in plain.kinds and "max_increase" in plain.why_not("dose")
    p = CovariateProblem(**BASE, monotone_cost=True, max_increase=[0.1, 0.1, 0.2])
    assert p.kinds[-1] == "dose"
    info = p.view("dose", horizon=50)
    assert isinstance(info, DoseInfo) and info.max_increase == (0.1, 0.1, 0.2) and info.monotone
    np.testing.assert_allclose(info.step_sums()[0], [0.0, 0.1, 0.2, 0.4])
    gauss = CovariateProblem(**BASE, feedback="gaussian", max_increase=0.1)
    assert "dose" not in gauss.kinds and "bounded" in gauss.why_not("dose")
    assert CovariateProblem(**BASE, max_increase=0.1).to_dict()["max_increase"] == 0.1


_BAD_STEPS = st.one_of(
    st.floats(max_value=0.0, allow_nan=False),
    st.floats(min_value=1.0, exclude_min=True, allow_infinity=True),
    st.just(float("nan")),
    st.text(max_size=3),
    st.lists(st.floats(0.01, 0.5), min_size=0, max_size=2),
    st.lists(st.floats(0.01, 0.5), min_size=4, max_size=6),
    st.lists(st.floats(-1.0, 0.0), min_size=3, max_size=3),
)


@settings(max_examples=60, deadline=None)
@given(step=_BAD_STEPS)
def test_a_bad_max_increase_is_refused_naming_it(step):
    with pytest.raises(ConfigError, match="max_increase"):
        CovariateProblem(**BASE, max_increase=step)


@settings(max_examples=40, deadline=None)
@given(step=st.floats(0.001, 1.0), n=st.integers(2, 6))
def test_a_valid_max_increase_is_kept(step, n):
    p = CovariateProblem(covariates=list(range(n)), threshold=0.3, safe_action=0, max_increase=step)
    assert p.steps == (step,) * (n - 1)


@settings(max_examples=30, deadline=None)
@given(order=st.permutations([10, 20, 30, 40]))
def test_doses_out_of_order_are_refused(order):
    if list(order) == sorted(order):
        return
    with pytest.raises(ConfigError, match="increasing order"):
        CovariateProblem(covariates=list(order), threshold=0.3, safe_action=0, max_increase=0.1)


def test_monotone_cost_must_be_a_bool_and_one_covariate():
    with pytest.raises(ConfigError, match="monotone_cost"):
        CovariateProblem(**BASE, monotone_cost="yes")
    with pytest.raises(ConfigError, match="one covariate"):
        CovariateProblem(covariates=[[1, 2], [2, 3]], threshold=0.3, safe_action=0, max_increase=0.1)


tox_curves = st.lists(st.floats(0.0, 0.29), min_size=4, max_size=4).map(lambda v: [0.05, *v[1:]])


@settings(max_examples=60, deadline=None)
@given(tox=tox_curves, step=st.floats(0.01, 0.5))
def test_a_truth_outside_the_structure_is_named(tox, step):
    diff = np.diff(tox)
    p = CovariateProblem(**BASE, safe_cost=0.05, monotone_cost=True, max_increase=step)
    found = p.check_assumptions({"reward": [0.1] * 4, "cost": tox})
    falls = bool(np.any(diff < -1e-12))
    over = bool(np.any(diff > step * (1 + 1e-9) + 1e-12))
    assert any("monotone_cost" in t for t in found) == falls
    assert any("max_increase" in t for t in found) == over
    assert structure_violations(tox, True, (step,) * 3) == [t for t in found if "dose" in t]


def test_non_monotone_truth_is_refused_by_an_experiment_file_unless_flagged():
    problem = {"setting": "covariate", **BASE, "monotone_cost": True, "max_increase": 0.2, "safe_cost": 0.05}
    truth = {"efficacy": [0.1, 0.2, 0.3, 0.4], "toxicity": [0.05, 0.20, 0.10, 0.25]}
    with pytest.raises(ConfigError, match="monotone_cost"):
        declared(problem=problem, truth=truth, T=50)
    sim = declared(problem=problem, truth=truth, T=50, truth_outside_bounds="flag")
    assert any("monotone_cost" in f for f in sim.flags)
    with pytest.warns(AssumptionWarning, match="monotone_cost"):
        sim.instance("dose")


def test_the_statement_lists_the_structure():
    p = CovariateProblem(**BASE, monotone_cost=True, max_increase=[0.1, 0.1, 0.2])
    text = " ".join(p.statement())
    assert "non-decreasing" in text and "[0.1, 0.1, 0.2]" in text
    assert math.isclose(p.view("dose").max_increase[2], 0.2)
