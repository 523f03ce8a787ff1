"""Catoni and RIPS deviation bounds by simulation; RIPS on a multi-armed design; OLS widths."""

import numpy as np
import pytest

from safebandits.estimators.robust import catoni_mean, catoni_width, gaussian_bridge, ols, rips
from safebandits.exceptions import ConfigError


@pytest.mark.parametrize("dist", ["normal", "student"])
def test_catoni_deviation_bound_holds(dist):
    rng = np.random.default_rng(0)
    n, reps, delta = 60, 3000, 0.05
    if dist == "normal":
        x, var = rng.standard_normal((reps, n)) + 2.0, 1.0
    else:  # Student t with 3 degrees of freedom: variance 3, heavy tails
        x, var = rng.standard_t(3, size=(reps, n)) + 2.0, 3.0
    est = catoni_mean(x, variance=var, delta=delta)
    miss = np.mean(np.abs(est - 2.0) > catoni_width(n, var, delta))
    se = np.sqrt(2 * delta * (1 - 2 * delta) / reps)
    assert miss <= 2 * delta + 3 * se
    # and it is not vacuous: the empirical 95% deviation is within the bound
    assert np.quantile(np.abs(est - 2.0), 0.9) < catoni_width(n, var, delta)


def test_catoni_constant_and_validation():
    assert catoni_mean(np.full(5, 3.0), variance=1.0, delta=0.1) == 3.0
    with pytest.raises(ConfigError, match="delta"):
        catoni_mean(np.ones(3), variance=1.0, delta=1.5)
    assert np.isinf(catoni_width(2, 1.0, 0.01))


def test_rips_multi_armed_reduces_to_per_arm_means():
    rng = np.random.default_rng(1)
    k = 5
    arms, lam = np.eye(k), np.full(k, 1.0 / k)
    counts = np.full(k, 40)
    sums = (counts * np.linspace(-0.5, 0.5, k) + np.sqrt(counts) * rng.standard_normal(k))[:, None]
    # Catoni's influence is linear near 0: with a huge variance proxy RIPS is the IPS mean = per-arm means
    est = rips(arms, lam, counts, sums, arms, noise_sd=1.0, mean_bound=1e8, delta=0.1, rng=rng)
    np.testing.assert_allclose(est.values[:, 0], sums[:, 0] / counts, rtol=1e-9, atol=1e-9)
    # with the true proxy it stays within its width of them
    est = rips(arms, lam, counts, sums, arms, noise_sd=1.0, mean_bound=1.0, delta=0.1, rng=rng)
    assert np.all(np.abs(est.values[:, 0] - sums[:, 0] / counts) <= est.widths)


def test_rips_deviation_bound_linear_design():
    rng = np.random.default_rng(2)
    arms = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    lam = np.array([0.5, 0.3, 0.2])
    theta = np.array([0.4, -0.3])
    targets = np.array([[1.0, 1.0], [0.5, -0.5]])
    n, reps, delta, misses = 200, 300, 0.1, 0
    for _ in range(reps):
        counts = rng.multinomial(n, lam)
        sums = (counts * (arms @ theta) + np.sqrt(counts) * rng.standard_normal(3))[:, None]
        est = rips(arms, lam, counts, sums, targets, noise_sd=1.0, mean_bound=1.0, delta=delta, rng=rng)
        misses += np.any(np.abs(est.values[:, 0] - targets @ theta) > est.widths)
    assert misses / reps <= delta + 3 * np.sqrt(delta * (1 - delta) / reps)


def test_gaussian_bridge_preserves_sums_and_variance():
    rng = np.random.default_rng(3)
    counts = np.array([3, 0, 5000])
    sums = np.array([[1.5], [0.0], [2500.0]])
    y, off = gaussian_bridge(counts, sums, 2.0, rng)
    assert y.shape == (5003, 1) and list(off) == [0, 3, 3, 5003]
    np.testing.assert_allclose([y[0:3].sum(), y[3:].sum()], [1.5, 2500.0])
    assert y[3:].std() == pytest.approx(2.0, rel=0.05)


def test_ols_matches_lstsq_and_flags_unidentified_targets():
    rng = np.random.default_rng(4)
    arms = rng.standard_normal((6, 3))
    counts = np.array([2, 3, 0, 1, 4, 0])
    sums = rng.standard_normal((6, 2))
    est = ols(arms, counts, sums, arms[:2], noise_sd=1.0, delta=0.1)
    a = arms.T @ (counts[:, None] * arms)
    np.testing.assert_allclose(est.values, arms[:2] @ np.linalg.solve(a, arms.T @ sums))
    outside = np.array([[1.0, 0.0, 1.0]])  # needs the third arm, which was never pulled
    est = ols(np.eye(3), np.array([5, 5, 0]), np.zeros((3, 1)), outside, noise_sd=1.0, delta=0.1)
    assert np.isinf(est.widths[0])
