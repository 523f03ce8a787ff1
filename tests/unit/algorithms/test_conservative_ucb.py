"""Conservative UCB and its baselines (issue 44): the compiled rounds play what ask / tell plays, bit
for bit; the budget reads like the algorithm (a state with prescribed counts and sums); refusals are
clear."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from safebandits.algorithms.compatibility import instance_for
from safebandits.algorithms.registry import make_learner
from safebandits.algorithms.regret.conservative_baselines import budget_rounds
from safebandits.algorithms.regret.conservative_ucb import cucb_bounds_entry, psi_constants
from safebandits.exceptions import CannotStartError, ConfigError
from safebandits.problems.declare import ConservativeProblem
from safebandits.types import Observation

NAMES = ["conservative-ucb", "conservative-ucb-unknown-mean", "ucb", "budget-first"]


def _sim(known=True, horizon=400, alpha=0.1, means=(0.5, 0.6, 0.4, 0.4, 0.4)):
    problem = ConservativeProblem(
        n_arms=len(means), alpha=alpha, default_mean=means[0] if known else None, horizon=horizon
    )
    return problem.simulate(means=list(means))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("options", [{}, {"budget": "code"}])
def test_compiled_rounds_equal_ask_tell(name, options):
    if options and not name.startswith("conservative"):
        pytest.skip("budget is Conservative UCB's option")
    sim = _sim(horizon=1500, alpha=0.5, means=(0.8, 0.9, 0.5, 0.2))
    inst = instance_for(sim, name)
    fast = make_learner(name, sim, np.random.default_rng(0), options)
    block = fast.simulate(inst.environment(np.random.default_rng(7)), 1500)
    slow = make_learner(name, sim, np.random.default_rng(0), options)
    env = inst.environment(np.random.default_rng(7))
    arms = []
    for _ in range(1500):
        d = slow.ask()
        arms.append(d.arm)
        slow.tell(d, env.play(d))
    np.testing.assert_array_equal(np.argmax(block.points, axis=1), arms)
    np.testing.assert_array_equal(fast.state.reward_sums, slow.state.reward_sums)
    assert len(set(arms)) > 1


def test_budget_reads_like_the_algorithm():
    sim = _sim(known=True, horizon=100, alpha=0.1)
    learner = make_learner("conservative-ucb", sim, np.random.default_rng(0))
    st = learner.state
    st.counts[:] = [20, 5, 5, 5, 5]  # a prescribed history: t = 40 rounds played
    st.reward_sums[:] = [10.0, 3.5, 2.0, 2.0, 2.0]
    st.live[0]["t"] = 40
    cucb_bounds_entry(st)  # (steps 1-3 on the prescribed history)
    d = learner.ask()
    a, b = psi_constants(5, learner.delta)
    width = math.sqrt(2.0 * (a * math.log(math.log(6.0)) + b) / 5)
    lower = [max(0.0, m - width) for m in (0.7, 0.4, 0.4, 0.4)]
    j = 1  # (the largest upper bound: 0.7 + width)
    xi = sum(5 * lo for lo in lower) + lower[j - 1] + 20 * 0.5 - 0.9 * 41 * 0.5
    assert learner.budget == pytest.approx(xi, rel=1e-12)
    assert d.arm == (j if xi >= 0 else 0)
    cert = learner.certificate()
    assert cert.covers(d)


def test_first_rounds_play_the_default_until_the_budget_allows():
    sim = _sim(known=True, horizon=200, alpha=0.1)
    learner = make_learner("conservative-ucb", sim, np.random.default_rng(0))
    env = instance_for(sim, "conservative-ucb").environment(np.random.default_rng(0))
    first = []
    for _ in range(10):
        d = learner.ask()
        first.append(d.arm)
        learner.tell(d, env.play(d))
    # T_0 mu_0 - 0.9 t mu_0 >= 0 first at t = 10 (nine default pulls), with lambda = 0 for unpulled arms
    assert first == [0] * 9 + [1]


def test_budget_first_needs_the_default_mean():
    with pytest.raises(CannotStartError, match="default_mean"):
        make_learner("budget-first", _sim(known=False), np.random.default_rng(0))


def test_budget_first_phase():
    sim = _sim(known=True, horizon=100_000, alpha=0.1)
    learner = make_learner("budget-first", sim, np.random.default_rng(0))
    a, b = psi_constants(5, 1e-5)
    bound = math.sqrt(2 * 100_000 * 4 * (a * math.log(math.log(100_001.0)) + b))
    assert learner.budget_phase == math.ceil(bound / (0.1 * 0.5))
    assert budget_rounds(100, 5, 0.0, 0.5, (a, b), 1.0) == 100


def test_refusals_and_protocol():
    learner = make_learner("conservative-ucb", _sim(), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="context"):
        learner.ask(context=np.zeros(3))
    with pytest.raises(ConfigError, match="delta"):
        make_learner("conservative-ucb", _sim(), np.random.default_rng(0), {"delta": 1.5})
    with pytest.raises(ConfigError, match="log"):
        make_learner("conservative-ucb", _sim(means=(0.5, 0.4)), np.random.default_rng(0), {"delta": 0.9})
    clone = copy.deepcopy(learner)
    d = clone.ask()
    clone.tell(d, Observation(reward=0.3, constraints=np.zeros(0)))
    assert clone.n_samples == 1 and learner.n_samples == 0
    est = clone.arm_estimates()
    assert est.estimate[0, 0] == 0.5 and np.isnan(est.estimate[1, 0])
