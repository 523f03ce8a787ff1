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
from safebandits.estimators.ridge import transposed_matvec

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
