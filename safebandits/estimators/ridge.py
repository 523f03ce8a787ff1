"""Online ridge regression with rank-one (Sherman--Morrison) updates.

Two estimators share the same numerics:

* :class:`OnlineRidge` -- general online ridge over arbitrary feature vectors (``update(x, y)`` in
  ``O(d^2)``, ``widths(X)`` for many vectors at once). Safe-LUCB style learners and stage-wise
  bandits with changing action sets reuse it.
* :class:`ArmRidge` -- ridge over a *fixed* arm matrix that also keeps, for every arm ``x_i``, the
  squared width ``||x_i||^2_{A^{-1}}`` and the prediction ``x_i^T theta_hat``, all updated by
  rank-one formulas in ``O(n d + d^2)`` per sample. Its per-sample kernel :func:`arm_ridge_update`
  is a module-level ``numba.njit`` function acting in place on the estimator's arrays, held by name in
  one :class:`ArmRidgeArrays` record, so a learner's ask / tell path and its compiled simulation loop
  call the very same code. With ``numerics="gram"`` it keeps the
  ``n x n`` matrix ``G = X A^{-1} X^T`` instead of ``A^{-1}`` (:func:`arm_gram_update`, ``O(n^2)``
  per sample; cheaper when ``n`` is not much larger than ``d``, see :func:`choose_numerics`);
  :func:`arm_state_update` and :func:`arm_state_refresh` dispatch on the numerics: compiled, by the
  class of the record (:class:`PrimalArrays`, :class:`GramArrays`, :class:`DiagonalArrays`), so that a
  kernel compiles the one numerics its run uses.

Both start from ``A_0 = reg * I`` and ``b_0 = 0``; ``theta_hat = A^{-1} b`` with
``A = reg I + sum_s x_s x_s^T`` and ``b = sum_s y_s x_s``. Rank-one updates accumulate rounding error,
so every ``refresh_every`` updates ``A^{-1}`` (or ``G``) is recomputed exactly from the per-arm counts
and sums (Cholesky of ``A``) and the derived quantities from it.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple, get_args

import numba
import numpy as np
from numba.extending import overload

from safebandits._validation import check_array, check_choice, check_int, check_positive
from safebandits.exceptions import ConfigError
from safebandits.types import ArmSetMixin, FloatArray

__all__ = [
    "ARRAYS_OF_NUMERICS",
    "NUMERICS",
    "ArmRidge",
    "ArmRidgeArrays",
    "DiagonalArrays",
    "GramArrays",
    "OnlineRidge",
    "PrimalArrays",
    "arm_axis",
    "arm_gram_arrays_step",
    "arm_gram_refresh",
    "arm_gram_update",
    "arm_ridge_refresh",
    "arm_ridge_step_fused",
    "arm_ridge_update",
    "arm_state_refresh",
    "arm_state_step",
    "arm_state_update",
    "cholesky_inverse",
    "choose_numerics",
    "is_axis_aligned",
    "normal_equations",
    "numerics_impl",
    "numerics_of_type",
    "transposed_matvec",
]

#: Numerics of :class:`ArmRidge`; the index is the code the compiled kernels take.
Numerics = Literal["primal", "gram", "diagonal"]
#: ``numerics`` of :class:`ArmRidge`: a :data:`Numerics` or ``"auto"``.
NumericsOrAuto = Literal["auto"] | Numerics
NUMERICS: tuple[str, ...] = get_args(Numerics)
PRIMAL, GRAM, DIAGONAL = 0, 1, 2


class ArmRidgeArrays(NamedTuple):
    """The arrays of an :class:`ArmRidge` that its compiled kernels update in place (never rebound).

    ``arms`` ``X`` (n, d) and ``arms_t`` its transpose stored C-contiguously; ``a_inv`` ``A^{-1}``
    (primal numerics; ``[diag(A); b]`` of shape (2, d) in diagonal numerics; empty in Gram numerics);
    ``theta`` ``theta_hat`` (empty in Gram numerics); ``gram`` ``G = X A^{-1} X^T`` (Gram numerics only,
    else empty); ``sq_widths`` ``||x_i||^2_{A^{-1}}`` and ``preds`` ``x_i^T theta_hat`` of every arm;
    ``counts``, ``sums`` the per-arm sufficient statistics; ``work_u`` (d,) and ``work_w`` (n,) work
    vectors of the rank-one updates.
    """

    arms: np.ndarray
    arms_t: np.ndarray
    a_inv: np.ndarray
    theta: np.ndarray
    gram: np.ndarray
    sq_widths: np.ndarray
    preds: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    work_u: np.ndarray
    work_w: np.ndarray


class PrimalArrays(ArmRidgeArrays):
    """:class:`ArmRidgeArrays` of the primal numerics (``A^{-1}`` and ``theta_hat`` kept)."""

    __slots__ = ()


class GramArrays(ArmRidgeArrays):
    """:class:`ArmRidgeArrays` of the Gram numerics (``G = X A^{-1} X^T`` kept)."""

    __slots__ = ()


class DiagonalArrays(ArmRidgeArrays):
    """:class:`ArmRidgeArrays` of the diagonal numerics (``[diag(A); b]`` in ``a_inv``)."""

    __slots__ = ()


#: The record class of each numerics (by code): compiled kernels taking one specialise on its class, so
#: a run compiles only its own numerics (a G-ACOL cold start compiled all three: 11.7 -> 5.9 s of its
#: compiled path, docs/decisions/engine.md).
ARRAYS_OF_NUMERICS: tuple[type[ArmRidgeArrays], ...] = (PrimalArrays, GramArrays, DiagonalArrays)
_CODE_OF_CLASS = {cls: code for code, cls in enumerate(ARRAYS_OF_NUMERICS)}


def is_axis_aligned(arms: FloatArray) -> bool:
    """Whether every arm has at most one non-zero coordinate (then ``A`` is diagonal).

    Examples
    --------
    >>> is_axis_aligned(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, -1.0]])), is_axis_aligned(np.ones((2, 2)))
    (True, False)
    """
    arms = np.asarray(arms)
    return bool(np.all(np.count_nonzero(arms, axis=1) <= 1))


def choose_numerics(n_arms: int, dim: int, lookahead: bool = False) -> str:
    """``"gram"`` if its per-sample cost is lower than the primal one, else ``"primal"``.

    Multiply-adds per sample: primal ``2 d^2 + n d`` (``A^{-1} x``, the rank-one update of ``A^{-1}``,
    ``X A^{-1} x``), Gram ``n^2`` (rank-one update of ``G``). A look-ahead selection (G-ACOL) also
    needs ``X A^{-1} y``: ``d^2 + n d`` more in primal, a row of ``G`` in Gram. Rule: Gram iff
    ``n^2 < 2 d^2 + n d`` (``n^2 < 3 d^2 + 2 n d`` with ``lookahead``); measured crossovers
    (``benchmarks/bench_acol.py``) agree within the timing noise.

    Examples
    --------
    >>> choose_numerics(11, 10), choose_numerics(100, 30), choose_numerics(75, 30, lookahead=True)
    ('gram', 'primal', 'gram')
    """
    primal = 2 * dim * dim + n_arms * dim
    if lookahead:
        primal += dim * dim + n_arms * dim
    return "gram" if n_arms * n_arms < primal else "primal"


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def cholesky_inverse(a: FloatArray, out: FloatArray) -> float:
    """Write ``a^{-1}`` into ``out`` for a symmetric positive-definite ``a``, via ``a = L L^T``, and
    return ``log det a = sum_i 2 log L_ii``.

    ``a^{-1} = L^{-T} L^{-1}``; ``L^{-1}`` by forward substitution. ``O(d^3)``; exactly symmetric.
    """
    d = a.shape[0]
    low = np.linalg.cholesky(a)
    logdet = 0.0
    for i in range(d):
        logdet += 2.0 * math.log(low[i, i])
    inv_low = np.zeros((d, d))
    for j in range(d):
        inv_low[j, j] = 1.0 / low[j, j]
        for i in range(j + 1, d):
            s = 0.0
            for k in range(j, i):
                s += low[i, k] * inv_low[k, j]
            inv_low[i, j] = -s / low[i, i]
    for i in range(d):
        for j in range(i, d):
            s = 0.0
            for k in range(j, d):
                s += inv_low[k, i] * inv_low[k, j]
            out[i, j] = s
            out[j, i] = s
    return logdet


@numba.njit(cache=True)
def _inverse_from_counts(
    arms: FloatArray, counts: FloatArray, sums: FloatArray, reg: float, a_inv: FloatArray, theta: FloatArray
) -> None:
    """``A^{-1}`` (Cholesky) and ``theta_hat = A^{-1} b`` from per-arm counts and sums, ``O(n d^2 + d^3)``."""
    d = arms.shape[1]
    a = np.empty((d, d))
    b = np.empty(d)
    normal_equations(arms, counts, sums, reg, a, b)
    cholesky_inverse(a, a_inv)
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += a_inv[i, j] * b[j]
        theta[i] = s


@numba.njit(cache=True)
def arm_ridge_refresh(r: ArmRidgeArrays, reg: float) -> None:
    """Exact recompute from per-arm counts and sums (primal numerics).

    ``A = reg I + sum_i n_i x_i x_i^T``, ``b = sum_i s_i x_i``; ``A^{-1}`` by Cholesky, then
    ``theta_hat = A^{-1} b``, every ``||x_i||^2_{A^{-1}}`` and every ``x_i^T theta_hat``. ``O(n d^2 + d^3)``.
    """
    arms, arms_t, a_inv, theta, sq_widths, preds = r.arms, r.arms_t, r.a_inv, r.theta, r.sq_widths, r.preds
    n, d = arms.shape
    _inverse_from_counts(arms, r.counts, r.sums, reg, a_inv, theta)
    # every arm's sums advance together, one term per pass over a row of X^T (issue 43: the passes
    # vectorise; each sum has the terms, order and bits of one arm at a time, as in arm_gram_refresh)
    p = np.zeros(n)
    w = np.zeros(n)
    s = np.empty(n)
    for i in range(d):
        ti = theta[i]
        for k in range(n):
            s[k] = 0.0
        for j in range(d):
            aij = a_inv[i, j]
            xj = arms_t[j]
            for k in range(n):
                s[k] += aij * xj[k]
        xi = arms_t[i]
        for k in range(n):
            p[k] += xi[k] * ti
            w[k] += xi[k] * s[k]
    for k in range(n):
        preds[k] = p[k]
        sq_widths[k] = w[k]


@numba.njit(cache=True)
def arm_gram_refresh(r: ArmRidgeArrays, reg: float) -> None:
    """Exact recompute of the Gram numerics from per-arm counts and sums.

    With ``A = L L^T`` (Cholesky), ``Z = L^{-1} X^T`` and ``z_b = L^{-1} b`` (forward substitution):
    ``G = X A^{-1} X^T = Z^T Z`` (exactly symmetric), ``x_i^T theta_hat = (Z^T z_b)_i`` and
    ``||x_i||^2_{A^{-1}} = G_ii``. ``O(n d^2 + n^2 d + d^3)``.

    Every sum runs over its terms in a fixed order from its first term (``Z``: ``x_{k,i} - sum_{m < i}
    L_{im} Z_{mk}``, ``G``: ``sum_i Z_{ik} Z_{im}`` from 0.0) and the sums of several arms advance together,
    one term of each per pass over a contiguous row (issue 43): the passes vectorise, while one sum at a
    time is a chain of dependent additions; each sum is the same, term by term (no contraction into FMA:
    numba without fastmath), so the bits are those of one sum at a time.
    """
    arms, arms_t, gram, sq_widths, preds = r.arms, r.arms_t, r.gram, r.sq_widths, r.preds
    n, d = arms.shape
    a = np.empty((d, d))
    b = np.empty(d)
    normal_equations(arms, r.counts, r.sums, reg, a, b)
    low = np.linalg.cholesky(a)
    z = np.empty((d, n))
    zb = np.empty(d)
    acc = np.empty(n)
    for i in range(d):
        li = 1.0 / low[i, i]
        s = b[i]
        for m in range(i):
            s -= low[i, m] * zb[m]
        zb[i] = s * li
        for k in range(n):
            acc[k] = arms_t[i, k]
        for m in range(i):
            lim = low[i, m]
            for k in range(n):
                acc[k] -= lim * z[m, k]
        for k in range(n):
            z[i, k] = acc[k] * li
    for k in range(n):
        acc[k] = 0.0
    for i in range(d):
        zbi = zb[i]
        for k in range(n):
            acc[k] += z[i, k] * zbi
    for k in range(n):
        preds[k] = acc[k]
    for k in range(n):
        row = acc[k:]  # (row[m - k] = G_km for m >= k; a loop from 0 over a slice vectorises, one from k not)
        for m in range(row.shape[0]):
            row[m] = 0.0
        for i in range(d):
            zik = z[i, k]
            zi = z[i, k:]
            for m in range(row.shape[0]):
                row[m] += zik * zi[m]
        for m in range(k, n):
            gram[k, m] = acc[m]
            gram[m, k] = acc[m]
        sq_widths[k] = gram[k, k]


@numba.njit(cache=True, inline="always")
def transposed_matvec(mat_t: FloatArray, v: FloatArray, out: FloatArray) -> None:
    """``out[k] = sum_j mat_t[j, k] v[j]``: each sum from ``0.0`` in the order ``j = 0, 1, ...``, as the
    ``axpy`` loops ``out[k] = 0; out[k] += mat_t[j, k] v[j]`` (the same bits), four terms of every sum per
    pass over ``out`` instead of one (a quarter of its loads and stores; the passes vectorise over ``k``,
    each element's sum in its own order). ``mat_t`` is (d, n) C-contiguous: ``X^T`` for ``X v`` or a
    symmetric ``A^{-1}`` for ``A^{-1} v``. Issue 43: 1.3-1.4x on the products of 30 x 30 to 100 x 30."""
    d, n = mat_t.shape
    for k in range(n):  # (the first term, or 0.0 when d = 0; no early return: reference counts)
        out[k] = 0.0 + mat_t[0, k] * v[0] if d > 0 else 0.0
    j = 1
    while j + 4 <= d:
        v0, v1, v2, v3 = v[j], v[j + 1], v[j + 2], v[j + 3]
        for k in range(n):
            s = out[k] + mat_t[j, k] * v0
            s = s + mat_t[j + 1, k] * v1
            s = s + mat_t[j + 2, k] * v2
            out[k] = s + mat_t[j + 3, k] * v3
        j += 4
    while j < d:
        v0 = v[j]
        for k in range(n):
            out[k] += mat_t[j, k] * v0
        j += 1


@numba.njit(cache=True, inline="always")
def sherman_morrison_update(inv: FloatArray, x: FloatArray, u: FloatArray) -> float:
    """Rank-one update of a symmetric inverse: ``u <- inv x``, ``c = 1 + x^T u``,
    ``inv <- inv - u u^T / c``; returns ``c``.

    The loops are ``axpy`` updates (no reductions) and the outer product is formed from ``u / sqrt(c)``
    on both sides, so ``inv`` stays exactly symmetric and every caller gets the same bits. The
    stage-wise estimators write the same operations out in functions of their record
    (:func:`~safebandits.estimators.stagewise._reward_step`: no reference counts).
    """
    return sherman_morrison_n(inv, x, u, x.shape[0])


@numba.njit(cache=True, inline="always")
def sherman_morrison_n(inv: FloatArray, x: FloatArray, u: FloatArray, n: int) -> float:
    """:func:`sherman_morrison_update` with the length ``n = len(x)`` given: a caller that knows it at
    compile time gets loops of constant length, which the compiler unrolls (the same operations)."""
    for i in range(n):
        u[i] = 0.0
    for j in range(n):
        xj = x[j]
        for i in range(n):
            u[i] += inv[j, i] * xj
    c = 1.0
    for i in range(n):
        c += x[i] * u[i]
    rs = 1.0 / math.sqrt(c)
    for i in range(n):
        vi = u[i] * rs
        for j in range(n):
            inv[i, j] -= vi * (u[j] * rs)
    return c


@numba.njit(cache=True)
def arm_ridge_update(r: ArmRidgeArrays, arm: int, y: float) -> None:
    """Add one observation ``y`` of arm ``arm`` in place (:func:`arm_ridge_step`, compiled apart)."""
    arm_ridge_step(r, arm, y)


@numba.njit(cache=True, inline="always")
def arm_ridge_step(r: ArmRidgeArrays, arm: int, y: float) -> None:
    """Add one observation ``y`` of arm ``arm`` in place (Sherman--Morrison), ``O(n d + d^2)``.

    With ``x = arms[arm]``, ``u = A^{-1} x``, ``c = 1 + x^T u`` and ``w_i = x_i^T u``:

    * ``A^{-1} <- A^{-1} - u u^T / c``,
    * ``theta_hat <- theta_hat + u (y - x^T theta_hat) / c`` (recursive least squares),
    * ``||x_i||^2_{A^{-1}} <- ||x_i||^2_{A^{-1}} - w_i^2 / c`` and
      ``x_i^T theta_hat <- x_i^T theta_hat + w_i (y - x^T theta_hat) / c`` for every arm,
    * ``counts[arm] += 1`` and ``sums[arm] += y`` (sufficient statistics for exact refreshes).

    ``arms_t`` is ``arms.T`` stored C-contiguously: all loops are written as ``axpy`` updates
    (no floating-point reductions), so they vectorise without reassociation and give the same bits
    whichever caller (Python or a compiled loop) runs them.
    """
    arms, arms_t, a_inv, theta, sq_widths, preds = r.arms, r.arms_t, r.a_inv, r.theta, r.sq_widths, r.preds
    counts, sums, work_u, work_w = r.counts, r.sums, r.work_u, r.work_w
    n, d = arms.shape
    c = sherman_morrison_update(a_inv, arms[arm], work_u)
    coef = (y - preds[arm]) / c
    rs = 1.0 / np.sqrt(c)
    counts[arm] += 1.0
    sums[arm] += y
    for i in range(d):
        theta[i] += coef * work_u[i]
    for k in range(n):
        work_w[k] = 0.0
    for j in range(d):
        uj = work_u[j]
        for k in range(n):
            work_w[k] += arms_t[j, k] * uj
    for k in range(n):
        wk = work_w[k] * rs
        sq_widths[k] -= wk * wk
        preds[k] += coef * work_w[k]


@numba.njit(cache=True, inline="always")
def arm_ridge_step_fused(r: ArmRidgeArrays, arm: int, y: float) -> None:
    """:func:`arm_ridge_step` with ``w = X u`` by :func:`transposed_matvec` (four terms per pass): the
    same operations in the same order for every element, so the same bits; 1.3-1.4x on ``X u`` at
    70 x 30 to 100 x 30. The ACOL family's inlined per-sample step (:func:`arm_state_step`, issue 43);
    :func:`arm_ridge_step` keeps the ``axpy`` loops for the steps compiled apart and for Safe-LUCB,
    whose cold compile the vectorised passes lengthened by about 1 s per inlined copy."""
    arms_t, theta, sq_widths, preds = r.arms_t, r.theta, r.sq_widths, r.preds
    counts, sums, work_u, work_w = r.counts, r.sums, r.work_u, r.work_w
    n, d = r.arms.shape
    c = sherman_morrison_update(r.a_inv, r.arms[arm], work_u)
    coef = (y - preds[arm]) / c
    rs = 1.0 / np.sqrt(c)
    counts[arm] += 1.0
    sums[arm] += y
    for i in range(d):
        theta[i] += coef * work_u[i]
    transposed_matvec(arms_t, work_u, work_w)  # w = X u
    for k in range(n):
        wk = work_w[k] * rs
        sq_widths[k] -= wk * wk
        preds[k] += coef * work_w[k]


@numba.njit(cache=True)
def arm_gram_update(r: ArmRidgeArrays, arm: int, y: float) -> None:
    """Add one observation ``y`` of arm ``arm`` to the Gram numerics (:func:`arm_gram_step`)."""
    arm_gram_step(r, arm, y)


@numba.njit(cache=True, inline="always")
def arm_gram_step(r: ArmRidgeArrays, arm: int, y: float) -> None:
    """Add one observation ``y`` of arm ``arm`` to the Gram numerics in place, ``O(n^2)``.

    The kernel (dual) form of :func:`arm_ridge_update`: with ``G = X A^{-1} X^T``, the vector
    ``w = X A^{-1} x`` is the column ``G[:, arm]`` and ``c = 1 + G[arm, arm]``, so

    * ``G <- G - w w^T / c`` (written as ``(w / sqrt c)(w / sqrt c)^T``: exactly symmetric),
    * ``x_i^T theta_hat <- x_i^T theta_hat + w_i (y - x^T theta_hat) / c``,
    * ``||x_i||^2_{A^{-1}} <- G_ii``, and the counts and sums as in :func:`arm_ridge_update`.

    ``A^{-1}`` and ``theta_hat`` are not maintained (recompute them from counts and sums).
    """
    arm_gram_arrays_step(r.gram, r.sq_widths, r.preds, r.counts, r.sums, r.work_w, arm, y)


@numba.njit(cache=True, inline="always")
def arm_gram_arrays_step(gram, sq_widths, preds, counts, sums, work_w, arm, y):
    """:func:`arm_gram_step` on the arrays of an :class:`ArmRidgeArrays` (compiled per-sample loops)."""
    n = gram.shape[0]
    for k in range(n):
        work_w[k] = gram[arm, k]
    c = 1.0 + work_w[arm]
    coef = (y - preds[arm]) / c
    rs = 1.0 / np.sqrt(c)
    for i in range(n):
        vi = work_w[i] * rs
        for j in range(n):
            gram[i, j] -= vi * (work_w[j] * rs)
    # (every array is last used in this loop and below: numba's reference-count pruning removes the
    # counts of arrays that live to the end together; an array dying early keeps the others' counts)
    for k in range(n):
        preds[k] += coef * work_w[k]
        work_w[k] *= rs
        sq_widths[k] = gram[k, k]
    counts[arm] += 1.0
    sums[arm] += y


@numba.njit(cache=True)
def normal_equations(
    arms: FloatArray, counts: FloatArray, sums: FloatArray, reg: float, a: FloatArray, b: FloatArray
):
    """Write ``A = reg I + sum_i n_i x_i x_i^T`` into ``a`` and ``b = sum_i s_i x_i`` into ``b``."""
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
            # (a[i, j] for j >= i over slices from 0: the loop vectorises, 3x faster at d = 100 than one
            # from i; the same terms in the same order)
            ai = a[i, i:]
            xk = arms[k, i:]
            for j in range(ai.shape[0]):
                ai[j] += nk * xi * xk[j]
    for i in range(d):
        for j in range(i + 1, d):
            a[j, i] = a[i, j]


@numba.njit(cache=True, inline="always")
def arm_axis(arms, k):
    """Index of the non-zero coordinate of arm ``k`` (-1 for a zero arm); diagonal numerics."""
    for j in range(arms.shape[1]):
        if arms[k, j] != 0.0:
            return j
    return -1


@numba.njit(cache=True, inline="always")
def _diag_coordinate_state(r, j):
    """``theta_j = b_j / A_jj``, then the width and prediction of every arm along coordinate ``j``."""
    arms, state, theta, sq_widths, preds = r.arms, r.a_inv, r.theta, r.sq_widths, r.preds
    inv = 1.0 / state[0, j]
    th = state[1, j] * inv
    theta[j] = th
    for i in range(arms.shape[0]):
        xi = arms[i, j]
        if xi != 0.0:
            sq_widths[i] = xi * xi * inv
            preds[i] = xi * th


@numba.njit(cache=True, inline="always")
def arm_diag_update(r, arm, y):
    """Add one observation ``y`` of arm ``arm`` when every arm has at most one non-zero coordinate.

    ``A`` is then diagonal: ``state = [diag(A); b]``, and a pull of ``x = v e_j`` changes only
    ``A_jj += v^2``, ``b_j += v y``, ``theta_j`` and the arms along ``e_j``; ``O(n + d)`` and free of
    rounding drift. ``r.a_inv`` holds ``[diag(A); b]``.
    """
    arms, state = r.arms, r.a_inv
    r.counts[arm] += 1.0
    r.sums[arm] += y
    j = arm_axis(arms, arm)
    if j < 0:
        return
    v = arms[arm, j]
    state[0, j] += v * v
    state[1, j] += v * y
    _diag_coordinate_state(r, j)


@numba.njit(cache=True)
def arm_diag_refresh(r, reg):
    """Exact recompute of the diagonal numerics from per-arm counts and sums, ``O(n d)``."""
    arms, state, counts, sums = r.arms, r.a_inv, r.counts, r.sums
    n, d = arms.shape
    for j in range(d):
        state[0, j] = reg
        state[1, j] = 0.0
    for k in range(n):
        j = arm_axis(arms, k)
        if j >= 0:
            v = arms[k, j]
            state[0, j] += counts[k] * v * v
            state[1, j] += sums[k] * v
    for j in range(d):
        _diag_coordinate_state(r, j)


def _runtime_update(numerics, r, arm, y):
    if numerics == GRAM:
        arm_gram_step(r, arm, y)
    elif numerics == DIAGONAL:
        arm_diag_update(r, arm, y)
    else:
        arm_ridge_step(r, arm, y)


def _runtime_refresh(numerics, r, reg):
    if numerics == GRAM:
        arm_gram_refresh(r, reg)
    elif numerics == DIAGONAL:
        arm_diag_refresh(r, reg)
    else:
        arm_ridge_refresh(r, reg)


def arm_state_update(numerics: int, r: ArmRidgeArrays, arm: int, y: float) -> None:
    """One observation ``y`` of ``arm`` on the arrays ``r`` (:class:`ArmRidgeArrays`) with their numerics:
    the single entry point of :class:`ArmRidge` and of the learners' compiled kernels.

    Compiled, the numerics is read from the record's class (:class:`PrimalArrays`, :class:`GramArrays`,
    :class:`DiagonalArrays`): only that numerics' step is compiled into the caller. A plain
    :class:`ArmRidgeArrays` record dispatches on the code ``numerics`` (:data:`NUMERICS`) at run time.
    State arrays the numerics does not use may be empty.
    """
    _state_update_entry(numerics, r, arm, y)


def arm_state_step(numerics: int, r: ArmRidgeArrays, arm: int, y: float) -> None:
    """:func:`arm_state_update` with the numerics' step inlined into the compiled caller."""
    _state_update_entry(numerics, r, arm, y)


def arm_state_refresh(numerics: int, r: ArmRidgeArrays, reg: float) -> None:
    """Exact recompute of ``r`` (:class:`ArmRidgeArrays`) from its counts and sums with ridge ``reg``, the
    numerics chosen as in :func:`arm_state_update`."""
    _state_refresh_entry(numerics, r, reg)


def numerics_impl(r: Any, impls: tuple[Any, Any, Any], runtime: Any) -> Any:
    """In an ``overload``'s typing function, the implementation for a record of numba type ``r``:
    ``impls[code]`` (primal, Gram, diagonal) for a record of a numerics' own class, ``runtime`` (all
    three, chosen by the code at run time) for a plain :class:`ArmRidgeArrays`."""
    code = numerics_of_type(r)
    return runtime if code is None else impls[code]


def numerics_of_type(r: Any) -> int | None:
    """The numerics code of a record of numba type ``r`` (in an ``overload``'s typing function): that of
    its class (:data:`ARRAYS_OF_NUMERICS`), or ``None`` for a plain :class:`ArmRidgeArrays` (any)."""
    return _CODE_OF_CLASS.get(getattr(r, "instance_class", None))


@overload(arm_state_update, inline="always")
def _overload_state_update(numerics, r, arm, y):
    # (the primal and Gram steps as functions of their own: called with a record by reference, one
    # reference count, and the arrays they bind cost none; inlined, each array they bind costs one)
    def primal(numerics, r, arm, y):
        arm_ridge_update(r, arm, y)

    def gram(numerics, r, arm, y):
        arm_gram_update(r, arm, y)

    def diagonal(numerics, r, arm, y):
        arm_diag_update(r, arm, y)

    return numerics_impl(r, (primal, gram, diagonal), _runtime_update)


@overload(arm_state_step, inline="always")
def _overload_state_step(numerics, r, arm, y):
    def primal(numerics, r, arm, y):
        arm_ridge_step_fused(r, arm, y)

    def gram(numerics, r, arm, y):
        arm_gram_step(r, arm, y)

    def diagonal(numerics, r, arm, y):
        arm_diag_update(r, arm, y)

    return numerics_impl(r, (primal, gram, diagonal), _runtime_update)


@overload(arm_state_refresh, jit_options={"no_cpython_wrapper": True, "no_cfunc_wrapper": True})
def _overload_state_refresh(numerics, r, reg):
    def primal(numerics, r, reg):
        arm_ridge_refresh(r, reg)

    def gram(numerics, r, reg):
        arm_gram_refresh(r, reg)

    def diagonal(numerics, r, reg):
        arm_diag_refresh(r, reg)

    return numerics_impl(r, (primal, gram, diagonal), _runtime_refresh)


@numba.njit(cache=True)
def _state_update_entry(numerics, r, arm, y):
    arm_state_update(numerics, r, arm, y)


@numba.njit(cache=True)
def _state_refresh_entry(numerics, r, reg):
    arm_state_refresh(numerics, r, reg)


# --------------------------------------------------------------------------------------------------
# arm-tracking estimator
# --------------------------------------------------------------------------------------------------
class ArmRidge(ArmSetMixin):
    """Ridge regression over a fixed arm matrix, tracking every arm's width and prediction.

    Parameters
    ----------
    arms : array-like of shape (n_arms, d)
        Feature vectors ``x_i`` (rows).
    reg : float > 0
        Ridge regulariser ``lambda`` (``A_0 = lambda I``).
    refresh_every : int >= 0
        Recompute everything exactly from the per-arm counts and sums every this many rank-one updates
        (0: never).
    numerics : {"primal", "gram", "diagonal", "auto"}, default "primal"
        ``"primal"``: keep ``A^{-1}`` (``d x d``) and ``theta_hat``, ``O(n d + d^2)`` per update
        (:func:`arm_ridge_update`). ``"gram"``: keep ``G = X A^{-1} X^T`` (``n x n``) instead,
        ``O(n^2)`` per update (:func:`arm_gram_update`); ``A^{-1}`` and ``theta_hat`` are then
        recomputed from the counts and sums on every access (``O(n d^2 + d^3)``). ``"diagonal"``:
        only for arms with at most one non-zero coordinate each (:func:`is_axis_aligned`), where ``A``
        is diagonal: keep ``[diag(A); b]`` and ``theta_hat``, ``O(n + d)`` per update
        (:func:`arm_diag_update`). ``"auto"``: ``"diagonal"`` for axis-aligned arms, else
        :func:`choose_numerics`. All give the same quantities up to rounding.
    check_input : bool, default True
        ``False`` skips the checks of the arguments (as scikit-learn's ``check_input``): for a caller
        that already checked them (finite float64 C-contiguous ``arms`` of at least one row, ``reg > 0``,
        an integer ``refresh_every >= 0``, a known ``numerics``).

    Attributes
    ----------
    numerics : str
        ``"primal"`` or ``"gram"`` (``"auto"`` resolved).
    a_inv : ndarray of shape (d, d)
        Inverse design matrix ``A^{-1}`` (:attr:`a` and :attr:`b` are computed on demand). Primal: the
        live state array, updated in place; Gram: a fresh array computed on access.
    theta_hat : ndarray of shape (d,)
        ``A^{-1} b``; live (primal) or computed on access (Gram), as :attr:`a_inv`.
    gram : ndarray of shape (n_arms, n_arms)
        ``X A^{-1} X^T`` (Gram numerics; empty in primal numerics).
    a_inv_state, theta_state : ndarray
        The arrays the kernels update: ``A^{-1}`` and ``theta_hat`` in primal numerics, empty in Gram,
        ``[diag(A); b]`` (shape ``(2, d)``) and ``theta_hat`` in diagonal numerics.
    counts, sums : ndarray of shape (n_arms,)
        Number of observations of each arm and their sum: the sufficient statistics.
    sq_widths : ndarray of shape (n_arms,)
        ``||x_i||^2_{A^{-1}}`` (rank-one updated; may dip below zero by rounding, see :attr:`widths`).
    preds : ndarray of shape (n_arms,)
        ``x_i^T theta_hat``.
    n_updates : int
        Rank-one updates since construction or the last :meth:`set_counts`.

    Examples
    --------
    >>> r = ArmRidge(np.eye(2), reg=1.0)
    >>> r.update(0, 2.0)
    >>> r.preds.round(3).tolist(), r.sq_widths.round(3).tolist()
    ([1.0, 0.0], [0.5, 1.0])
    """

    def __init__(
        self,
        arms: FloatArray,
        reg: float,
        refresh_every: int = 1000,
        numerics: NumericsOrAuto = "primal",
        *,
        check_input: bool = True,
    ) -> None:
        if check_input:
            self.arms = check_array(arms, "arms", ndim=2, min_rows=1, owner="ArmRidge")
            self.reg = check_positive(reg, "reg", owner="ArmRidge")
            self.refresh_every = check_int(refresh_every, "refresh_every", low=0, owner="ArmRidge")
            check_choice(numerics, "numerics", NumericsOrAuto, owner="ArmRidge")
        else:  # (the caller's arms: float64 C-contiguous (n, d), n >= 1; reg > 0; refresh_every >= 0)
            self.arms, self.reg, self.refresh_every = arms, float(reg), int(refresh_every)
        n, d = self.arms.shape
        if numerics == "auto":
            numerics = "diagonal" if is_axis_aligned(self.arms) else choose_numerics(n, d)
        elif numerics == "diagonal" and not is_axis_aligned(self.arms):
            raise ConfigError(
                "The 'numerics' parameter of ArmRidge is 'diagonal', which needs arms with at most one "
                "non-zero coordinate each; use 'primal', 'gram' or 'auto'."
            )
        self.numerics = numerics
        self.numerics_code = NUMERICS.index(self.numerics)
        gram = self.numerics == "gram"
        if self.numerics == "diagonal":
            self.a_inv_state = np.vstack([np.full(d, self.reg), np.zeros(d)])
        else:
            self.a_inv_state = np.zeros((0, 0)) if gram else np.eye(d) / self.reg
        self.theta_state = np.zeros(0 if gram else d)
        self.gram = np.zeros((n, n) if gram else (0, 0))
        self.counts = np.zeros(n)
        self.sums = np.zeros(n)
        self.sq_widths = np.einsum("ij,ij->i", self.arms, self.arms) / self.reg
        self.preds = np.zeros(n)
        self.arms_t = np.ascontiguousarray(self.arms.T)
        self.work_u = np.zeros(0 if gram else d)
        self.work_w = np.zeros(n)
        self.n_updates = 0
        #: The arrays the compiled kernels update, by name (:class:`ArmRidgeArrays`; never rebound).
        self.arrays = ARRAYS_OF_NUMERICS[self.numerics_code](
            self.arms, self.arms_t, self.a_inv_state, self.theta_state, self.gram, self.sq_widths,
            self.preds, self.counts, self.sums, self.work_u, self.work_w,
        )  # fmt: skip
        if gram:
            # G_0 = X X^T / reg with the diagonal of the primal widths, bit for bit (initial widths are
            # often tied, e.g. on the unit sphere: both numerics must break the tie alike)
            g0 = (self.arms @ self.arms_t) / self.reg
            self.gram[:] = 0.5 * (g0 + g0.T)
            self.gram[np.diag_indices(n)] = self.sq_widths

    @property
    def widths(self) -> FloatArray:
        """``||x_i||_{A^{-1}}`` of every arm (clipped at 0 against rounding)."""
        return np.sqrt(np.maximum(self.sq_widths, 0.0))

    @property
    def a_inv(self) -> FloatArray:
        """``A^{-1}``: the live state (primal) or computed from counts and sums (Gram)."""
        return self._inverse()[0]

    @property
    def theta_hat(self) -> FloatArray:
        """``theta_hat = A^{-1} b``: the live state (primal) or computed from counts and sums (Gram)."""
        return self._inverse()[1]

    def _inverse(self) -> tuple[FloatArray, FloatArray]:
        if self.numerics == "primal":
            return self.a_inv_state, self.theta_state
        d = self.dim
        a_inv, theta = np.empty((d, d)), np.empty(d)
        _inverse_from_counts(self.arms, self.counts, self.sums, self.reg, a_inv, theta)
        return a_inv, theta

    @property
    def a(self) -> FloatArray:
        """Design matrix ``A = reg I + sum_i n_i x_i x_i^T``."""
        return self._gram()[0]

    @property
    def b(self) -> FloatArray:
        """``sum_s y_s x_s``."""
        return self._gram()[1]

    def _gram(self) -> tuple[FloatArray, FloatArray]:
        d = self.dim
        a, b = np.empty((d, d)), np.empty(d)
        normal_equations(self.arms, self.counts, self.sums, self.reg, a, b)
        return a, b

    def update(self, arm: int, y: float) -> None:
        """Add one observation ``y`` of arm ``arm`` (``O(n d + d^2)`` primal, ``O(n^2)`` Gram)."""
        arm_state_update(self.numerics_code, self.arrays, int(arm), float(y))
        self.n_updates += 1
        if self.refresh_every and self.n_updates % self.refresh_every == 0:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the state (``A^{-1}``, ``theta_hat`` or ``G``), widths and predictions exactly."""
        arm_state_refresh(self.numerics_code, self.arrays, self.reg)

    def set_counts(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Replace all data by per-arm counts and sums and recompute exactly.

        ``A = reg I + sum_i n_i x_i x_i^T``, ``b = sum_i s_i x_i``, ``theta_hat = A^{-1} b``; the round
        estimate of ACOL (Algorithm 1) and Algorithm 3.

        Parameters
        ----------
        counts : array-like of shape (n_arms,)
            Number of observations of each arm.
        sums : array-like of shape (n_arms,)
            Sum of the observations of each arm.
        """
        n = self.n_arms
        c = check_array(counts, "counts", shape=(n,), owner="ArmRidge.set_counts")
        s = check_array(sums, "sums", shape=(n,), owner="ArmRidge.set_counts")
        if np.any(c < 0):
            raise ConfigError("The 'counts' parameter of ArmRidge.set_counts must be non-negative.")
        self.counts[:] = c
        self.sums[:] = s
        self.refresh()
        self.n_updates = 0


# --------------------------------------------------------------------------------------------------
# general estimator
# --------------------------------------------------------------------------------------------------
class OnlineRidge:
    """Online ridge regression over arbitrary feature vectors.

    Parameters
    ----------
    dim : int
        Feature dimension ``d``.
    reg : float > 0
        Ridge regulariser ``lambda`` (``A_0 = lambda I``).
    refresh_every : int >= 0
        Recompute ``A^{-1}`` exactly (Cholesky) every this many rank-one updates (0: never).

    Attributes
    ----------
    a, a_inv : ndarray of shape (d, d)
    b : ndarray of shape (d,)
    theta_hat : ndarray of shape (d,)
    n_updates : int
        Rank-one updates since the last exact refresh.

    Examples
    --------
    >>> r = OnlineRidge(2, reg=1.0)
    >>> r.update(np.array([1.0, 0.0]), 2.0)
    >>> r.theta_hat.tolist(), r.widths(np.eye(2)).round(4).tolist()
    ([1.0, 0.0], [0.7071, 1.0])
    """

    def __init__(self, dim: int, reg: float, refresh_every: int = 1000) -> None:
        self.dim = check_int(dim, "dim", low=1, owner="OnlineRidge")
        self.reg = check_positive(reg, "reg", owner="OnlineRidge")
        self.refresh_every = check_int(refresh_every, "refresh_every", low=0, owner="OnlineRidge")
        self.a = self.reg * np.eye(self.dim)
        self.a_inv = np.eye(self.dim) / self.reg
        self.b = np.zeros(self.dim)
        self.theta_hat = np.zeros(self.dim)
        self.n_updates = 0
        self.n_samples = 0

    def update(self, x: FloatArray, y: float) -> None:
        """Add one observation ``(x, y)`` by Sherman--Morrison, ``O(d^2)``."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (self.dim,):
            raise ConfigError(
                f"The 'x' parameter of OnlineRidge.update must have shape ({self.dim},). "
                f"Got shape {x.shape} instead."
            )
        u = self.a_inv @ x
        c = 1.0 + float(x @ u)
        self.theta_hat += u * ((float(y) - float(x @ self.theta_hat)) / c)
        self.a_inv -= np.outer(u, u) / c
        self.a += np.outer(x, x)
        self.b += float(y) * x
        self.n_samples += 1
        self.n_updates += 1
        if self.refresh_every and self.n_updates >= self.refresh_every:
            self.refresh()

    def update_batch(self, features: FloatArray, y: FloatArray) -> None:
        """Add many observations at once (rows of ``features``) and refresh exactly."""
        x = check_array(features, "features", ndim=2, owner="OnlineRidge.update_batch")
        if x.shape[1] != self.dim:
            raise ConfigError(
                f"The 'features' parameter of OnlineRidge.update_batch must have {self.dim} columns. "
                f"Got shape {x.shape} instead."
            )
        yy = check_array(y, "y", shape=(x.shape[0],), owner="OnlineRidge.update_batch")
        self.add_sums(x.T @ x, x.T @ yy, n_samples=x.shape[0])

    def add_sums(self, gram: FloatArray, xy: FloatArray, n_samples: int = 0) -> None:
        """Add sufficient statistics ``sum x x^T`` and ``sum y x`` and refresh exactly."""
        self.a += np.asarray(gram, dtype=np.float64)
        self.b += np.asarray(xy, dtype=np.float64)
        self.n_samples += int(n_samples)
        self.refresh()

    def refresh(self) -> None:
        """Recompute ``A^{-1}`` by Cholesky and ``theta_hat = A^{-1} b``."""
        cholesky_inverse(self.a, self.a_inv)
        self.theta_hat = self.a_inv @ self.b
        self.n_updates = 0

    def predict(self, features: FloatArray) -> FloatArray:
        """``x^T theta_hat`` for every row ``x`` of ``features``."""
        return np.asarray(features, dtype=np.float64) @ self.theta_hat

    def widths(self, features: FloatArray) -> FloatArray:
        """``||x||_{A^{-1}}`` for every row ``x`` of ``features`` (vectorised)."""
        x = np.asarray(features, dtype=np.float64)
        sq = np.einsum("ij,ij->i", x @ self.a_inv, x) if x.ndim == 2 else np.array(x @ self.a_inv @ x)
        return np.sqrt(np.maximum(sq, 0.0))
