"""GP posteriors on a finite domain: rank-one updates vs batch solves, draws, kernels, information gain."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.estimators.gp import (
    FiniteGP,
    InformationGain,
    batch_posterior,
    beta_width,
    check_kernel_matrix,
    cholesky_jittered,
    greedy_information_gain,
    joint_sample,
    kernel_distance,
    matern_kernel,
    se_kernel,
)
from safebandits.exceptions import ConfigError


def _kernels():
    x = np.linspace(0.0, 1.0, 25)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((25, 6))
    return {
        "se": se_kernel(x, lengthscale=0.2),
        "matern12": matern_kernel(x, lengthscale=0.3, nu=0.5),
        "matern52": matern_kernel(x, lengthscale=0.3, nu=2.5),
        "low-rank": a @ a.T / 6.0,
    }


def _direct_posterior(k, lam, idx, y):
    """Eqs. (3)-(4) literally: k_t(x)^T (K_t + lambda I)^{-1} Y_t and k - k_t^T (K_t + lambda I)^{-1} k_t."""
    kt = k[:, idx]
    inv = np.linalg.inv(k[np.ix_(idx, idx)] + lam * np.eye(len(idx)))
    return kt @ inv @ y, k - kt @ inv @ kt.T


@pytest.mark.parametrize("name", ["se", "matern12", "matern52", "low-rank"])
@pytest.mark.parametrize("lam", [0.05, 1.0])
def test_rank_one_equals_direct_solve(name, lam):
    k = _kernels()[name]
    rng = np.random.default_rng(0)
    gp = FiniteGP(k, lam)
    idx = rng.integers(0, k.shape[0], size=40)  # with repeats
    y = rng.standard_normal(40)
    for i, v in zip(idx, y):
        gp.update(int(i), float(v))
    mean, cov = _direct_posterior(k, lam, idx, y)
    np.testing.assert_allclose(gp.mean, mean, atol=1e-9)
    np.testing.assert_allclose(gp.cov, cov, atol=1e-9)
    assert gp.n_obs == 40 and gp.counts.sum() == 40


def test_rank_one_equals_batch_after_many_updates():
    k = _kernels()["se"]
    rng = np.random.default_rng(1)
    gp = FiniteGP(k, 1.0)
    for _ in range(5000):
        gp.update(int(rng.integers(0, 25)), float(rng.standard_normal()))
    mean, cov = batch_posterior(k, 1.0, gp.counts, gp.sums)
    np.testing.assert_allclose(gp.mean, mean, atol=1e-10)
    np.testing.assert_allclose(gp.cov, cov, atol=1e-10)
    assert np.all(gp.variance() >= 0.0)


def test_refresh_keeps_the_posterior():
    k = _kernels()["matern52"]
    rng = np.random.default_rng(2)
    a, b = FiniteGP(k, 0.5), FiniteGP(k, 0.5, refresh_every=7)
    for _ in range(50):
        i, v = int(rng.integers(0, 25)), float(rng.standard_normal())
        a.update(i, v)
        b.update(i, v)
    np.testing.assert_allclose(a.mean, b.mean, atol=1e-10)
    np.testing.assert_allclose(a.cov, b.cov, atol=1e-10)


def test_realised_information_gain_is_half_log_det():
    k = _kernels()["se"]
    lam = 0.5
    gp = FiniteGP(k, lam)
    idx = [3, 3, 10, 24, 0, 10]
    for i in idx:
        gp.update(i, 0.3)
    want = 0.5 * np.linalg.slogdet(np.eye(len(idx)) + k[np.ix_(idx, idx)] / lam)[1]
    assert gp.info_gain == pytest.approx(want, rel=1e-10)


def test_greedy_information_gain_is_increasing_and_concave():
    k = _kernels()["se"]
    g = greedy_information_gain(k, 1.0, 60)
    inc = np.diff(g)
    assert g[0] == 0.0 and np.all(inc > 0) and np.all(np.diff(inc) <= 1e-12)
    gain = InformationGain("greedy", k, 1.0, 10)
    assert gain(30) == pytest.approx(g[30])  # extended past the horizon
    assert InformationGain("heuristic", k, 1.0, 10)(9) == pytest.approx(math.log(10))


def test_posterior_draws_mean_and_covariance():
    k = _kernels()["matern52"][:6, :6]
    gp = FiniteGP(k, 0.3)
    for i, v in [(0, 1.0), (3, -0.5), (3, -0.2)]:
        gp.update(i, v)
    rng = np.random.default_rng(7)
    n_draws, scale = 40_000, 1.7
    draws = joint_sample(gp.mean, gp.cov, rng, scale=scale, size=n_draws)
    target = scale**2 * gp.cov
    se = np.sqrt(np.diag(target) / n_draws)
    assert np.all(np.abs(draws.mean(axis=0) - gp.mean) <= 4.5 * se)
    emp = np.cov(draws, rowvar=False)
    # sd of a sample covariance entry: sqrt((s_ii s_jj + s_ij^2) / n)
    sd = np.sqrt((np.outer(np.diag(target), np.diag(target)) + target**2) / n_draws)
    assert np.all(np.abs(emp - target) <= 4.5 * sd)
    one = gp.sample(np.random.default_rng(7), scale)
    assert one.shape == (6,)


def test_draws_are_reproducible_and_use_only_the_generator():
    k = _kernels()["se"]
    a = joint_sample(np.zeros(25), k, np.random.default_rng(5), size=3)
    b = joint_sample(np.zeros(25), k, np.random.default_rng(5), size=3)
    np.testing.assert_array_equal(a, b)


def test_jittered_cholesky_of_singular_matrices():
    k = _kernels()["se"]  # numerically singular (eigenvalues ~ 1e-16)
    low, eps = cholesky_jittered(k, 1e-10)
    assert np.all(np.triu(low, 1) == 0.0)
    np.testing.assert_allclose(low @ low.T, k + eps * np.eye(25), atol=1e-12)
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])  # indefinite: eigenvalue fallback clips
    low, eps = cholesky_jittered(bad, 1e-10, max_tries=2)
    assert math.isnan(eps)
    w, v = np.linalg.eigh(bad)
    np.testing.assert_allclose(low @ low.T, (v * np.maximum(w, 0)) @ v.T, atol=1e-12)


def test_kernels():
    x = np.array([0.0, 0.1, 0.5])
    k = se_kernel(x, lengthscale=0.2)
    assert k[0, 1] == pytest.approx(math.exp(-0.01 / 0.08))
    assert matern_kernel(x, lengthscale=0.2, nu=0.5)[0, 2] == pytest.approx(math.exp(-2.5))
    s = math.sqrt(3) * 0.5
    assert matern_kernel(x, lengthscale=1.0, nu=1.5)[0, 2] == pytest.approx((1 + s) * math.exp(-s))
    for kk in (k, matern_kernel(x, nu=1.5), matern_kernel(x, nu=2.5)):
        np.testing.assert_allclose(np.diag(kk), 1.0)
        check_kernel_matrix(kk)
    with pytest.raises(ConfigError, match="nu"):
        matern_kernel(x, nu=1.0)
    with pytest.raises(ConfigError, match="symmetric"):
        check_kernel_matrix(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ConfigError, match="semi-definite"):
        check_kernel_matrix(np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_kernel_distance_bounds_rkhs_differences():
    k = _kernels()["se"]
    rng = np.random.default_rng(4)
    d = kernel_distance(k)
    for _ in range(5):
        a = rng.uniform(-1, 1, 25)
        h, norm = k @ a, math.sqrt(a @ k @ a)
        assert np.all(np.abs(h[:, None] - h[None, :]) <= norm * d + 1e-9)


def test_beta_width():
    assert beta_width(1.0, 0.1, 2.0, 0.05) == pytest.approx(1 + 0.1 * math.sqrt(2 * (3 + math.log(40))))
    assert beta_width(1.0, 0.1, 2.0, 0.05, scale=0.5) == pytest.approx(0.5 * beta_width(1.0, 0.1, 2.0, 0.05))
