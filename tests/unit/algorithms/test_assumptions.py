"""Issue 40, part 2: each learner states what its guarantee rests on, and a declared problem outside a
learner's assumptions is refused before it runs (OPB with mean_bound 3), with the fix in the user's units."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.assumptions import ASSUMPTIONS
from safebandits.algorithms.compatibility import assumption_statement, compatible_learners, start_check
from safebandits.algorithms.registry import list_algorithms, make_learner
from safebandits.exceptions import CannotStartError
from safebandits.problems.declare import LinearProblem
from safebandits.problems.declare_covariate import CovariateProblem


#: The issue's problem: 3 arms with means above 1, mean_bound 3, tau 1.5.
def big(**extra):
    values = dict(arms=np.eye(3), threshold=1.5, safe_arm=0, safe_cost=0.3, safe_reward=0.6, mean_bound=3.0)
    values.update(extra)
    return LinearProblem(**values)


def test_opb_refuses_means_above_one_with_the_rescaling_in_the_users_units():
    with pytest.raises(CannotStartError) as err:
        make_learner("opb", big(), np.random.default_rng(0))
    text = str(err.value)
    assert "mean_bound = 3" in text
    assert "divide every reward and cost by 3" in text
    assert "threshold 1.5 becomes 0.5" in text and "safe_cost 0.3 becomes 0.1" in text
    assert "safe_reward 0.6 becomes 0.2" in text
    check = start_check(big(), "opb")
    assert not check.ok and any("divide every reward and cost by 3" in f for f in check.fixes)
    assert "opb" not in {c.name for c in compatible_learners(big(), task="regret")}


def test_the_same_problem_divided_by_three_starts():
    small = big(threshold=0.5, safe_cost=0.1, safe_reward=0.2, mean_bound=1.0, feedback={"sigma": 1 / 3})
    make_learner("opb", small, np.random.default_rng(0))
    assert start_check(small, "opb").ok


@pytest.mark.parametrize("name", ["oplb", "lc-lucb", "safe-lts"])
def test_the_stagewise_learners_refuse_means_above_one(name):
    p = LinearProblem(arms=[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], threshold=1.5, safe_arm=0, mean_bound=2.0)
    check = start_check(p, name)
    assert not check.ok and "mean_bound = 2" in check.message
    assert any("param_norm_bound" in f for f in check.fixes)  # (the linear view divides S too)


def test_covariate_means_follow_the_feedback():
    gauss = CovariateProblem(covariates=[1, 2, 4], threshold=1.5, safe_action=0, safe_cost=0.2,
                             feedback={"kind": "gaussian", "sigma": 0.3}, mean_bound=3.0)  # fmt: skip
    assert not start_check(gauss, "opb").ok
    bern = CovariateProblem(covariates=[1, 2, 4], threshold=0.3, safe_action=0, safe_cost=0.05)
    assert start_check(bern, "opb").ok


def test_problem_information_without_a_declared_bound_is_taken_on_trust():
    # the paper instances: StagewiseInfo(mean_bound=None), nothing checked, nothing changed
    view = big(mean_bound=1.0).view("k-armed")
    info = dataclasses.replace(view, mean_bound=None)
    make_learner("opb", info, np.random.default_rng(0))
    with pytest.raises(CannotStartError):
        make_learner("opb", dataclasses.replace(view, mean_bound=3.0), np.random.default_rng(0))


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 20.0, allow_nan=False))
def test_opb_starts_iff_the_declared_means_are_at_most_one(bound):
    p = LinearProblem(arms=np.eye(3), threshold=0.4 * bound, safe_arm=0, safe_cost=0.1 * bound,
                      mean_bound=bound)  # fmt: skip
    check = start_check(p, "opb")
    assert check.ok == (bound <= 1.0)
    if not check.ok:
        assert f"divide every reward and cost by {bound:g}" in check.message


def test_every_promising_learner_states_what_its_guarantee_rests_on():
    for name, entry in list_algorithms().items():
        if entry.guarantee in ("round", "expectation", "soft", "pac"):
            assert entry.assumptions, name
            assert all(k in ASSUMPTIONS for k in entry.assumptions), (name, entry.assumptions)


def test_the_statement_gives_the_declared_values():
    p = LinearProblem(arms=np.eye(3), threshold=0.5, safe_arm=0, safe_cost=0.1, param_norm_bound=2.0,
                      feedback={"sigma": 0.5})  # fmt: skip
    text = assumption_statement(p, "lc-lucb")
    assert "declared mean_bound = 1" in text and "S = 2" in text and "R = 0.5" in text
    assert "action 0" in text
    assert assumption_statement(p, "uniform-exploration") == ""  # (a baseline promises nothing)
