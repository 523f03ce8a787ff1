"""CLUCB and LinUCB (issue 44): the compiled kernels play what a plain numpy loop of the same steps
plays (the module docstring's steps 1-5, written out with ``np.linalg``), round for round."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.algorithms.registry import make_learner
from safebandits.estimators.confidence import adaptive_width
from safebandits.exceptions import ConfigError
from safebandits.problems.conservative_linear import ConservativeLinearInstance


class NumpyCLUCB:
    """Steps 1-5 with numpy (``V`` kept and inverted each round)."""

    def __init__(self, info, conservative, delta, reg=1.0):
        d = info.dim
        self.info, self.conservative, self.delta, self.reg = info, conservative, delta, reg
        self.v, self.xy, self.z = reg * np.eye(d), np.zeros(d), np.zeros(d)
        self.n, self.banked, self.total = 0, 0.0, 0.0

    def choose(self, ctx):
        i = self.info
        beta = adaptive_width(
            self.n, i.dim, self.delta, self.reg, i.noise_bound, i.feature_bound, i.param_bound
        )
        inv = np.linalg.inv(self.v)
        theta = inv @ self.xy
        ucb = ctx.arms @ theta + beta * np.sqrt(np.einsum("ki,ij,kj->k", ctx.arms, inv, ctx.arms))
        j = int(np.argmax(ucb))
        self.fell_back = False
        if not self.conservative:
            return j
        w = self.z + ctx.arms[j]
        low = float(w @ theta - beta * math.sqrt(w @ inv @ w))
        if low + self.banked - (1 - i.alpha) * (self.total + ctx.baseline_reward) >= 0:
            return j
        self.fell_back = True
        return ctx.baseline

    def update(self, x, y, rb):
        self.total += rb
        if self.fell_back:
            self.banked += rb
            return
        self.v += np.outer(x, x)
        self.xy += y * x
        self.z += x
        self.n += 1


@pytest.mark.parametrize("name", ["clucb", "linucb"])
def test_kernels_play_what_a_numpy_loop_plays(name):
    theta = np.array([0.5, 0.8, 0.2, 0.9])
    inst = ConservativeLinearInstance(
        theta=theta, n_actions=8, alpha=0.05, baseline_param=theta + 0.1, horizon=400
    )
    info = inst.public_info()
    learner = make_learner(name, info, np.random.default_rng(0))
    ref = NumpyCLUCB(info, name == "clucb", delta=1.0 / 400)
    env = inst.environment(np.random.default_rng(3))
    fallbacks = 0
    for _ in range(400):
        ctx = env.context()
        d = learner.ask(ctx)
        assert d.arm == ref.choose(ctx)
        obs = env.play(d)
        learner.tell(d, obs)
        ref.update(ctx.arms[d.arm], obs.reward, ctx.baseline_reward)
        fallbacks += ref.fell_back
    assert learner.diagnostics()["fallback_rounds"] == fallbacks
    assert (fallbacks > 0) == (name == "clucb")


@pytest.mark.parametrize("name", ["clucb", "linucb"])
@pytest.mark.parametrize("scorer", [True, False, "fixed"])
def test_compiled_rounds_and_ask_tell_play_the_same_trajectory(name, scorer):
    """The compiled rounds (blocks of the environment's next_rounds, the means recorded in the compiled
    loop) and ask / tell: the same rows, and the same played, baseline and best means bit for bit; drawn
    features with a fixed baseline row or a scorer, and a fixed action set (Kazerouni et al.'s)."""
    from safebandits.experiments.conservative_linear import play_contexts

    theta = np.array([0.5, 0.8, 0.2, 0.9])
    fixed = np.random.default_rng(2).random((8, 4)) if scorer == "fixed" else None
    inst = ConservativeLinearInstance(
        theta=theta, n_actions=8, alpha=0.05, baseline_action=3,
        baseline_param=theta + 0.1 if scorer is True else None, horizon=700, arms=fixed,
    )  # fmt: skip
    outs = []
    for compiled in (True, False):
        learner = make_learner(name, inst.public_info(), np.random.default_rng(0))
        env = inst.environment(np.random.default_rng(5))
        first = play_contexts(learner, env, 300, compiled=compiled)  # (across a refill of the draws)
        rest = play_contexts(learner, env, 400, compiled=compiled)
        means = [np.concatenate([f, r]) for f, r in zip(first, rest, strict=True)]
        outs.append((means, learner.diagnostics(), learner.n_samples))
    for a, b in zip(outs[0][0], outs[1][0], strict=True):
        assert a.tolist() == b.tolist()
    assert repr(outs[0][1:]) == repr(outs[1][1:])  # (budget: NaN for LinUCB)


def test_play_block_records_the_means_and_refuses_mismatched_blocks():
    """``play_block``'s record holds each round's played, baseline and best true means; blocks whose
    arrays disagree on the rounds are refused, naming them."""
    inst = ConservativeLinearInstance(
        theta=np.array([0.5, 0.8, 0.2, 0.9]), n_actions=5, alpha=0.05, horizon=300
    )
    r = inst.environment(np.random.default_rng(1)).next_rounds(300)
    learner = make_learner("clucb", inst.public_info(), np.random.default_rng(0))
    record = (np.empty(300), np.empty(300), np.empty(300))
    rows = learner.play_block(
        r.arms, r.baselines, r.baseline_rewards, r.means, r.variates, 0, 0.1, record=record
    )
    at = np.arange(300)
    assert record[0].tolist() == r.means[at, rows].tolist()
    assert record[1].tolist() == r.means[at, r.baselines].tolist()
    assert record[2].tolist() == r.means.max(axis=1).tolist()
    with pytest.raises(ConfigError, match="variates"):
        learner.play_block(r.arms, r.baselines, r.baseline_rewards, r.means, r.variates[:10], 0, 0.1)
    with pytest.raises(ConfigError, match="arms"):
        learner.play_block(r.arms[:7], r.baselines, r.baseline_rewards, r.means[:7], r.variates, 0, 0.1)
