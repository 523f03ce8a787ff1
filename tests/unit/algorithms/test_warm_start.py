"""Algorithm 5 (unknown safe reward and costs): stopping rule, guarantees, cap, alpha choice."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from safebandits.algorithms.regret.warm_start import (
    SafeValueWarmStart,
    WarmStartEstimates,
    alpha_from_estimates,
)
from safebandits.exceptions import ConfigError, ProtocolError


def make_info(tau, d=3):
    x0 = np.zeros(d)
    x0[0] = 1.0
    return SimpleNamespace(safe_action=x0, threshold=np.atleast_1d(np.asarray(tau, dtype=float)))


def run_gaussian(ws, r0, c0, rng, sigma=1.0):
    """Feed N(r0, sigma^2) rewards and N(c0, sigma^2) costs until the warm start stops."""
    c0 = np.atleast_1d(c0)
    block = 4096
    while not ws.done:
        rewards = r0 + sigma * rng.standard_normal(block)
        costs = c0[None, :] + sigma * rng.standard_normal((block, c0.size))
        for i in range(block):
            ws.tell(rewards[i], costs[i])
            if ws.done:
                break
    return ws.estimates


CASES = [  # (r0, c0, tau)
    (0.1, 0.0, 0.5),
    (0.5, 0.2, 0.8),
    (0.2, 0.3, 0.6),
]


@pytest.mark.parametrize("r0, c0, tau", CASES)
def test_stopping_time_and_gap_estimates_hold_in_every_seed(r0, c0, tau):
    T, delta = 10_000, 1e-3
    for seed in range(40):
        rng = np.random.default_rng(seed)
        ws = SafeValueWarmStart(make_info(tau), delta, T)
        est = run_gaussian(ws, r0, c0, rng)
        assert est.certified and est.T0 == ws.rounds == max(est.T0_r, est.T0_c)
        log_term = math.log(2 * T / delta)
        bound = 32 * log_term * max(1 / (tau - c0) ** 2, 1 / (1 - r0) ** 2)
        assert est.T0 <= bound
        assert math.isclose(ws.stopping_bound(r0, [c0]), bound)
        # the certified stopping times are at least 8 log / gap^2 (eq. 54)
        assert est.T0_c >= 8 * log_term / (tau - c0) ** 2 * (1 - 1e-12)
        gap_c, gap_r = tau - c0, 1 - r0
        assert gap_c / 2 <= est.delta_c_min <= 1.5 * gap_c
        assert gap_r / 2 <= est.delta_r_hat <= 1.5 * gap_r
        assert est.delta_c_hat[0] == pytest.approx(tau - est.c0_hat[0])
        assert est.delta_r_hat == pytest.approx(1 - est.r0_hat)


def test_noise_bound_scales_widths_and_bound():
    ws1 = SafeValueWarmStart(make_info(0.5), 0.05, 1000)
    ws2 = SafeValueWarmStart(make_info(0.5), 0.05, 1000, noise_bound=0.5)
    assert ws2.width(10) == pytest.approx(0.5 * ws1.width(10))
    assert ws1.width(10) == pytest.approx(3 * math.sqrt(2 * math.log(2 * 1000 / 0.05) / 10))
    assert ws1.radius(10) == pytest.approx(ws1.width(10) / 3)
    assert ws2.stopping_bound(0.1, [0.0]) == pytest.approx(0.25 * ws1.stopping_bound(0.1, [0.0]))
    # Bernoulli-like data with R = 1/2 stops within the scaled bound
    rng = np.random.default_rng(3)
    ws = SafeValueWarmStart(make_info(0.5), 0.01, 5000, noise_bound=0.5)
    while not ws.done:
        ws.tell(float(rng.random() < 0.1), np.array([float(rng.random() < 0.05)]))
    est = ws.estimates
    assert est.T0 <= ws.stopping_bound(0.1, [0.05])
    assert 0.45 / 2 <= est.delta_c_min <= 1.5 * 0.45


def test_multiple_constraints_stop_on_the_minimal_gap():
    T, delta = 5000, 1e-3
    c0 = np.array([0.1, 0.0])
    tau = np.array([0.5, 0.9])  # gaps 0.4 and 0.9: the first constraint decides
    log_term = math.log(3 * T / delta)  # union over the reward and two costs
    for seed in range(25):
        ws = SafeValueWarmStart(make_info(tau), delta, T)
        est = run_gaussian(ws, 0.0, c0, np.random.default_rng(100 + seed))
        assert est.certified and est.c0_hat.shape == (2,) and est.delta_c_hat.shape == (2,)
        assert est.delta_c_min == est.delta_c_hat.min()
        assert np.all(est.delta_c_hat >= (tau - c0) / 2) and np.all(est.delta_c_hat <= 1.5 * (tau - c0))
        assert est.T0 <= 32 * log_term * max(1 / 0.4**2, 1.0)
        # at the stop every constraint is certified: c0_hat_i + w <= tau_i
        assert np.all(est.c0_hat + ws.width(est.T0_c) <= tau + 1e-12)


def test_sums_keep_all_the_data_for_warm_starting():
    ws = SafeValueWarmStart(make_info([0.5, 0.7]), 0.05, 100, max_rounds=7)
    rng = np.random.default_rng(0)
    rs, cs = rng.random(7), rng.random((7, 2))
    for r, c in zip(rs, cs):
        ws.tell(r, c)
    assert ws.done and ws.n == ws.rounds == 7
    assert ws.reward_sum == pytest.approx(rs.sum())
    np.testing.assert_allclose(ws.cost_sums, cs.sum(axis=0))


def test_hard_cap_ends_an_uncertifiable_warm_start():
    ws = SafeValueWarmStart(make_info(0.3), 0.05, 10**6, max_rounds=50)
    for _ in range(50):
        assert not ws.done
        np.testing.assert_array_equal(ws.ask_point(), [1.0, 0.0, 0.0])
        ws.tell(0.0, np.array([0.3]))  # c0 = tau: never certifiable
    assert ws.done and not ws.certified
    est = ws.estimates
    assert isinstance(est, WarmStartEstimates)
    assert est.T0 == 50 and est.T0_c is None and est.T0_r is None and not est.certified
    assert est.c0_hat[0] == pytest.approx(0.3) and est.delta_c_min == pytest.approx(0.0)
    assert est.as_dict()["certified"] is False
    # default cap = the horizon
    ws = SafeValueWarmStart(make_info(0.3), 0.05, 5)
    for _ in range(5):
        ws.tell(0.0, np.array([0.3]))
    assert ws.done and ws.max_rounds == 5


def test_protocol_errors_and_read_only_point():
    ws = SafeValueWarmStart(make_info(0.5), 0.05, 10, max_rounds=1)
    with pytest.raises(ProtocolError):
        ws.estimates  # noqa: B018
    with pytest.raises(ValueError):
        ws.ask_point()[0] = 2.0
    with pytest.raises(ConfigError, match="costs"):
        ws.tell(0.0, np.zeros(2))
    ws.tell(0.0, np.zeros(1))
    with pytest.raises(ProtocolError):
        ws.tell(0.0, np.zeros(1))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.5}, "delta"),
        ({"horizon": 0}, "horizon"),
        ({"horizon": 2.5}, "horizon"),
        ({"noise_bound": 0.0}, "noise_bound"),
        ({"max_rounds": 0}, "max_rounds"),
    ],
)
def test_bad_configs_raise(kwargs, match):
    args = {"delta": 0.05, "horizon": 100, **kwargs}
    with pytest.raises(ConfigError, match=match):
        SafeValueWarmStart(make_info(0.5), **args)


def test_bad_info_raises():
    with pytest.raises(ConfigError, match="threshold"):
        SafeValueWarmStart(SimpleNamespace(safe_action=np.zeros(2), threshold=np.array([np.nan])), 0.1, 10)


def test_alpha_from_estimates():
    assert alpha_from_estimates(0.9, 0.2) == pytest.approx((1 + 6 * 0.9 / 0.2, 1.0))
    assert alpha_from_estimates(0.9, np.array([0.4, 0.2])) == pytest.approx((1 + 27.0, 1.0))
    assert alpha_from_estimates(0.9, 0.3, mode="ratio") == pytest.approx((3.0, 1.0))
    ar, ac = alpha_from_estimates(0.2, 0.8, mode="ratio")
    assert ar == 1.0 and ac == pytest.approx(4.0) and ar / ac == pytest.approx(0.25)
    # "valid" dominates the known-value rule 1 + 2 Dr / Dc whenever Dhat in [D/2, 3D/2]
    rng = np.random.default_rng(0)
    for _ in range(1000):
        dr, dc = rng.uniform(0.01, 1, 2)
        dr_hat, dc_hat = dr * rng.uniform(0.5, 1.5), dc * rng.uniform(0.5, 1.5)
        alpha_r, alpha_c = alpha_from_estimates(dr_hat, dc_hat)
        assert alpha_c == 1 and (1 + alpha_c) * dr <= dc * (alpha_r - 1) + 1e-12  # Lemma 32
    for bad in ({"delta_r_hat": 0.0, "delta_c_hat": 0.1}, {"delta_r_hat": 0.1, "delta_c_hat": -0.1}):
        with pytest.raises(ConfigError):
            alpha_from_estimates(**bad)
    with pytest.raises(ConfigError, match="mode"):
        alpha_from_estimates(0.1, 0.1, mode="paper")
