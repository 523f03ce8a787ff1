"""Uniform exploration, the worked example of the learner guide: its compiled path (the shared driver)
equals its ask / tell path bit for bit, and the kernels it shares with the class do what they say."""

from __future__ import annotations

import numpy as np
import pytest

import safebandits as sb
from safebandits.algorithms.base import play_ask_tell
from safebandits.algorithms.registry import make_learner
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.experiments.regret_loop import run_regret


def _instance(noise):
    if noise == "gaussian":
        return sb.make_instance("stagewise/cyclic", d=3, tau=0.5)
    return sb.make_instance("stagewise/four-arm", tau=0.5)  # (Bernoulli noise)


@pytest.mark.parametrize("noise", ["gaussian", "bernoulli"])
@pytest.mark.parametrize("exclude_safe", [False, True])
def test_simulate_equals_ask_tell_bit_for_bit(noise, exclude_safe):
    inst = _instance(noise)
    cfg = {"exclude_safe": exclude_safe}
    a = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0), cfg)
    b = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0), cfg)
    env_a, env_b = inst.environment(np.random.default_rng(3)), inst.environment(np.random.default_rng(3))
    n = 2500  # (more than one block of learner uniforms)
    slow = play_ask_tell(a, env_a, n, safe_action=inst.safe_action, safe_arm=inst.safe_arm)
    blocks = [b.simulate(env_b, 400), b.simulate(env_b, 0), b.simulate(env_b, n - 400)]
    if exclude_safe and inst.safe_arm is not None:
        assert inst.safe_arm not in a.state.candidates
    np.testing.assert_array_equal(slow.points, np.vstack([blk.points for blk in blocks]))
    for field in a.state._fields:
        np.testing.assert_array_equal(getattr(a.state, field), getattr(b.state, field), err_msg=field)
    assert a.n_samples == b.n_samples == n and env_a.n_samples == env_b.n_samples == n
    # both continue identically
    assert a.ask() == b.ask()


def test_run_regret_compiled_equals_ask_tell():
    inst = _instance("gaussian")
    outs = []
    for compiled in (True, False):
        learner = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0))
        out = run_regret(
            learner, inst.environment(np.random.default_rng(5)), inst, horizon=3000, compiled=compiled
        )
        outs.append(out)
    assert outs[0].regret == outs[1].regret and outs[0].cost == outs[1].cost
    assert {k: v.tolist() for k, v in outs[0].curves.items()} == {
        k: v.tolist() for k, v in outs[1].curves.items()
    }


def test_uniform_draws_counts_means_and_cancel():
    inst = _instance("gaussian")
    learner = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0))
    n_arms = inst.arms.shape[0]
    env = inst.environment(np.random.default_rng(1))
    d = learner.ask()
    learner.cancel()
    d2 = learner.ask()
    assert d2.arm == d.arm  # the uniform was given back
    learner.tell(d2, env.play(d2))
    learner.simulate(env, 3000 * n_arms - 1)
    counts = learner.state.counts
    assert counts.sum() == 3000 * n_arms and counts.min() > 2500 and counts.max() < 3500
    diag = learner.diagnostics()
    truth = inst.arms @ inst.reward_param
    assert np.max(np.abs(np.asarray(diag["mean_reward"]) - truth)) < 0.1  # (unit noise, ~3000 pulls each)


def test_bad_calls_raise():
    inst = _instance("gaussian")
    learner = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="exclude_safe"):
        make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0), {"exclude_safe": 1})
    with pytest.raises(ConfigError, match="no context"):
        learner.ask(context=inst.arms)
    learner.ask()
    with pytest.raises(ProtocolError, match="pending ask"):
        learner.simulate(inst.environment(np.random.default_rng(1)), 5)
