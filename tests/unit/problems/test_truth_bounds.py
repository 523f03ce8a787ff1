"""Issue 40, part 2: a simulation truth is checked against the bounds the declaration states before
anything runs (refused, or kept on purpose and flagged)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.problems.declare import KernelProblem, LinearProblem, SafeLinearProblem
from safebandits.problems.zoo.declared import declared

ARMS = [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
PROBLEM = {"setting": "linear", "arms": ARMS, "threshold": 0.5, "safe_arm": 0}
#: The issue's truth: costs up to 1.69 under mean_bound 1, ||theta|| = 1.0003 above param_norm_bound 1.
THETA = [0.6, 0.8004]
BAD = {"reward_param": THETA, "cost_params": [[0.1, 1.69]]}


def test_the_issues_truth_is_refused_naming_each_field_and_number():
    with pytest.raises(ConfigError) as err:
        declared(problem=PROBLEM, truth=BAD)
    text = str(err.value)
    assert "cost_params: the cost mean of arm 1 is 1.69, beyond mean_bound = 1" in text
    assert "reward_param: the reward mean of arm 2 is 1.00032, beyond mean_bound = 1" in text
    assert "reward_param: ||theta|| = 1.0003" in text and "param_norm_bound = 1" in text
    assert "cost_params: ||mu_1|| = 1.69" in text
    assert 'truth_outside_bounds = "flag"' in text


def test_flag_mode_keeps_the_truth_and_marks_every_instance():
    sim = declared(problem=PROBLEM, truth=BAD, truth_outside_bounds="flag")
    assert len(sim.flags) == 4
    assert sim.instance("stagewise").assumption_flags == sim.flags
    with pytest.raises(ConfigError, match="truth_outside_bounds must be one of"):
        declared(problem=PROBLEM, truth=BAD, truth_outside_bounds="ignore")


def test_a_truth_within_the_bounds_passes():
    sim = declared(problem=PROBLEM, truth={"reward_param": [0.6, 0.8], "cost_params": [[0.1, 0.45]]})
    assert sim.flags == () and sim.instance("stagewise").assumption_flags == ()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-2, 2, allow_nan=False), min_size=2, max_size=2),
    st.lists(st.floats(-2, 2, allow_nan=False), min_size=2, max_size=2),
    st.floats(0.1, 3.0),
    st.floats(0.1, 3.0),
)
def test_violations_are_exactly_the_broken_bounds(theta, mu, mean_bound, norm_bound):
    arms = np.array([[0.0, 0.0], *ARMS[:2], [0.5, 0.5]])
    p = LinearProblem(arms=arms, threshold=5.0, safe_arm=0, mean_bound=mean_bound,
                      param_norm_bound=norm_bound)  # fmt: skip
    broken = p.truth_violations({"reward_param": theta, "cost_params": [mu]})
    means = np.abs(np.concatenate([arms @ np.array(theta), arms @ np.array(mu)]))
    norms = [np.linalg.norm(theta), np.linalg.norm(mu)]
    expected = int(means[: len(arms)].max() > mean_bound * (1 + 1e-9))
    expected += int(means[len(arms) :].max() > mean_bound * (1 + 1e-9))
    expected += sum(n > norm_bound * (1 + 1e-9) for n in norms)
    assert len(broken) == expected


def test_kernel_rkhs_norms_and_sups_are_checked():
    pts = np.linspace(0, 1, 6)[:, None]
    p = KernelProblem(kernel={"name": "se", "lengthscale": 0.3}, points=pts, reward_bound=1.0,
                      constraint_bound=1.0, slater=0.2, safe_seed=(0,))  # fmt: skip
    x = pts[:, 0]
    ok = p.truth_violations({"reward": 0.01 * np.ones(6), "constraint": 0.01 * (x - 2)})
    assert ok == []
    bad = p.truth_violations({"reward": 3 * np.sin(6 * x), "constraint": x - 0.5})
    assert any(b.startswith("reward: its max |value| is") for b in bad)
    assert any(b.startswith("reward: its RKHS norm is") for b in bad)


def test_safe_linear_norm_is_checked():
    p = SafeLinearProblem(decision_set={"kind": "ball", "center": [0.0, 0.0], "radius": 1.0}, b_mat=np.eye(2),
                          threshold=0.5, param_norm_bound=1.0)  # fmt: skip
    assert p.truth_violations({"mu": [0.6, 0.8]}) == []
    assert "||mu|| = 1.25" in p.truth_violations({"mu": [0.75, 1.0]})[0]
