"""The compiled catch-up of the lazy GP posterior (:class:`~safebandits.estimators.gp.LazyCovariance`):
points brought from the step of their last update to the current one by forward substitution.

``W[s, x] = (k(x_s, x) - L[s, :s] W[:s, x]) / L[s, s]`` for the rows ``s = fresh[x] .. t - 1`` of each
point asked, then ``sigma^2(x) -= W[s, x]^2`` and ``mu(x) += W[s, x] z_s`` for every attached mean. The
arithmetic is blocked so that a value read is used several times (issue 43): points left behind at the
same step share the rows of ``L`` (four points per row, :func:`_dot4`), and a point with four or more rows
to catch up reads its own column once per four rows (:func:`_rows4`). Each entry is the same sum as one
dot product; only the order of the additions differs (exact up to round-off, as the eager update).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

__all__ = ["KernelSource", "LazyFactor", "lazy_advance"]


class KernelSource(NamedTuple):
    """A kernel as :func:`_kernel_value` reads it (:meth:`~safebandits.estimators.gp.LazyCovariance.
    _kernel_source`): a matrix ``kmat`` (``code < 0``; ``pts`` empty) or :class:`~safebandits.estimators.gp.
    PointKernel`'s formula on the coordinates ``pts`` (``code`` 0: SE; 1, 2, 3: Matérn 1/2, 3/2, 5/2) with
    lengthscale ``ls`` and variance ``kv``."""

    kmat: np.ndarray
    pts: np.ndarray
    code: int
    ls: float
    kv: float


class LazyFactor(NamedTuple):
    """The arrays of a :class:`~safebandits.estimators.gp.LazyCovariance` that :func:`lazy_advance` reads
    and writes: ``wt`` (n, capacity) the columns ``W[:, x]`` point-major, ``low`` the factor ``L``,
    ``played`` the points observed, ``fresh`` (n,) each point's step, ``var`` (n,) its variance, ``means``
    the attached posterior means (a tuple of (n,) arrays) and ``z`` (n_means, capacity) their ``z_s``."""

    wt: np.ndarray
    low: np.ndarray
    played: np.ndarray
    fresh: np.ndarray
    var: np.ndarray
    means: tuple[np.ndarray, ...]
    z: np.ndarray


@numba.njit(cache=True, inline="always")
def _kernel_value(kern, a, b):
    """``k(x_a, x_b)`` of a :class:`KernelSource`: its matrix (``code < 0``) or :class:`PointKernel`'s
    formulas on coordinates (``code`` 0: SE; 1, 2, 3: Matérn 1/2, 3/2, 5/2)."""
    code, ls, kv, pts = kern.code, kern.ls, kern.kv, kern.pts
    if code < 0:
        return kern.kmat[a, b]
    d2 = 0.0
    for m in range(pts.shape[1]):
        diff = pts[a, m] - pts[b, m]
        d2 += diff * diff
    r = math.sqrt(d2)
    if code == 0:
        return kv * math.exp(-0.5 * (r / ls) ** 2)
    r = r / ls
    if code == 1:
        return kv * math.exp(-r)
    if code == 2:
        sr = math.sqrt(3.0) * r
        return kv * (1.0 + sr) * math.exp(-sr)
    sr = math.sqrt(5.0) * r
    return kv * (1.0 + sr + sr * sr / 3.0) * math.exp(-sr)


@numba.njit(cache=True, fastmath=True)
def _dot1(low, s, wt, x):
    """``L[s, :s] . W[:s, x]`` (both contiguous; reassociated, vectorised)."""
    acc = 0.0
    for r in range(s):
        acc += low[s, r] * wt[x, r]
    return acc


@numba.njit(cache=True, fastmath=True)
def _dot4(low, s, wt, xs):
    """``L[s, :s] . W[:s, x]`` for the four points ``xs``: the row of ``L`` read once."""
    x0, x1, x2, x3 = xs[0], xs[1], xs[2], xs[3]
    a0 = a1 = a2 = a3 = 0.0
    for r in range(s):
        lr = low[s, r]
        a0 += lr * wt[x0, r]
        a1 += lr * wt[x1, r]
        a2 += lr * wt[x2, r]
        a3 += lr * wt[x3, r]
    return a0, a1, a2, a3


@numba.njit(cache=True, fastmath=True)
def _rows4(low, s, wt, x):
    """``L[s + k, :s] . W[:s, x]`` for ``k = 0 .. 3``: the column of ``x`` read once."""
    a0 = a1 = a2 = a3 = 0.0
    for r in range(s):
        w = wt[x, r]
        a0 += low[s, r] * w
        a1 += low[s + 1, r] * w
        a2 += low[s + 2, r] * w
        a3 += low[s + 3, r] * w
    return a0, a1, a2, a3


@numba.njit(cache=True, fastmath=True)
def _block44(low, s, wt, xs, acc):
    """``acc[k, p] = L[s + k, :s] . W[:s, xs[p]]`` for ``k, p = 0 .. 3``: each value read serves four
    products."""
    x0, x1, x2, x3 = xs[0], xs[1], xs[2], xs[3]
    a00 = a01 = a02 = a03 = a10 = a11 = a12 = a13 = 0.0
    a20 = a21 = a22 = a23 = a30 = a31 = a32 = a33 = 0.0
    for r in range(s):
        w0, w1, w2, w3 = wt[x0, r], wt[x1, r], wt[x2, r], wt[x3, r]
        l0, l1, l2, l3 = low[s, r], low[s + 1, r], low[s + 2, r], low[s + 3, r]
        a00 += l0 * w0
        a01 += l0 * w1
        a02 += l0 * w2
        a03 += l0 * w3
        a10 += l1 * w0
        a11 += l1 * w1
        a12 += l1 * w2
        a13 += l1 * w3
        a20 += l2 * w0
        a21 += l2 * w1
        a22 += l2 * w2
        a23 += l2 * w3
        a30 += l3 * w0
        a31 += l3 * w1
        a32 += l3 * w2
        a33 += l3 * w3
    acc[0, 0], acc[0, 1], acc[0, 2], acc[0, 3] = a00, a01, a02, a03
    acc[1, 0], acc[1, 1], acc[1, 2], acc[1, 3] = a10, a11, a12, a13
    acc[2, 0], acc[2, 1], acc[2, 2], acc[2, 3] = a20, a21, a22, a23
    acc[3, 0], acc[3, 1], acc[3, 2], acc[3, 3] = a30, a31, a32, a33


@numba.njit(cache=True, inline="always")
def _store(fac, x, s, w):
    """Row ``s`` of point ``x``'s column is ``w``: its variance and every attached mean follow."""
    fac.wt[x, s] = w
    fac.var[x] -= w * w
    for j in range(len(fac.means)):
        fac.means[j][x] += w * fac.z[j, s]


@numba.njit(cache=True)
def _advance_one(fac, kern, x, t):
    """Point ``x`` from ``fresh[x]`` to ``t``: four rows per read of its column, then one at a time."""
    low, wt, played = fac.low, fac.wt, fac.played
    s = fac.fresh[x]
    while s + 4 <= t:
        a0, a1, a2, a3 = _rows4(low, s, wt, x)
        w0 = (_kernel_value(kern, played[s], x) - a0) / low[s, s]
        a1 += low[s + 1, s] * w0
        w1 = (_kernel_value(kern, played[s + 1], x) - a1) / low[s + 1, s + 1]
        a2 += low[s + 2, s] * w0 + low[s + 2, s + 1] * w1
        w2 = (_kernel_value(kern, played[s + 2], x) - a2) / low[s + 2, s + 2]
        a3 += low[s + 3, s] * w0 + low[s + 3, s + 1] * w1 + low[s + 3, s + 2] * w2
        w3 = (_kernel_value(kern, played[s + 3], x) - a3) / low[s + 3, s + 3]
        _store(fac, x, s, w0)
        _store(fac, x, s + 1, w1)
        _store(fac, x, s + 2, w2)
        _store(fac, x, s + 3, w3)
        s += 4
    while s < t:
        w = (_kernel_value(kern, played[s], x) - _dot1(low, s, wt, x)) / low[s, s]
        _store(fac, x, s, w)
        s += 1
    fac.fresh[x] = t


@numba.njit(cache=True)
def _advance_four(fac, kern, xs, t):
    """The four distinct points ``xs`` (by increasing step) to ``t``: the first three one at a time to the
    step of the last, then the four together, four rows at a time (:func:`_block44`), then one row at a
    time (:func:`_dot4`: one read of the row of ``L`` for the four)."""
    low, wt, played = fac.low, fac.wt, fac.played
    s = fac.fresh[xs[3]]
    for k in range(3):
        _advance_one(fac, kern, xs[k], s)
    acc = np.empty((4, 4))
    w = np.empty(4)
    while s + 4 <= t:
        _block44(low, s, wt, xs, acc)
        for p in range(4):
            x = xs[p]
            for k in range(4):
                a = acc[k, p]
                for q in range(k):
                    a += low[s + k, s + q] * w[q]
                w[k] = (_kernel_value(kern, played[s + k], x) - a) / low[s + k, s + k]
            for k in range(4):
                _store(fac, x, s + k, w[k])
        s += 4
    while s < t:
        a4 = _dot4(low, s, wt, xs)
        d = low[s, s]
        for k in range(4):
            _store(fac, xs[k], s, (_kernel_value(kern, played[s], xs[k]) - a4[k]) / d)
        s += 1
    for k in range(4):
        fac.fresh[xs[k]] = t


@numba.njit(cache=True)
def lazy_advance(fac, kern, idx, t):
    """Every point of ``idx`` (repeats allowed) brought from ``fresh`` to ``t`` (:class:`LazyFactor`
    ``fac``, :class:`KernelSource` ``kern``); returns the number of entries of ``W`` computed.

    The stale points are ordered by their step (a counting sort, ``O(len(idx) + t)``) and go four at a time
    (:func:`_advance_four`; a remainder of up to three one at a time, :func:`_advance_one`)."""
    fresh = fac.fresh
    count = np.zeros(t + 1, dtype=np.int64)
    for a in range(idx.shape[0]):
        count[fresh[idx[a]]] += 1
    start = np.zeros(t + 1, dtype=np.int64)
    for u in range(1, t + 1):
        start[u] = start[u - 1] + count[u - 1]
    order = np.empty(start[t], dtype=np.int64)  # (the points at step t are up to date: left out)
    for a in range(idx.shape[0]):
        u = fresh[idx[a]]
        if u < t:
            order[start[u]] = idx[a]
            start[u] += 1
    done = 0
    quad = np.empty(4, dtype=np.int64)
    k = 0
    for a in range(order.shape[0]):  # (by increasing step)
        x = order[a]
        repeat = fresh[x] == t  # (a repeat: already brought up to date, or in this group of four)
        for j in range(k):
            repeat = repeat or quad[j] == x
        if repeat:
            continue
        quad[k] = x
        k += 1
        done += t - fresh[x]
        if k == 4:
            _advance_four(fac, kern, quad, t)
            k = 0
    for j in range(k):
        _advance_one(fac, kern, quad[j], t)
    return done
