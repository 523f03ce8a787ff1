"""``safebandits bounds`` for CKB reports the information gain and the widths at the horizon (issue 31)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.algorithms.registry import make_learner
from safebandits.estimators.gp import beta_width, greedy_information_gain
from safebandits.papers.ckb.bounds import ckb_bounds as regret_bounds
from safebandits.problems.registry import make_instance

T = 150


def _instance(seed: int = 0):
    return make_instance("ckb/synthetic", np.random.default_rng(seed), T=T, n_points=30)


def test_gamma_and_beta_are_those_of_the_horizon_not_of_the_first_round():
    inst = _instance()
    out = regret_bounds("ckb/synthetic", inst)["ckb-ucb"]
    info = inst.public_info()
    assert out["info_gain"] == "heuristic"
    assert out["gamma_T"] == pytest.approx(math.log1p(T))
    assert out["beta_T"] == pytest.approx(
        beta_width(info.reward_bound, info.noise_bound, math.log1p(T - 1), 0.05)
    )
    assert out["beta_g_T"] == pytest.approx(
        beta_width(info.constraint_bound, info.constraint_noise_bound, math.log1p(T - 1), 0.05)
    )
    assert out["beta_T"] > out["beta_1"] and out["beta_g_T"] > out["beta_g_1"]
    assert "beta" not in out and "beta_g" not in out  # the first-round widths are named as such
    greedy = greedy_information_gain(inst.kernel, 1.0, T)[T]
    assert out["gamma_T_greedy"] == pytest.approx(greedy) and greedy > out["gamma_T"]


def test_beta_T_is_what_the_learner_uses_in_round_T():
    inst = _instance(1)
    out = regret_bounds("ckb/synthetic", inst)["ckb-ucb"]
    learner = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0), {"delta": 0.05})
    # the widths of round T as the learner computes them (heuristic gamma: data independent)
    assert learner.betas(T) == pytest.approx((out["beta_T"], out["beta_g_T"]))


def test_greedy_mode_reports_the_greedy_gain_it_uses():
    from safebandits.papers.ckb import bounds as mod

    inst = _instance(2)
    learner = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0), {"info_gain": "greedy"})
    out = mod.kernel_horizon(learner, dict(learner.diagnostics()))[0]
    assert out["gamma_T"] == pytest.approx(out["gamma_T_greedy"])
    assert learner.betas(T) == pytest.approx((out["beta_T"], out["beta_g_T"]))
    realised = make_learner(
        "ckb-ucb", inst.public_info(), np.random.default_rng(0), {"info_gain": "realised"}
    )
    rec = {
        **mod.kernel_horizon(realised, dict(realised.diagnostics()))[0],
        **mod.kernel_horizon(realised, dict(realised.diagnostics()))[1],
    }
    assert rec["gamma_T"] == pytest.approx(out["gamma_T"]) and "greedy" in rec["gamma_source"]
