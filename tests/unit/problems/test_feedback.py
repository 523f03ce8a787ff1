"""The environment's side of a simulation (problems/feedback.py): the compiled feedback record an
environment builds, and its samplers, give what ``env.play`` gives, bit for bit."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms import list_algorithms
from safebandits.exceptions import ConfigError
from safebandits.problems import make_instance
from safebandits.problems.environment import ArmEnvironment
from safebandits.problems.feedback import Sampler, new_sampler
from safebandits.problems.noise import BernoulliNoise, BinaryNoise, ClippedGaussianNoise, GaussianNoise
from safebandits.problems.stagewise import LinearFeedbackEnvironment
from safebandits.types import Decision

NOISES = {
    "gaussian": GaussianNoise(0.3),
    "binary": BinaryNoise(),
    "bernoulli": BernoulliNoise(),
    "clipped": ClippedGaussianNoise(0.2),
}


@numba.njit(cache=False)
def _compiled_draws(env, variates, arms):
    s = new_sampler(env, variates)
    out = np.empty(arms.shape[0])
    for i in range(arms.shape[0]):
        out[i] = s.sample(arms[i], i)
    return out


@settings(max_examples=25, deadline=None)
@given(
    noise=st.sampled_from(sorted(NOISES)),
    k=st.integers(1, 5),
    n=st.integers(1, 30),
    seed=st.integers(0, 2**32 - 1),
)
def test_arm_environment_samplers_replay_play(noise, k, n, seed):
    rng = np.random.default_rng(seed)
    means = rng.uniform(0.05, 0.95, k)
    env = ArmEnvironment(means[:, None], None, NOISES[noise], np.random.default_rng(seed + 1))
    twin = ArmEnvironment(means[:, None], None, NOISES[noise], np.random.default_rng(seed + 1))
    arms = rng.integers(0, k, n)
    variates = twin.take_variates(n)
    feedback = twin.compiled_feedback("arms")
    played = [float(env.play(Decision(arm=int(a))).constraints[0]) for a in arms]
    sampler = Sampler(feedback, "arms", twin.noise, variates)
    assert [float(sampler.sample(int(a), i)[0]) for i, a in enumerate(arms)] == played
    assert _compiled_draws(feedback, variates, arms).tolist() == played


@settings(max_examples=25, deadline=None)
@given(
    noise=st.sampled_from(["gaussian", "binary", "bernoulli"]),
    n=st.integers(1, 20),
    seed=st.integers(0, 2**32 - 1),
)
def test_linear_environment_feedback_replays_play_for_arms_and_points(noise, n, seed):
    rng = np.random.default_rng(seed)
    d, m = 3, 2
    arms = rng.uniform(0.0, 0.3, (4, d))
    theta, mu = rng.uniform(0.0, 1.0, d), rng.uniform(0.0, 1.0, (m, d))
    make = lambda: LinearFeedbackEnvironment(arms, theta, mu, NOISES[noise], np.random.default_rng(seed))  # noqa: E731
    env, twin = make(), make()
    picks = rng.integers(0, 4, n)
    variates = twin.take_variates(n)
    by_arm = Sampler(twin.compiled_feedback("arms"), "arms", twin.noise, variates)
    by_point = Sampler(twin.compiled_feedback("points"), "points", twin.noise, variates)
    for i, a in enumerate(picks):
        obs = env.play(Decision(arm=int(a)))
        want = [obs.reward, *obs.constraints.tolist()]
        assert by_arm.sample(int(a), i).tolist() == want
        assert by_point.sample(arms[a], i).tolist() == want


def test_feedback_records_are_copies_of_one_type():
    inst = make_instance("stagewise/four-arm", tau=0.5)
    env = inst.environment(np.random.default_rng(0))
    a, b = env.compiled_feedback("points"), env.compiled_feedback("arms")
    assert a.table.flags.writeable and b.table.flags.writeable  # (row_means' cached table is read-only)
    np.testing.assert_array_equal(a.table, env.params)
    assert numba.typeof(a) == numba.typeof(b)
    with pytest.raises(ConfigError, match="plays arms or points"):
        env.compiled_feedback("vertices")
    cbai = make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.3, sigma=0.1)
    with pytest.raises(ConfigError, match="plays arms"):
        cbai.environment(np.random.default_rng(0)).compiled_feedback("points")


def test_simulate_says_what_does_not_fit_the_environment():
    """The one simulate loop refuses an environment of another problem with a ConfigError naming it."""
    entry = list_algorithms()["lc-lucb"]
    inst = make_instance("stagewise/cyclic", d=3, tau=0.5)
    learner = entry.cls(entry.config(), inst.public_info(), np.random.default_rng(0))
    other = make_instance("stagewise/cyclic", d=4, tau=0.5).environment(np.random.default_rng(0))
    with pytest.raises(
        ConfigError, match=r"means table .* has shape \(4, 2\); this learner's problem has \(3, 2\)"
    ):
        learner.simulate(other, 5)
    cbai = make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.3, sigma=0.1)
    with pytest.raises(ConfigError, match="ArmEnvironment plays arms, not 'points'"):
        learner.simulate(cbai.environment(np.random.default_rng(0)), 5)
    assert learner.n_samples == 0
