"""Bounded feedback is sub-Gaussian: kernel learners take Bernoulli and binary outcomes (issue 29).

The told noise bound is the sub-Gaussian proxy ``(b - a) / 2`` (1/2 for Bernoulli ``{0, 1}``, 1 for
binary ``{-1, +1}``), and simulation draws real bounded outcomes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.compatibility import compatible_learners, learner_fit
from safebandits.algorithms.registry import make_learner
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems.declare import Feedback, KernelProblem, LinearProblem
from safebandits.problems.kernel import BoundedFeedback, KernelInstance

EYE4 = np.eye(4)
REWARD = [0.1, 0.5, 0.7, 0.9]
COST = [[0.05, 0.3, 0.6, 0.9]]


def _linear(kind: str) -> LinearProblem:
    return LinearProblem(
        arms=EYE4,
        threshold=0.4,
        safe_arm=0,
        safe_reward=0.1,
        safe_cost=0.05,
        param_norm_bound=2.0,
        feedback=kind,
    )


@pytest.mark.parametrize(("kind", "proxy"), [("bernoulli", 0.5), ("binary", 1.0)])
def test_proxy_is_half_the_range_and_stated(kind, proxy):
    fb = Feedback(kind)
    assert fb.noise_bound == proxy
    assert f"(b - a) / 2 = {proxy:g}" in fb.describe()
    assert BoundedFeedback(kind).sigmas == (proxy, proxy)


@pytest.mark.parametrize("kind", ["bernoulli", "binary"])
def test_linear_problem_offers_the_kernel_view_with_the_proxy(kind):
    p = _linear(kind)
    assert p.why_not("kernel") is None and "kernel" in p.kinds
    assert p.view("kernel").noise_bound == Feedback(kind).noise_bound
    names = {c.name for c in compatible_learners(p, task="regret")}
    # (StageOpt and SGP-UCB start from the safe arm but cannot leave it within this horizon at these
    # bounds: listed apart, with the rounds they would need; issue 40)
    fit = learner_fit(p, task="regret")
    stuck = {c.name for c, _ in fit.cannot_learn}
    assert {"ckb-ucb", "ckb-ts", "ckb-rand"} <= names and {"stageopt", "sgp-ucb"} <= names | stuck
    assert names.isdisjoint(stuck) and all(not est.can_learn for _, est in fit.cannot_learn)


def test_linear_kernel_simulation_draws_bernoulli_outcomes():
    """Reward in {0, 1}; the constraint g = cost - tau observed as outcome - tau; means as declared."""
    sim = _linear("bernoulli").simulate(reward_param=REWARD, cost_params=COST)
    inst = sim.instance("kernel", horizon=100)
    env = inst.environment(np.random.default_rng(3))
    obs = [env.pull(2) for _ in range(4000)]
    r = np.array([o.reward for o in obs])
    c = np.array([o.constraints[0] for o in obs])
    assert set(np.unique(r)) == {0.0, 1.0}
    np.testing.assert_allclose(np.unique(c), [-0.4, 0.6])
    # 4000 draws: standard error <= 0.008; 5 standard errors
    assert abs(r.mean() - 0.7) < 0.04 and abs(c.mean() - (0.6 - 0.4)) < 0.04
    assert inst.public_info().noise_bound == 0.5 and inst.public_info().constraint_noise_bound == 0.5


def test_kernel_problem_takes_binary_feedback_with_shift():
    pts = np.linspace(0, 1, 5)[:, None]
    p = KernelProblem(
        points=pts,
        kernel={"name": "se", "lengthscale": 0.5},
        reward_bound=1.0,
        constraint_bound=1.0,
        slater=0.2,
        safe_seed=[0],
        feedback="binary",
        constraint_shift=-0.2,
    )
    assert p.view("kernel").noise_bound == 1.0
    f = np.array([-0.5, 0.0, 0.5, 0.2, -0.2])
    g = np.array([-0.5, -0.3, 0.1, 0.4, 0.6])  # outcome means g + 0.2 in [-1, 1]
    inst = p.simulate(reward=f, constraint=g).instance("kernel")
    env = inst.environment(np.random.default_rng(0))
    obs = [env.pull(3) for _ in range(3000)]
    r = np.array([o.reward for o in obs])
    c = np.array([o.constraints[0] for o in obs])
    np.testing.assert_allclose(np.unique(r), [-1.0, 1.0])
    np.testing.assert_allclose(np.unique(c), [-1.2, 0.8])
    assert abs(r.mean() - 0.2) < 0.1 and abs(c.mean() - 0.4) < 0.1


def test_bounded_means_out_of_range_are_refused():
    with pytest.raises(ConfigError, match=r"Bernoulli feedback needs every constraint mean"):
        KernelInstance(
            reward=np.array([0.2, 0.5]),
            constraint=np.array([-0.5, 0.9]),  # minus shift -0.3: 1.2 > 1
            kernel=np.eye(2),
            feedback=BoundedFeedback("bernoulli", constraint_shift=-0.3),
        )
    with pytest.raises(ConfigError, match=r"reward mean"):
        KernelInstance(
            reward=np.array([-0.2, 0.5]),
            constraint=np.array([-0.5, 0.1]),
            kernel=np.eye(2),
            feedback=BoundedFeedback("bernoulli"),
        )


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["bernoulli", "binary"]),
    mean=st.floats(0.0, 1.0),
    shift=st.floats(-2.0, 2.0),
    u=st.floats(0.0, 1.0, exclude_max=True),
)
def test_observations_are_outcomes_plus_shift(kind, mean, shift, u):
    """Every observation is an outcome of the declared range plus the shift (never anything else)."""
    fb = BoundedFeedback(kind, reward_shift=shift, constraint_shift=-shift)
    r, c = fb.observe(mean + shift, mean - shift, 0, np.array([u, u]))
    outcomes = (0.0, 1.0) if kind == "bernoulli" else (-1.0, 1.0)
    assert min(abs(r - shift - o) for o in outcomes) < 1e-12
    assert min(abs(c + shift - o) for o in outcomes) < 1e-12


@pytest.mark.parametrize("name", ["ckb-ucb", "stageopt", "sgp-ucb"])
def test_kernel_learners_run_on_bernoulli_outcomes(name):
    sim = _linear("bernoulli").simulate(reward_param=REWARD, cost_params=COST)
    learner = make_learner(name, sim, np.random.default_rng(0))
    inst = sim.instance("kernel", horizon=200)
    out = run_regret(learner, inst.environment(np.random.default_rng(1)), inst, horizon=200)
    assert out.rounds == 200 and np.isfinite(out.regret)
