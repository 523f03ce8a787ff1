"""Issue 40, part 2: the assumption watcher. Data that contradict a declared bound (a confidence interval
lying wholly beyond mean_bound or the norm bound) raise a flag with the round; the watcher never changes
a result. (A bounded outcome outside its range is refused where it enters:
tests/unit/algorithms/test_observation.py.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.compatibility import instance_for
from safebandits.algorithms.registry import make_learner
from safebandits.experiments.regret_loop import run_regret
from safebandits.experiments.watch import Flag, interval_flags, norm_flags
from safebandits.problems.declare import LinearProblem
from safebandits.records import interval_estimates


@dataclasses.dataclass
class Info:
    mean_bound: float | None = 1.0
    param_norm_bound: float | None = 1.0


def estimates(lower, upper):
    est = (np.asarray(lower) + np.asarray(upper)) / 2
    return interval_estimates(["reward", "cost"], est, (np.asarray(upper) - np.asarray(lower)) / 2,
                              [None, 0.5])  # fmt: skip


def test_an_interval_wholly_above_the_bound_is_flagged_with_its_round():
    e = estimates([[0.1, 0.0], [0.2, 1.31]], [[0.3, 0.2], [0.4, 1.52]])
    flags = interval_flags(e, Info(), 4096)
    assert flags == [
        Flag(4096, "the confidence interval of arm 1's cost, [1.31, 1.52], lies wholly above 1 (the declared "
             "mean_bound = 1)")
    ]  # fmt: skip
    assert flags[0].text().startswith("round 4096: ")


def test_intervals_that_meet_the_range_or_unknown_bounds_raise_nothing():
    e = estimates([[0.1, 0.9], [-1.0, -0.2]], [[0.3, 1.2], [-0.9, 0.0]])
    assert interval_flags(e, Info(), 1) == []
    assert interval_flags(estimates([[5.0, 5.0]], [[6.0, 6.0]]), Info(mean_bound=None), 1) == []
    unknown = interval_estimates(["reward", "cost"], [[np.nan, np.nan]], [[1.0, 1.0]], [None, 0.5])
    assert interval_flags(unknown, Info(), 1) == []


@settings(max_examples=80, deadline=None)
@given(st.floats(-5, 5), st.floats(0, 3), st.floats(0.1, 3))
def test_a_flag_iff_the_interval_misses_the_declared_range(center, half, bound):
    e = estimates([[0.0, center - half]], [[0.0, center + half]])
    flags = interval_flags(e, Info(mean_bound=bound), 7)
    tol = 1e-9 * max(1.0, bound)
    misses = center - half > bound + tol or center + half < -bound - tol
    assert bool(flags) == misses


def test_a_confidence_set_outside_the_norm_ball_is_flagged():
    conf = {"theta": np.array([3.0, 0.0]), "a_inv": np.eye(2) * 0.01, "beta": 2.0}  # radius 0.2
    assert "nearest point has norm 2.8" in norm_flags(conf, Info(), 9)[0].what
    assert norm_flags({**conf, "beta": 30.0}, Info(), 9) == []


#: A declared problem whose truth breaks mean_bound (arm 2's cost is 1.69), simulated from Python.
PROBLEM = LinearProblem(arms=np.eye(3), threshold=0.5, safe_arm=0, safe_cost=0.1, safe_reward=0.2)
SIM = PROBLEM.simulate(reward_param=[0.2, 0.6, 0.9], cost_params=[[0.1, 0.3, 1.69]])


@pytest.mark.parametrize("name", ["opb", "oplb"])
def test_a_run_whose_data_contradict_mean_bound_is_flagged_and_unchanged(name):
    inst = instance_for(SIM, name, horizon=6000)
    learner = make_learner(name, SIM, np.random.default_rng(2))
    out = run_regret(learner, inst.environment(np.random.default_rng(1)), inst, horizon=6000)
    assert out.assumption["round"] == 4096  # (checked after each block of 4096 rounds)
    assert "arm 2's cost" in out.assumption["what"] and "wholly above 1" in out.assumption["what"]
    assert out.assumption["checks"] == 2
    # the instance without the declaration's mark: not watched, and the very same run
    bare = inst._inst
    plain = run_regret(make_learner(name, SIM, np.random.default_rng(2)),
                       bare.environment(np.random.default_rng(1)), bare, horizon=6000)  # fmt: skip
    assert plain.assumption == {}
    assert (plain.regret, plain.violations, plain.policy_violations) == (
        out.regret,
        out.violations,
        out.policy_violations,
    )


def test_a_run_within_the_bounds_raises_nothing():
    sim = PROBLEM.simulate(reward_param=[0.2, 0.6, 0.9], cost_params=[[0.1, 0.3, 0.69]])
    inst = instance_for(sim, "opb", horizon=5000)
    learner = make_learner("opb", sim, np.random.default_rng(2))
    out = run_regret(learner, inst.environment(np.random.default_rng(1)), inst, horizon=5000)
    assert out.assumption == {}


def test_safe_lucb_on_a_parameter_beyond_its_norm_bound_is_flagged():
    # ||theta|| = 2.9 > param_norm_bound 1: its loss intervals and its confidence ellipsoid leave the bounds
    arms = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.7, 0.7], [-0.5, 0.5], [-0.3, 0.3], [0.3, 0.3]])
    p = LinearProblem(arms=arms, threshold=0.5, safe_arm=0, safe_cost=0.0, safe_reward=0.0,
                      cost_matrix=np.eye(2), feedback={"sigma": 0.05})  # fmt: skip
    sim = p.simulate(reward_param=[-2.5, 1.5])
    inst = instance_for(sim, "safe-lucb", horizon=5000)
    learner = make_learner("safe-lucb", sim, np.random.default_rng(2), {"t_prime": "t0"})
    out = run_regret(learner, inst.environment(np.random.default_rng(1)), inst, horizon=5000)
    assert out.assumption["round"] == 4096 and "loss x^T mu" in out.assumption["what"]
    info = inst.public_info()
    assert "wholly outside ||mu|| <= 1" in norm_flags(learner.estimated_safe_set(), info, 5000)[0].what


def test_identification_constraint_intervals_are_read_against_mean_bound():
    e = interval_estimates(["constraint z^T mu"], [[0.2], [1.6]], [[0.1], [0.2]], [0.6], unit="decision")
    flag = interval_flags(e, Info(mean_bound=1.0), 900)[0]
    assert flag.round == 900 and flag.what.startswith("the confidence interval of decision 1's constraint")
