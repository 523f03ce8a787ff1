"""Every "cannot start" error says why and what to change (issue 16, item 7)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import safebandits as sb
from safebandits.algorithms import make_learner
from safebandits.exceptions import ConfigError
from safebandits.problems.noise import make_noise
from safebandits.problems.safe_linear import DecisionSet, SafeLinearInstance


def _sphere(d=3, n=20, with_origin=False, c=0.2):
    rng = np.random.default_rng(0)
    arms = rng.normal(size=(n, d))
    arms /= np.linalg.norm(arms, axis=1)[:, None]
    if with_origin:
        arms = np.vstack([np.zeros(d), arms])
    return SafeLinearInstance(
        decision_set=DecisionSet("arms", arms=arms), mu=np.array([0.3, 0.2, 0.1]), b_mat=np.eye(d),
        threshold=c, noise=make_noise("gaussian", 0.1), horizon=1000,
    )  # fmt: skip


def _build(name, info, **config):
    return make_learner(name, info, np.random.default_rng(0), config)


@pytest.mark.parametrize("name", ["safe-lucb", "gslucb"])
def test_safe_lucb_lambda_minus_zero_says_what_to_change(name):
    # unit-sphere arms and the origin: only x = 0 is in D^w = {||x|| <= c/S}, which spans nothing
    info = _sphere(with_origin=True).public_info()
    match = r"cannot start: lambda_- = 0.*dimension 0 < d = 3.*Change one of: add the 3 action\(s\) \[\["
    with pytest.raises(ConfigError, match=match) as err:
        _build(name, info)
    assert "param_norm_bound" in str(err.value)
    assert ("t_prime=<int>" in str(err.value)) == (name == "safe-lucb")
    if name == "safe-lucb":  # the escape hatch the message names works
        _build(name, info, t_prime="none")


@pytest.mark.parametrize("name", ["safe-lucb", "gslucb"])
def test_safe_lucb_empty_conservative_set_says_what_to_change(name):
    with pytest.raises(
        ConfigError, match=r"no arm lies in the conservative set.*smallest \|\|B x\|\|.*is 1.*Change"
    ):
        _build(name, _sphere().public_info())
    _build(name, _sphere(c=0.5).public_info())  # c / S > 1: every unit arm is in D^w


def test_safe_lucb_t_delta_without_gap():
    info = dataclasses.replace(_sphere(c=0.5).public_info(), safety_gap=None)
    with pytest.raises(ConfigError, match=r"Change one of: t_prime='t0'.*GSLUCB.*the problem's safety_gap"):
        _build("safe-lucb", info, t_prime="t_delta")
    _build("safe-lucb", info, t_prime="t0")


def test_safe_action_above_threshold():
    # Assumption 5 (c0 < tau) is checked once, by the information every stage-wise learner is given
    match = r"safe action's cost must be below every threshold, c0 < tau.*Change the safe action"
    four = sb.make_instance("stagewise/four-arm", tau=0.5, T=50).public_info()
    with pytest.raises(ConfigError, match=match):
        dataclasses.replace(four, safe_cost=np.array([0.6]))
    cyclic = sb.make_instance("stagewise/cyclic", d=3, tau=0.5, T=50).public_info()
    with pytest.raises(ConfigError, match=match):
        dataclasses.replace(cyclic, safe_cost=np.array([0.7]), safe_reward=0.0)
    fc = sb.make_instance("stagewise/finite-class", np.random.default_rng(0)).public_info()
    with pytest.raises(ConfigError, match=match):
        dataclasses.replace(fc, safe_cost=fc.threshold + 0.1)
    for name in ("opb", "lc-lucb", "safe-lts", "oplb", "opnlb"):  # the valid views still build
        _build(name, fc if name == "opnlb" else four if name == "opb" else cyclic)


def test_declared_safe_arm_above_threshold_is_one_clear_error():
    # a learner built from a declared problem: the declaration refuses it, in one line
    with pytest.raises(ConfigError, match=r"LinearProblem: the safe action.s cost must be below") as err:
        sb.LinearProblem(arms=np.eye(3), threshold=0.5, safe_arm=0, safe_cost=0.5, safe_reward=0.0)
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match=r"declared safe arm 0 is not safe under this truth.*c0 < tau"):
        sb.LinearProblem(arms=np.eye(3), threshold=0.5, safe_arm=0).simulate(
            reward_param=np.ones(3) * 0.1, cost_params=[[0.7, 0.1, 0.1]]
        )


@pytest.mark.parametrize("name", ["stageopt", "sgp-ucb", "safeopt"])
def test_safe_seed_learners_without_seed(name):
    info = sb.make_instance("ckb/synthetic", np.random.default_rng(0), n_points=20, n_seed=3).public_info()
    with pytest.raises(ConfigError, match=r"cannot start.*safe_seed is empty.*CKB \(ckb-ucb"):
        _build(name, dataclasses.replace(info, safe_seed=()))
