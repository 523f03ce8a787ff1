"""The lazy exact posterior (:class:`LazyCovariance`, :class:`LazyGP`) against the eager low-rank one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from safebandits.estimators.gp import FiniteGP, LazyCovariance, LazyGP, LowRankCovariance, PointKernel
from safebandits.exceptions import ConfigError

KINDS = [("se", 2.5), ("matern", 0.5), ("matern", 1.5), ("matern", 2.5)]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 60),
    steps=st.integers(0, 90),
    kind=st.sampled_from(KINDS),
    dim=st.integers(1, 3),
    matrix=st.booleans(),
    capacity=st.integers(1, 40),
)
@example(seed=181, n=2, steps=3, kind=("matern", 0.5), dim=3, matrix=False, capacity=1)  # t > n
def test_lazy_posterior_equals_the_eager_one(seed, n, steps, kind, dim, matrix, capacity):
    rng = np.random.default_rng(seed)
    kern = PointKernel(rng.uniform(size=(n, dim)), kind[0], lengthscale=0.3, nu=kind[1], variance=1.7)
    k = np.asarray(kern) if matrix else kern
    # (not densified at t = n: that forms K from coordinates by |x|^2 + |y|^2 - 2 x.y, whose round-off at
    # r = 0 the Matern-1/2 kernel turns into 1e-8 on the diagonal; the columns are exact)
    eager_cov = LowRankCovariance(k, 0.5, capacity=steps, densify=False)
    eager_f = FiniteGP(k, 0.5, covariance=eager_cov)
    eager_g = FiniteGP(k, 0.5, covariance=eager_cov)
    cov = LazyCovariance(k, 0.5, capacity=capacity)  # grown by doubling past the capacity
    lazy_f, lazy_g = LazyGP(k, 0.5, covariance=cov), LazyGP(k, 0.5, covariance=cov)
    for _ in range(steps):
        i = int(rng.integers(n))
        y = rng.standard_normal(2)
        v = [eager_f.update(i, y[0]), eager_g.update(i, y[1]), lazy_f.update(i, y[0]), lazy_g.update(i, y[1])]
        assert v[2] == v[3] and v[2] == pytest.approx(v[0], abs=1e-10)
        cov.refresh(rng.integers(0, n, int(rng.integers(0, 4))))  # some points brought up to date
        assert np.all(cov.fresh <= cov.steps)
    assert cov.steps == steps and lazy_f.n_obs == steps
    idx = rng.permutation(n)[: min(n, 5)]
    np.testing.assert_allclose(lazy_f.cov_block(idx), eager_f.cov_block(idx), rtol=0, atol=1e-10)
    np.testing.assert_allclose(lazy_f.mean, eager_f.mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(lazy_g.mean, eager_g.mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(lazy_f.var, eager_f.var, rtol=0, atol=1e-10)
    np.testing.assert_allclose(lazy_g.std(), eager_g.std(), rtol=0, atol=1e-7)
    assert lazy_f.info_gain == pytest.approx(eager_f.info_gain, abs=1e-10)
    np.testing.assert_array_equal(lazy_f.counts, eager_f.counts)
    if n <= 30:
        np.testing.assert_allclose(lazy_f.cov, eager_f.cov, rtol=0, atol=1e-10)


def test_points_brought_up_to_date_alone_hold_the_posterior_of_all_the_data():
    rng = np.random.default_rng(0)
    kern = PointKernel(np.linspace(0, 1, 200), "se", lengthscale=0.1)
    eager = FiniteGP(kern, 1.0, posterior="lowrank", capacity=50)
    lazy = LazyGP(kern, 1.0, capacity=50)
    for _ in range(50):
        i, y = int(rng.integers(200)), float(rng.standard_normal())
        eager.update(i, y)
        lazy.update(i, y)
    cov = lazy.lowrank
    some = np.array([3, 77, 150])
    assert np.all(cov.fresh[some] < 50)
    cov.refresh(some)
    assert np.all(cov.fresh[some] == 50) and np.sum(cov.fresh == 50) < 60
    np.testing.assert_allclose(lazy._mean[some], eager.mean[some], atol=1e-12)
    np.testing.assert_allclose(cov.var[some], eager.var[some], atol=1e-12)


def test_a_shared_lazy_covariance_is_told_in_order():
    kern = PointKernel(np.linspace(0, 1, 20), "se")
    cov = LazyCovariance(kern, 1.0)
    a, b = LazyGP(kern, 1.0, covariance=cov), LazyGP(kern, 1.0, covariance=cov)
    a.update(3, 1.0)
    with pytest.raises(ConfigError, match="every attached posterior"):
        cov.refresh(np.array([0]))  # b has not been told observation 0 yet
    b.update(3, 0.5)
    cov.refresh(np.array([0]))
    a.update(4, 1.0)
    with pytest.raises(ConfigError, match="same points in the same order"):
        b.update(5, 1.0)
    with pytest.raises(ConfigError, match="must be new"):
        LazyGP(kern, 1.0, covariance=cov)
    with pytest.raises(ConfigError, match="attach"):
        cov.attach(np.zeros(20))
    with pytest.raises(ConfigError, match="keeps its kernel"):
        a.set_kernel(kern)


def _frozen(a):
    a = a.copy()
    a.setflags(write=False)
    return a


@pytest.mark.parametrize(
    "make_idx",
    [
        lambda a: a.tolist(),  # a list
        lambda a: np.repeat(a, 2)[::2],  # a strided view
        lambda a: np.asfortranarray(np.stack([a, a + 1]))[0],  # another strided view
        lambda a: a.astype(np.int32),  # another integer type
        lambda a: a.reshape(1, -1),  # a row
        _frozen,  # read-only
    ],
)
def test_refresh_takes_any_index_array_after_the_update_is_bound(make_idx):
    """The compiled update is bound to the types of its first call (a writable C-contiguous int64 vector
    of indices): other index arrays are brought to that type, a read-only one copied."""
    kern = PointKernel(np.linspace(0, 1, 50), "matern", nu=1.5)
    covs = [LazyCovariance(kern, 0.3) for _ in range(2)]
    gps = [LazyGP(kern, 0.3, covariance=c) for c in covs]
    for i in (4, 17, 30, 4):
        for gp in gps:
            gp.update(i, 0.1 * i)
    for cov in covs:
        cov.refresh(np.array([1]))  # (binds the update)
    want = np.array([2, 9, 44])
    covs[0].refresh(want)
    covs[1].refresh(make_idx(want))
    assert np.flatnonzero(covs[1].fresh == 4).tolist() == [1, 2, 9, 44]
    np.testing.assert_array_equal(covs[1].fresh, covs[0].fresh)
    np.testing.assert_array_equal(gps[1]._mean, gps[0]._mean)
    np.testing.assert_array_equal(covs[1].var, covs[0].var)
    assert covs[1].computed == covs[0].computed


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(4, 70),
    steps=st.integers(1, 45),
    kind=st.sampled_from(KINDS),
    batch=st.integers(1, 150),
)
def test_blocked_catch_up_equals_the_eager_posterior(seed, n, steps, kind, batch):
    # Issue 43: points caught up four at a time (from different steps; repeats in a batch) and four rows
    # at a time hold the eager posterior, and each entry of W is computed once.
    rng = np.random.default_rng(seed)
    kern = PointKernel(rng.uniform(size=(n, 2)), kind[0], lengthscale=0.4, nu=kind[1])
    eager = FiniteGP(kern, 0.2, covariance=LowRankCovariance(kern, 0.2, capacity=steps, densify=False))
    lazy = LazyGP(kern, 0.2, capacity=steps)
    cov = lazy.lowrank
    for _ in range(steps):
        i, y = int(rng.integers(n)), float(rng.standard_normal())
        eager.update(i, y)
        lazy.update(i, y)
        if rng.random() < 0.3:  # a batch with repeats, of points left behind at different steps
            idx = rng.integers(0, n, batch)
            behind = int(np.sum((cov.steps - cov.fresh)[np.unique(idx)]))
            before = cov.computed
            cov.refresh(idx)
            assert cov.computed - before == behind
            assert np.all(cov.fresh[idx] == cov.steps)
            np.testing.assert_allclose(lazy._mean[idx], eager.mean[idx], rtol=0, atol=1e-10)
            np.testing.assert_allclose(cov.var[idx], eager.var[idx], rtol=0, atol=1e-10)
    np.testing.assert_allclose(lazy.mean, eager.mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(lazy.var, eager.var, rtol=0, atol=1e-10)
    assert cov.computed == n * steps
