"""The conservative setting's declaration, view and instance (issue 44): valid values round-trip through
plain values (the TOML ``[problem]`` table), bad values raise one ConfigError naming the parameter, and
the view never carries the truth."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.compatibility import compatible_learners
from safebandits.exceptions import ConfigError
from safebandits.problems.conservative import (
    ConservativeConstraint,
    ConservativeInfo,
    ConservativeInstance,
    conservative_margins,
)
from safebandits.problems.declare import ConservativeProblem
from safebandits.problems.settings import problem_from_dict


@st.composite
def declarations(draw):
    k = draw(st.integers(2, 12))
    known = draw(st.booleans())
    return dict(
        n_arms=k,
        alpha=draw(st.floats(0.0, 1.0)),
        default_arm=draw(st.integers(0, k - 1)),
        default_mean=draw(st.floats(0.0, 1.0)) if known else None,
        checkpoint=draw(st.integers(1, 50)),
        feedback=draw(st.sampled_from(["gaussian", "bernoulli", {"kind": "subgaussian", "sigma": 0.5}])),
        horizon=draw(st.integers(1, 10**6)),
    )


@settings(max_examples=60, deadline=None)
@given(values=declarations())
def test_valid_declarations_round_trip(values):
    problem = ConservativeProblem(**values)
    again = problem_from_dict(problem.to_dict())
    assert again == problem
    info = problem.view("conservative")
    assert isinstance(info, ConservativeInfo)
    assert info.alpha == problem.alpha and info.default_mean == problem.default_mean
    assert {c.name for c in compatible_learners(problem)} >= {"conservative-ucb", "ucb"}


#: (parameter, bad value): each must raise a ConfigError that names it.
BAD = [
    ("n_arms", 1),
    ("n_arms", 2.5),
    ("alpha", -0.1),
    ("alpha", 1.5),
    ("alpha", math.nan),
    ("alpha", "0.1"),
    ("default_arm", 5),
    ("default_arm", -1),
    ("default_mean", -0.2),
    ("default_mean", 1.5),
    ("checkpoint", 0),
    ("horizon", 0),
    ("mean_bound", 0.0),
    ("feedback", "binary"),
]


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(BAD), base=declarations())
def test_bad_values_raise_one_clear_error(case, base):
    name, value = case
    values = {**base, "n_arms": 5, "default_arm": 0, "feedback": "gaussian", name: value}
    with pytest.raises(ConfigError) as err:
        ConservativeProblem(**values)
    assert repr(name)[1:-1] in str(err.value)


def test_unknown_parameter_named():
    with pytest.raises(ConfigError, match="baseline"):
        problem_from_dict({"setting": "conservative", "n_arms": 3, "alpha": 0.1, "baseline": 0})
    with pytest.raises(ConfigError, match="alpha"):
        problem_from_dict({"setting": "conservative", "n_arms": 3})


def test_truth_against_the_declared_bounds():
    problem = ConservativeProblem(n_arms=3, alpha=0.1, default_mean=0.5)
    assert problem.truth_violations({"means": [0.5, 0.2, 0.3]}) == []
    found = problem.truth_violations({"means": [0.4, 1.2, 0.3]})
    assert any("1.2" in f for f in found) and any("default_mean" in f for f in found)
    with pytest.raises(ConfigError, match="non-negative"):
        problem.simulate(means=[0.5, -0.1, 0.3])


def test_view_and_instance():
    problem = ConservativeProblem(n_arms=3, alpha=0.2, default_arm=1, checkpoint=5)
    sim = problem.simulate(means=[0.3, 0.5, 0.7])
    inst = sim.instance("conservative")
    assert inst.public_info().default_mean is None  # (unknown: the truth is not told)
    c = inst.constraint
    assert (c.alpha, c.checkpoint, c.baseline_mean) == (0.2, 5, 0.5)
    assert inst.optimal_value == 0.7 and inst.safe_arm == 1
    obs = inst.environment(np.random.default_rng(0)).play(__import__("safebandits").Decision(arm=2))
    assert obs.constraints.shape == (0,)


def test_margins():
    c = ConservativeConstraint(alpha=0.1, baseline_mean=0.5)
    np.testing.assert_allclose(conservative_margins([0.5, 0.0, 0.6], c), [0.05, -0.4, -0.25])
    np.testing.assert_allclose(conservative_margins([0.5], c, carried=1.0), [1.05])


def test_instance_refuses_negative_means():
    with pytest.raises(ConfigError, match="non-negative"):
        ConservativeInstance(means=[0.5, -0.5], alpha=0.1)
