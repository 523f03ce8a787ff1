"""Issue 43, item 2: the per-sample kernels made cheaper by a constant keep every bit.

:func:`~safebandits.estimators.ridge.transposed_matvec` sums four terms of each product per pass; every
element must get the bits of the ``axpy`` loops it replaced (each sum from 0.0 in the order of ``j``).
:func:`~safebandits.algorithms.pure_exploration._g_acol_kernels.best_candidate_of` finds Greedy Max
Var's widest arm in two branch-free passes; it must pick the arm of the scan
(:func:`~safebandits.algorithms.pure_exploration._g_acol_kernels.best_candidate`) whatever the ties,
signed zeros, infinities or NaNs.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from safebandits.algorithms.pure_exploration._g_acol_kernels import (
    FROM_ALL,
    FROM_FEASIBLE,
    FROM_UNCERTAIN,
    best_candidate,
    best_candidate_of,
)
from safebandits.estimators.ridge import (
    ArmRidge,
    arm_gram_refresh,
    arm_ridge_refresh,
    normal_equations,
    transposed_matvec,
)

Block = namedtuple("Block", "st")
State = namedtuple("State", "sets ridge")
Sets = namedtuple("Sets", "rewards in_uncertain in_feasible")
Ridge = namedtuple("Ridge", "sq_widths")


@numba.njit
def _axpy_matvec(mat_t, v, out):
    """The loops :func:`transposed_matvec` replaced (``arm_ridge_step`` before issue 43)."""
    d, n = mat_t.shape
    for k in range(n):
        out[k] = 0.0
    for j in range(d):
        vj = v[j]
        for k in range(n):
            out[k] += mat_t[j, k] * vj


@numba.njit
def _matvec(mat_t, v, out):
    transposed_matvec(mat_t, v, out)


@numba.njit
def _best_of(b, by_reward, select_from):
    return best_candidate_of(b, by_reward, select_from)


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(0, 13),
    n=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    zeros=st.booleans(),
)
def test_transposed_matvec_has_the_bits_of_the_axpy_loops(d, n, seed, zeros):
    rng = np.random.default_rng(seed)
    mat_t = rng.normal(size=(d, n)) * 10.0 ** rng.integers(-8, 8, size=(d, n))
    v = rng.normal(size=d) * 10.0 ** rng.integers(-8, 8, size=d)
    if zeros and d:  # (signed zeros: 0.0 + (-0.0) is +0.0, which a sum started without 0.0 would lose)
        v[rng.integers(0, d)] = -0.0
        mat_t[:, rng.integers(0, n)] = -0.0
    out, ref = np.full(n, np.nan), np.full(n, np.nan)
    _matvec(mat_t, v, out)
    _axpy_matvec(mat_t, v, ref)
    assert np.array_equal(out.view(np.int64), ref.view(np.int64))


_SCORES = st.sampled_from([0.0, -0.0, 1.0, 1.0 + 2.0**-52, 2.5, -3.0, np.inf, -np.inf, np.nan])


@settings(max_examples=300, deadline=None)
@given(
    scores=arrays(np.float64, st.integers(0, 13), elements=_SCORES),
    nan_free=st.booleans(),
    by_reward=st.booleans(),
    select_from=st.sampled_from([FROM_ALL, FROM_UNCERTAIN, FROM_FEASIBLE]),
    data=st.data(),
)
def test_best_candidate_of_picks_the_arm_of_the_scan(scores, nan_free, by_reward, select_from, data):
    n = scores.shape[0]
    if nan_free:
        scores = np.nan_to_num(scores, nan=0.5)
    masks = data.draw(arrays(np.bool_, (2, n)))
    other = np.arange(n, dtype=np.float64)
    rewards, widths = (scores, other) if by_reward else (other, scores)
    b = Block(State(Sets(rewards, masks[0].copy(), masks[1].copy()), Ridge(widths)))
    expected = best_candidate(scores, select_from, masks[0], masks[1])
    assert _best_of(b, by_reward, select_from) == expected


@numba.njit
def _normal_equations_from_i(arms, counts, sums, reg, a, b):
    """:func:`~safebandits.estimators.ridge.normal_equations` before issue 43 (``j`` from ``i``)."""
    n, d = arms.shape
    for i in range(d):
        b[i] = 0.0
        for j in range(d):
            a[i, j] = reg if i == j else 0.0
    for k in range(n):
        nk = counts[k]
        sk = sums[k]
        if nk == 0.0 and sk == 0.0:
            continue
        for i in range(d):
            xi = arms[k, i]
            b[i] += sk * xi
            for j in range(i, d):
                a[i, j] += nk * xi * arms[k, j]
    for i in range(d):
        for j in range(i + 1, d):
            a[j, i] = a[i, j]


@numba.njit
def _gram_refresh_one_sum_at_a_time(arms, counts, sums, reg, gram, sq_widths, preds):
    """The loops of :func:`~safebandits.estimators.ridge.arm_gram_refresh` before issue 43's vectorised
    passes: one sum at a time."""
    n, d = arms.shape
    a = np.empty((d, d))
    b = np.empty(d)
    _normal_equations_from_i(arms, counts, sums, reg, a, b)
    low = np.linalg.cholesky(a)
    z = np.empty((d, n))
    zb = np.empty(d)
    for i in range(d):
        li = 1.0 / low[i, i]
        s = b[i]
        for m in range(i):
            s -= low[i, m] * zb[m]
        zb[i] = s * li
        for k in range(n):
            s = arms[k, i]
            for m in range(i):
                s -= low[i, m] * z[m, k]
            z[i, k] = s * li
    for k in range(n):
        p = 0.0
        for i in range(d):
            p += z[i, k] * zb[i]
        preds[k] = p
        for m in range(k, n):
            s = 0.0
            for i in range(d):
                s += z[i, k] * z[i, m]
            gram[k, m] = s
            gram[m, k] = s
        sq_widths[k] = gram[k, k]


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(1, 40),
    n=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    zeros=st.booleans(),
)
def test_gram_refresh_and_normal_equations_have_the_bits_of_one_sum_at_a_time(d, n, seed, zeros):
    rng = np.random.default_rng(seed)
    arms = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 3, size=(n, 1))
    counts = rng.integers(0, 10**6, size=n).astype(float)
    sums = rng.normal(size=n) * counts
    if zeros:  # (arms never pulled, and signed zeros in the features)
        counts[rng.integers(0, n)] = 0.0
        arms[rng.integers(0, n), rng.integers(0, d)] = -0.0
    ridge = ArmRidge(arms, 0.1, refresh_every=0, numerics="gram")
    r = ridge.arrays
    r.counts[:] = counts
    r.sums[:] = sums
    arm_gram_refresh(r, 0.1)
    gram, widths, preds = np.full((n, n), np.nan), np.full(n, np.nan), np.full(n, np.nan)
    _gram_refresh_one_sum_at_a_time(arms, counts, sums, 0.1, gram, widths, preds)
    for got, want in ((r.gram, gram), (r.sq_widths, widths), (r.preds, preds)):
        assert np.array_equal(got.view(np.int64), want.view(np.int64))
    a, b = np.full((d, d), np.nan), np.full(d, np.nan)
    normal_equations(arms, counts, sums, 0.1, a, b)
    want_a, want_b = np.full((d, d), np.nan), np.full(d, np.nan)
    _normal_equations_from_i(arms, counts, sums, 0.1, want_a, want_b)
    assert np.array_equal(a.view(np.int64), want_a.view(np.int64))
    assert np.array_equal(b.view(np.int64), want_b.view(np.int64))


@numba.njit
def _primal_widths_one_arm_at_a_time(arms, a_inv, theta, sq_widths, preds):
    """The loops of :func:`~safebandits.estimators.ridge.arm_ridge_refresh` after ``A^{-1}`` before issue
    43's vectorised passes: one arm at a time."""
    n, d = arms.shape
    for k in range(n):
        p = 0.0
        w = 0.0
        for i in range(d):
            p += arms[k, i] * theta[i]
            s = 0.0
            for j in range(d):
                s += a_inv[i, j] * arms[k, j]
            w += arms[k, i] * s
        preds[k] = p
        sq_widths[k] = w


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 40), n=st.integers(1, 60), seed=st.integers(0, 2**32 - 1), zeros=st.booleans())
def test_primal_refresh_has_the_bits_of_one_arm_at_a_time(d, n, seed, zeros):
    rng = np.random.default_rng(seed)
    arms = rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 3, size=(n, 1))
    counts = rng.integers(0, 10**6, size=n).astype(float)
    sums = rng.normal(size=n) * counts
    if zeros:
        counts[rng.integers(0, n)] = 0.0
        arms[rng.integers(0, n), rng.integers(0, d)] = -0.0
    ridge = ArmRidge(arms, 0.1, refresh_every=0, numerics="primal")
    r = ridge.arrays
    r.counts[:] = counts
    r.sums[:] = sums
    arm_ridge_refresh(r, 0.1)
    widths, preds = np.full(n, np.nan), np.full(n, np.nan)
    _primal_widths_one_arm_at_a_time(arms, r.a_inv, r.theta, widths, preds)
    assert np.array_equal(r.sq_widths.view(np.int64), widths.view(np.int64))
    assert np.array_equal(r.preds.view(np.int64), preds.view(np.int64))
