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
@pytest.mark.parametrize("first_arm", [0, 2])
def test_simulate_equals_ask_tell_bit_for_bit(noise, first_arm):
    inst = _instance(noise)
    cfg = {"first_arm": first_arm}
    a = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0), cfg)
    b = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0), cfg)
    env_a, env_b = inst.environment(np.random.default_rng(3)), inst.environment(np.random.default_rng(3))
    n = 1500
    slow = play_ask_tell(a, env_a, n, safe_action=inst.safe_action, safe_arm=inst.safe_arm)
    blocks = [b.simulate(env_b, 400), b.simulate(env_b, 0), b.simulate(env_b, n - 400)]
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
    assert outs[0].curves == outs[1].curves


def test_round_robin_counts_means_and_cancel():
    inst = _instance("gaussian")
    learner = make_learner(
        "uniform-exploration", inst.public_info(), np.random.default_rng(0), {"first_arm": 1}
    )
    n_arms = inst.arms.shape[0]
    env = inst.environment(np.random.default_rng(1))
    d = learner.ask()
    assert d.arm == 1
    learner.cancel()
    d = learner.ask()
    assert d.arm == 1
    learner.tell(d, env.play(d))
    learner.simulate(env, 10 * n_arms - 1)
    assert learner.state.counts.tolist() == [10] * n_arms
    diag = learner.diagnostics()
    truth = inst.arms @ inst.reward_param
    assert np.max(np.abs(np.asarray(diag["mean_reward"]) - truth)) < 2.0  # (unit noise, 10 pulls)


def test_bad_calls_raise():
    inst = _instance("gaussian")
    learner = make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="first_arm"):
        make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0), {"first_arm": -1})
    with pytest.raises(ConfigError, match="no context"):
        learner.ask(context=inst.arms)
    learner.ask()
    with pytest.raises(ProtocolError, match="pending ask"):
        learner.simulate(inst.environment(np.random.default_rng(1)), 5)
