"""Continuous domains: the GP posterior at arbitrary points (equal to the finite one, exact gradients)
and the acquisition search (random candidates + L-BFGS-B) reaching the footnote's accuracy C / sqrt(t)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.estimators.box_search import accuracy_target, maximise_on_box, uniform_in_box
from safebandits.estimators.gp import FiniteGP, PointKernel
from safebandits.estimators.gp_points import PointsGP, kernel_gradient
from safebandits.exceptions import ConfigError

KERNELS = [("se", 2.5), ("matern", 2.5), ("matern", 1.5), ("matern", 0.5)]


@pytest.mark.parametrize(("kind", "nu"), KERNELS)
def test_points_posterior_equals_the_finite_posterior(kind, nu):
    # (the kernels' distances are formed as |x|^2 + |y|^2 - 2 x.y, whose round-off near r = 0 a Matérn-1/2
    # kernel, linear in r there, passes on at about 1e-8)
    tol = 1e-7 if nu == 0.5 and kind == "matern" else 1e-9
    rng = np.random.default_rng(0)
    pts = rng.random((40, 2))
    kern = PointKernel(pts, kind, lengthscale=0.3, nu=nu)
    finite = FiniteGP(np.asarray(kern), 0.3, posterior="dense")
    anywhere = PointsGP(kern, 0.3, capacity=4)  # (grown beyond its capacity on the way)
    for _ in range(35):  # repeated points included
        i, y = int(rng.integers(40)), float(rng.normal())
        v_finite = finite.update(i, y)
        v_any = anywhere.update(pts[i], y)
        assert v_any == pytest.approx(v_finite, abs=tol)
    mean, var = anywhere.predict(pts)
    np.testing.assert_allclose(mean, finite.mean, atol=tol)
    np.testing.assert_allclose(var, finite.variance(), atol=tol)
    assert anywhere.info_gain == pytest.approx(finite.info_gain, rel=tol)
    m, cov = anywhere.covariance(pts[:7])
    np.testing.assert_allclose(cov, finite.cov[:7, :7], atol=tol)
    np.testing.assert_allclose(m, finite.mean[:7], atol=tol)


@pytest.mark.parametrize(("kind", "nu"), KERNELS)
def test_gradients_match_finite_differences(kind, nu):
    rng = np.random.default_rng(1)
    kern = PointKernel(np.zeros((1, 3)), kind, lengthscale=0.4, nu=nu)
    gp = PointsGP(kern, 0.1)
    for x in rng.random((12, 3)):
        gp.update(x, float(np.sin(x.sum())))
    ys = rng.random((5, 3))
    for x in rng.random((4, 3)):
        grad = kernel_gradient(kern, x, ys)
        h = 1e-6
        for j in range(3):
            e = np.eye(3)[j] * h
            fd = (kern.between(ys, (x + e)[None, :])[:, 0] - kern.between(ys, (x - e)[None, :])[:, 0]) / (
                2 * h
            )
            np.testing.assert_allclose(grad[:, j], fd, rtol=1e-5, atol=1e-7)
        p = gp.at(x)
        mean, var = gp.predict(x[None, :])
        assert p.mean == pytest.approx(float(mean[0])) and p.sd == pytest.approx(math.sqrt(var[0]))
        for j in range(3):
            e = np.eye(3)[j] * h
            hi, lo = gp.at(x + e), gp.at(x - e)
            assert p.d_mean[j] == pytest.approx((hi.mean - lo.mean) / (2 * h), rel=1e-5, abs=1e-6)
            assert p.d_sd[j] == pytest.approx((hi.sd - lo.sd) / (2 * h), rel=1e-4, abs=1e-6)


def test_points_gp_refuses_bad_points():
    gp = PointsGP(PointKernel(np.zeros((1, 2))), 1.0)
    with pytest.raises(ConfigError):
        gp.update([0.1, 0.2, 0.3], 1.0)
    with pytest.raises(ConfigError):
        gp.update([np.nan, 0.2], 1.0)
    with pytest.raises(ConfigError):
        PointsGP(np.eye(2), 1.0)


# -- known functions -------------------------------------------------------------------------------
def bumps(centres, heights, width):
    """``sum_i h_i exp(-|x - c_i|^2 / (2 w^2))`` with its gradient (a multimodal test function)."""
    centres, heights = np.asarray(centres, float), np.asarray(heights, float)

    def values(xs):
        d2 = ((np.atleast_2d(xs)[:, None, :] - centres[None]) ** 2).sum(-1)
        return np.exp(-0.5 * d2 / width**2) @ heights

    def value_and_grad(x):
        diff = x[None, :] - centres
        k = heights * np.exp(-0.5 * (diff**2).sum(1) / width**2)
        return float(k.sum()), -(k[:, None] * diff).sum(0) / width**2

    return values, value_and_grad


def branin_negative():
    """``-branin`` on [-5, 10] x [0, 15]; its maximum is ``-0.397887`` (three global maximisers)."""

    def b(x1, x2):
        a, bb, c, r, s, t = 1.0, 5.1 / (4 * math.pi**2), 5 / math.pi, 6.0, 10.0, 1 / (8 * math.pi)
        return a * (x2 - bb * x1**2 + c * x1 - r) ** 2 + s * (1 - t) * np.cos(x1) + s

    def values(xs):
        xs = np.atleast_2d(xs)
        return -b(xs[:, 0], xs[:, 1])

    def value_and_grad(x):
        bb, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
        inner = x[1] - bb * x[0] ** 2 + c * x[0] - 6.0
        g0 = 2 * inner * (-2 * bb * x[0] + c) - 10 * (1 - t) * math.sin(x[0])
        return float(values(x)[0]), -np.array([g0, 2 * inner])

    return values, value_and_grad, np.array([-5.0, 0.0]), np.array([10.0, 15.0]), -0.397887357729738


@pytest.mark.parametrize("t", [1, 10, 100, 1000, 10_000])
def test_search_reaches_the_accuracy_rule_on_known_functions(t):
    """The value found is within ``eps_t = C / sqrt(t)`` of the known maximum, for each ``t``."""
    c = 0.05
    eps = accuracy_target(c, t)
    assert eps == pytest.approx(c / math.sqrt(t))
    cases = []
    values, vg = bumps([[0.2], [0.55], [0.9]], [0.6, 1.0, 0.8], 0.05)  # 1-D, narrow peaks
    cases.append((values, vg, np.zeros(1), np.ones(1), 1.0))
    values, vg = bumps([[0.2, 0.8], [0.7, 0.3], [0.5, 0.5]], [0.7, 1.2, 0.9], 0.1)  # 2-D
    cases.append((values, vg, np.zeros(2), np.ones(2), 1.2))
    cases.append(branin_negative())
    for k, (values, vg, lo, hi, best) in enumerate(cases):
        for seed in range(5):
            res = maximise_on_box(values, vg, lo, hi, np.random.default_rng(seed), accuracy=eps)
            # the known maximum (the bumps' maxima sit at their centres up to a negligible overlap)
            top = max(best, float(values(res.x[None, :])[0]))
            assert res.value >= top - eps, (k, seed, res.value, top, eps)
            assert np.all(res.x >= lo) and np.all(res.x <= hi)
            assert res.value >= res.candidate_value


def test_search_is_a_pure_function_of_the_generator():
    values, vg = bumps([[0.3, 0.3], [0.8, 0.6]], [1.0, 0.9], 0.1)
    a = maximise_on_box(values, vg, np.zeros(2), np.ones(2), np.random.default_rng(7), accuracy=0.01)
    b = maximise_on_box(values, vg, np.zeros(2), np.ones(2), np.random.default_rng(7), accuracy=0.01)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.value == b.value and a.evaluations == b.evaluations


def test_candidates_only_and_extra_points():
    values, vg = bumps([[0.37]], [1.0], 0.01)  # a needle: candidates alone miss it ...
    rng = np.random.default_rng(0)
    only = maximise_on_box(
        values, vg, np.zeros(1), np.ones(1), rng, accuracy=1e-3, n_candidates=8, n_starts=0
    )
    assert only.evaluations == 0 and only.value == only.candidate_value
    # ... a point given in `extra` is a candidate too (the previous answer of a learner)
    extra = maximise_on_box(
        values, vg, np.zeros(1), np.ones(1), np.random.default_rng(0), accuracy=1e-3, n_candidates=8,
        n_starts=1, extra=np.array([[0.371]]),
    )  # fmt: skip
    assert extra.value >= 1.0 - 1e-3


@settings(max_examples=40, deadline=None)
@given(
    lo=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=4),
    widths=st.lists(st.floats(1e-3, 1e3), min_size=4, max_size=4),
    m=st.integers(1, 50),
    seed=st.integers(0, 2**32 - 1),
)
def test_uniform_candidates_lie_in_the_box(lo, widths, m, seed):
    lo = np.array(lo)
    hi = lo + np.array(widths[: lo.shape[0]])
    pts = uniform_in_box(np.random.default_rng(seed), lo, hi, m)
    assert pts.shape == (m, lo.shape[0])
    assert np.all(pts >= lo) and np.all(pts <= hi)


def test_ties_on_a_plateau_are_broken_by_the_uniform():
    """A truncated acquisition is flat where every estimate is clipped: every candidate ties, L-BFGS-B
    cannot improve, and the uniform picks which candidate is the answer (the finite domain's rule)."""

    def values(xs):
        return np.ones(np.atleast_2d(xs).shape[0])

    def vg(x):
        return 1.0, np.zeros_like(x)

    lo, hi = np.zeros(2), np.ones(2)
    picks = {
        tuple(maximise_on_box(values, vg, lo, hi, np.random.default_rng(0), accuracy=0.1, tie=u).x)
        for u in (0.0, 0.3, 0.6, 0.99)
    }
    assert len(picks) == 4
    first = maximise_on_box(values, vg, lo, hi, np.random.default_rng(0), accuracy=0.1, tie=0.0)
    plain = maximise_on_box(values, vg, lo, hi, np.random.default_rng(0), accuracy=0.1)
    np.testing.assert_array_equal(first.x, plain.x)  # u = 0 and no uniform: the first candidate
