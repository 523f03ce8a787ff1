"""The low-rank GP posterior (incremental Cholesky rows, O(t n)) against the dense rank-one posterior."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.estimators.gp import (
    DENSE_MAX_POINTS,
    FiniteGP,
    LowRankCovariance,
    PointKernel,
    greedy_information_gain,
    matern_kernel,
    resolve_posterior,
    se_kernel,
)
from safebandits.exceptions import ConfigError

X = np.linspace(0.0, 1.0, 30)


def _kernels():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((30, 5))
    return {
        "se": se_kernel(X, lengthscale=0.2),
        "matern32": matern_kernel(X, lengthscale=0.3, nu=1.5),
        "low-rank": a @ a.T / 5.0,  # rank 5: K_t + lambda I stays well posed, W's rows are dependent
    }


def _feed(gps, idx, y):
    out = []
    for i, v in zip(idx, y):
        out.append([gp.update(int(i), float(v)) for gp in gps])
    return np.array(out)


@pytest.mark.parametrize("name", ["se", "matern32", "low-rank"])
@pytest.mark.parametrize("lam", [0.01, 1.0])
@pytest.mark.parametrize("length", [12, 29, 30, 75])  # below, at and past the switch to dense (t = n)
def test_lowrank_equals_dense(name, lam, length):
    k = _kernels()[name]
    rng = np.random.default_rng(length)
    idx = rng.integers(0, 30, size=length)  # with repeats
    y = rng.standard_normal(length)
    dense = FiniteGP(k, lam, posterior="dense")
    low = FiniteGP(k, lam, posterior="lowrank")
    assert dense.mode == "dense" and low.mode == "lowrank"
    answers = _feed((dense, low), idx, y)
    np.testing.assert_allclose(answers[:, 1], answers[:, 0], rtol=0, atol=1e-10)  # sigma^2_{t-1}(x_t)
    np.testing.assert_allclose(low.mean, dense.mean, rtol=0, atol=1e-9)
    np.testing.assert_allclose(low.var, np.diag(dense.cov), rtol=0, atol=1e-10)
    np.testing.assert_allclose(low.cov, dense.cov, rtol=0, atol=1e-10)
    assert low.info_gain == pytest.approx(dense.info_gain, rel=1e-10)
    np.testing.assert_array_equal(low.counts, dense.counts)
    # the rows stop at n: afterwards the covariance is dense (O(min(t, n) n) memory)
    assert (low.lowrank.dense is not None) == (length >= 30)
    assert low.lowrank.rows == (0 if length >= 30 else length)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    length=st.integers(1, 60),
    lam=st.floats(0.01, 2.0),
    lengthscale=st.floats(0.05, 1.0),
)
def test_lowrank_equals_dense_on_random_sequences(seed, length, lam, lengthscale):
    k = se_kernel(X, lengthscale=lengthscale)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, 30, size=length)
    y = 2.0 * rng.standard_normal(length)
    dense, low = FiniteGP(k, lam, posterior="dense"), FiniteGP(k, lam, posterior="lowrank")
    _feed((dense, low), idx, y)
    scale = 1.0 + float(np.max(np.abs(dense.mean)))
    assert np.max(np.abs(low.mean - dense.mean)) <= 1e-8 * scale
    assert np.max(np.abs(low.var - np.diag(dense.cov))) <= 1e-9


def test_point_kernel_columns_are_the_matrix():
    pts = np.random.default_rng(0).uniform(size=(40, 2))
    for kind, kw, full in [
        ("se", {"lengthscale": 0.3, "variance": 2.0}, se_kernel(pts, lengthscale=0.3, variance=2.0)),
        ("matern", {"lengthscale": 0.4, "nu": 0.5}, matern_kernel(pts, lengthscale=0.4, nu=0.5)),
        ("matern", {"lengthscale": 0.4, "nu": 2.5}, matern_kernel(pts, lengthscale=0.4, nu=2.5)),
    ]:
        pk = PointKernel(pts, kind, **kw)
        assert pk.shape == (40, 40)
        np.testing.assert_allclose(np.asarray(pk), full, atol=1e-12)
        for i in (0, 17, 39):
            np.testing.assert_allclose(pk.column(i), full[:, i], atol=1e-12)
        np.testing.assert_allclose(pk.diagonal(), np.diag(full), atol=1e-12)
        rows, cols = np.array([3, 1]), np.array([5, 7, 9])
        np.testing.assert_allclose(pk.block(rows, cols), full[np.ix_(rows, cols)], atol=1e-12)
    with pytest.raises(ConfigError):
        PointKernel(pts, "cubic")


def test_point_kernel_posterior_equals_the_matrix_posterior():
    pk = PointKernel(X, "se", lengthscale=0.2)
    rng = np.random.default_rng(4)
    idx, y = rng.integers(0, 30, size=20), rng.standard_normal(20)
    a, b = FiniteGP(pk, 0.3), FiniteGP(se_kernel(X, lengthscale=0.2), 0.3, posterior="dense")
    assert a.mode == "lowrank"  # a PointKernel is never materialised by "auto"
    _feed((a, b), idx, y)
    np.testing.assert_allclose(a.mean, b.mean, atol=1e-9)
    np.testing.assert_allclose(a.var, np.diag(b.cov), atol=1e-10)
    sub = np.array([2, 7, 29, 11])
    np.testing.assert_allclose(a.cov_block(sub), b.cov[np.ix_(sub, sub)], atol=1e-10)
    np.testing.assert_allclose(b.cov_block(sub), b.cov[np.ix_(sub, sub)], atol=0)


def test_shared_covariance_is_two_posteriors():
    k = _kernels()["se"]
    rng = np.random.default_rng(5)
    idx, r, c = rng.integers(0, 30, size=25), rng.standard_normal(25), rng.standard_normal(25)
    f = FiniteGP(k, 0.5, posterior="lowrank")
    g = FiniteGP(k, 0.5, covariance=f.lowrank)
    f2, g2 = FiniteGP(k, 0.5, posterior="dense"), FiniteGP(k, 0.5, posterior="dense")
    for i, a, b in zip(idx, r, c):
        assert f.update(int(i), float(a)) == pytest.approx(f2.update(int(i), float(a)), abs=1e-12)
        assert g.update(int(i), float(b)) == pytest.approx(g2.update(int(i), float(b)), abs=1e-12)
    assert f.lowrank is g.lowrank and f.lowrank.rows == 25
    np.testing.assert_allclose(f.mean, f2.mean, atol=1e-9)
    np.testing.assert_allclose(g.mean, g2.mean, atol=1e-9)
    np.testing.assert_allclose(g.var, np.diag(g2.cov), atol=1e-10)
    # told different points, the sharers are refused
    h = FiniteGP(k, 0.5, posterior="lowrank")
    e = FiniteGP(k, 0.5, covariance=h.lowrank)
    h.update(3, 0.1)
    with pytest.raises(ConfigError, match="same points"):
        e.update(4, 0.2)
    with pytest.raises(ConfigError, match="shared covariance"):
        FiniteGP(k, 0.7, covariance=h.lowrank)


def test_memory_is_linear_in_the_points():
    n, t = 20_000, 40
    pk = PointKernel(np.linspace(0, 1, n), "se", lengthscale=0.1)
    cov = LowRankCovariance(pk, 1.0, capacity=t)
    for s in range(t):
        cov.condition(s, (s * 7919) % n)
    assert cov.rows == t and cov.dense is None
    assert cov.nbytes <= (t + 1) * n * 8 + 1024  # rows reserved for the horizon, no n x n matrix
    assert np.all(cov.var <= 1.0 + 1e-12) and np.all(cov.var >= -1e-9)


def test_greedy_information_gain_is_the_same_either_way():
    k = se_kernel(np.linspace(0, 1, DENSE_MAX_POINTS + 8), lengthscale=0.1)
    assert resolve_posterior("auto", k) == "lowrank"
    g_low = greedy_information_gain(k, 1.0, 25)
    small = k[::2, ::2]
    assert resolve_posterior("auto", small) == "dense"
    # the low-rank gain equals the dense posterior's on the same kernel
    gp = FiniteGP(k, 1.0, posterior="dense")
    want = [0.0]
    for _ in range(25):
        gp.update(int(np.argmax(gp.var)), 0.0)
        want.append(gp.info_gain)
    np.testing.assert_allclose(g_low, want, rtol=1e-10)


def test_options_are_checked():
    k = _kernels()["se"]
    with pytest.raises(ConfigError):
        FiniteGP(k, 1.0, posterior="sparse")
    with pytest.raises(ConfigError, match="refresh_every"):
        FiniteGP(k, 1.0, posterior="lowrank", refresh_every=5)
    low = FiniteGP(k, 1.0, posterior="lowrank")
    with pytest.raises(ConfigError, match="dense"):
        low.refresh()
    assert math.isclose(float(np.max(low.std())), 1.0)


# -- hyperparameters from data ---------------------------------------------------------------------


def _fresh(kernel, lam, idx, y, mode):
    gp = FiniteGP(kernel, lam, posterior=mode)
    for i, v in zip(idx, y):
        gp.update(int(i), float(v))
    return gp


@pytest.mark.parametrize("mode", ["dense", "lowrank"])
@pytest.mark.parametrize("length", [12, 45])
def test_set_kernel_is_the_posterior_of_the_new_kernel(mode, length):
    rng = np.random.default_rng(8)
    idx, y = rng.integers(0, 30, size=length), rng.standard_normal(length)
    old, new = PointKernel(X, "se", lengthscale=0.2), PointKernel(X, "se", lengthscale=0.07)
    if mode == "dense":
        old, new = np.asarray(old), np.asarray(new)
    gp = _fresh(old, 0.3, idx, y, mode)
    gp.set_kernel(new)
    want = _fresh(new, 0.3, idx, y, "dense")
    np.testing.assert_allclose(gp.mean, want.mean, atol=1e-9)
    np.testing.assert_allclose(gp.var, np.diag(want.cov), atol=1e-9)
    assert gp.info_gain == pytest.approx(want.info_gain, rel=1e-9)
    # and it keeps conditioning exactly afterwards
    gp.update(3, 0.5)
    want.update(3, 0.5)
    np.testing.assert_allclose(gp.mean, want.mean, atol=1e-9)
    np.testing.assert_allclose(gp.var, np.diag(want.cov), atol=1e-9)


def test_set_kernel_on_a_shared_covariance():
    rng = np.random.default_rng(9)
    idx, r, c = rng.integers(0, 30, size=20), rng.standard_normal(20), rng.standard_normal(20)
    old, new = PointKernel(X, "se", lengthscale=0.2), PointKernel(X, "se", lengthscale=0.1)
    f = FiniteGP(old, 0.5, posterior="lowrank")
    g = FiniteGP(old, 0.5, covariance=f.lowrank)
    for i, a, b in zip(idx, r, c):
        f.update(int(i), float(a))
        g.update(int(i), float(b))
    f.set_kernel(new)
    g.set_kernel(new)
    np.testing.assert_allclose(f.mean, _fresh(new, 0.5, idx, r, "dense").mean, atol=1e-9)
    np.testing.assert_allclose(g.mean, _fresh(new, 0.5, idx, c, "dense").mean, atol=1e-9)


def test_log_marginal_likelihood_is_the_gaussian_density_of_the_means():
    from scipy.stats import multivariate_normal

    from safebandits.estimators.gp import log_marginal_likelihood

    k = se_kernel(X, lengthscale=0.15)
    counts = np.zeros(30, dtype=np.int64)
    counts[[2, 5, 17]] = [1, 3, 2]
    sums = np.zeros(30)
    sums[[2, 5, 17]] = [0.4, -0.9, 1.2]
    a = np.array([2, 5, 17])
    ybar = sums[a] / counts[a]
    cov = k[np.ix_(a, a)] + np.diag(0.2 / counts[a])
    want = multivariate_normal(np.zeros(3), cov).logpdf(ybar)
    assert log_marginal_likelihood(k, 0.2, counts, sums) == pytest.approx(want, rel=1e-10)


def test_type_ii_ml_finds_the_lengthscale_of_a_draw():
    from safebandits.estimators.gp import fit_lengthscale

    pts = np.linspace(0.0, 1.0, 200)
    true = PointKernel(pts, "se", lengthscale=0.08)
    rng = np.random.default_rng(0)
    f = np.linalg.cholesky(np.asarray(true) + 1e-8 * np.eye(200)) @ rng.standard_normal(200)
    counts = np.zeros(200, dtype=np.int64)
    sums = np.zeros(200)
    for i in rng.integers(0, 200, size=150):
        counts[i] += 1
        sums[i] += f[i] + 0.05 * rng.standard_normal()
    start = PointKernel(pts, "se", lengthscale=0.5)
    got = fit_lengthscale(start, 0.05**2, [(counts, sums)])
    assert 0.05 < got < 0.13
