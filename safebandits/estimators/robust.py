"""Robust and least-squares estimators of linear functionals from designed experiments.

* :func:`catoni_mean` -- Catoni's (2012) M-estimator of a mean with influence function
  ``psi(u) = sign(u) log(1 + |u| + u^2 / 2)``: the root of ``sum_t psi(alpha (a_t - m)) = 0`` with

      alpha = sqrt(2 L / (n v (1 + 2 L / (n - 2 L)))),   L = log(1 / delta),

  which satisfies ``|m_hat - mean| <= sqrt(2 v L / (n - 2 L))`` with probability at least
  ``1 - 2 delta`` whenever the second moment proxy ``v`` bounds the variance and ``n > 2 L``
  (:func:`catoni_width`).
* :func:`rips` -- RIPS, robust inverse propensity scores (Camilleri, Katz-Samuels & Jamieson, ICML 2021;
  used by BESIDE, Camilleri et al. 2022, Algorithm 1 line 8 and eq. (2)). For observations
  ``y_t = theta^T x_t + noise`` with ``x_t ~ lambda`` i.i.d. and ``A = A(lambda) = sum_x lambda_x x x^T``
  (the *design's* matrix), ``a_t = v^T A^+ x_t y_t`` is unbiased for ``v^T theta`` with second moment at
  most ``(B^2 + sigma^2) ||v||^2_{A^{-1}}``; the Catoni mean of ``a_t`` estimates ``v^T theta`` for every
  target ``v``. The optional argmin-theta linear program of RIPS is skipped: BESIDE only needs the
  target functionals (digest 2.3, "practical simplification").
* :func:`ols` -- ordinary least squares on per-arm counts and sums with sub-Gaussian widths
  ``sigma ||v||_{A_n^{-1}} sqrt(2 log(2 k / delta))``, ``A_n = sum_x n_x x x^T`` (``estimator="ols"``).

Batches arrive as per-arm sums (exact in law). RIPS needs the individual observations; with Gaussian
noise of known ``sigma`` the observations of one arm given their sum are ``S / n + sigma (e - mean(e))``,
``e`` standard normal (the residuals are ancillary), so :func:`gaussian_bridge` draws them exactly in
law from the learner's generator (``docs/decisions/beside.md``, "RIPS on batch sums").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from safebandits._validation import check_array, check_interval, check_positive
from safebandits.exceptions import CannotStartError, Fix
from safebandits.types import FloatArray, IntArray

__all__ = [
    "LinearEstimate",
    "catoni_alpha",
    "catoni_mean",
    "catoni_width",
    "design_pinv",
    "gaussian_bridge",
    "ols",
    "rips",
]

_EIG_RTOL = 1e-10


def _log_inv(delta: float) -> float:
    return math.log(1.0 / delta)


def catoni_alpha(n: int, variance: float, delta: float) -> float:
    """Catoni's scale ``alpha`` for ``n`` samples, variance proxy ``variance`` and level ``delta``.

    Examples
    --------
    >>> round(catoni_alpha(100, 1.0, 0.05), 4)
    0.2325
    """
    lg = _log_inv(delta)
    if n <= 2.0 * lg:
        return math.sqrt(2.0 * lg / (n * variance))
    return math.sqrt(2.0 * lg / (n * variance * (1.0 + 2.0 * lg / (n - 2.0 * lg))))


def catoni_width(n: int | FloatArray, variance: float | FloatArray, delta: float) -> FloatArray:
    """Deviation bound ``sqrt(2 v log(1/delta) / (n - 2 log(1/delta)))`` (probability ``1 - 2 delta``).

    ``inf`` where ``n <= 2 log(1 / delta)``.

    Examples
    --------
    >>> float(np.round(catoni_width(100, 1.0, 0.05), 4))
    0.2579
    """
    lg = _log_inv(delta)
    n_arr = np.asarray(n, dtype=np.float64)
    denom = n_arr - 2.0 * lg
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(
            denom > 0.0, np.sqrt(2.0 * np.asarray(variance) * lg / np.maximum(denom, 1e-300)), np.inf
        )
    return out


@numba.njit(cache=True, inline="always")
def _psi(u: float) -> float:
    a = abs(u)
    v = math.log1p(a + 0.5 * a * a)
    return v if u >= 0.0 else -v


@numba.njit(cache=True, inline="always")
def _dpsi(u: float) -> float:
    a = abs(u)
    return (1.0 + a) / (1.0 + a + 0.5 * a * a)


@numba.njit(cache=True)
def _catoni_grouped(
    y: FloatArray, offsets: IntArray, coef: FloatArray, alpha: FloatArray, out: FloatArray
) -> None:
    """Catoni means of ``a_t = coef[j, g(t)] * y_t`` for every row ``j`` of ``coef``.

    Samples are grouped: those of group ``g`` are ``y[offsets[g]:offsets[g+1]]``. Safeguarded Newton on
    the decreasing function ``f(m) = sum_t psi(alpha_j (a_t - m))``, whose root lies in
    ``[min a, max a]``.
    """
    n_groups = offsets.shape[0] - 1
    for j in range(coef.shape[0]):
        lo = np.inf
        hi = -np.inf
        total = 0.0
        n = 0
        for g in range(n_groups):
            c = coef[j, g]
            for t in range(offsets[g], offsets[g + 1]):
                a = c * y[t]
                lo = min(lo, a)
                hi = max(hi, a)
                total += a
                n += 1
        if n == 0:
            out[j] = 0.0
            continue
        al = alpha[j]
        m = total / n
        if not lo < hi:
            out[j] = lo
            continue
        for _ in range(200):
            f = 0.0
            fp = 0.0
            for g in range(n_groups):
                c = coef[j, g]
                for t in range(offsets[g], offsets[g + 1]):
                    u = al * (c * y[t] - m)
                    f += _psi(u)
                    fp += _dpsi(u)
            if f > 0.0:
                lo = m
            elif f < 0.0:
                hi = m
            else:
                break
            step = f / (al * fp)
            m_new = m + step
            if not (lo < m_new < hi):
                m_new = 0.5 * (lo + hi)
            if abs(m_new - m) <= 1e-13 * (1.0 + abs(m)) or hi - lo <= 1e-13 * (1.0 + abs(m)):
                m = m_new
                break
            m = m_new
        out[j] = m


def catoni_mean(values: FloatArray, *, variance: float, delta: float) -> FloatArray:
    """Catoni mean of every row of ``values`` (shape ``(..., n)``) at level ``delta``.

    Parameters
    ----------
    values : array-like of shape (n,) or (k, n)
    variance : float > 0
        Upper bound on the variance of one sample.
    delta : float in (0, 1)
        The estimate is within :func:`catoni_width` of the mean with probability ``1 - 2 delta``.

    Returns
    -------
    float or ndarray of shape (k,)

    Examples
    --------
    >>> float(catoni_mean(np.array([1.0, 1.0, 1.0]), variance=1.0, delta=0.1))
    1.0
    """
    arr = check_array(values, "values", owner="catoni_mean")
    check_positive(variance, "variance", owner="catoni_mean")
    check_interval(delta, "delta", low=0.0, high=1.0, owner="catoni_mean")
    rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim > 1 else arr.reshape(1, -1)
    k, n = rows.shape
    alpha = np.full(k, catoni_alpha(n, variance, delta))
    out = np.empty(k)
    flat = np.ascontiguousarray(rows).reshape(-1)
    offsets = np.arange(0, k * n + 1, n, dtype=np.int64)
    # one group per row: coef[j, g] = 1 if g == j, else 0 (the other rows' samples must not count)
    for j in range(k):
        sub = np.empty(1)
        _catoni_grouped(
            flat[offsets[j] : offsets[j + 1]],
            np.array([0, n], dtype=np.int64),
            np.ones((1, 1)),
            alpha[j : j + 1],
            sub,
        )
        out[j] = sub[0]
    return out[0] if arr.ndim == 1 else out.reshape(arr.shape[:-1])


@dataclass(frozen=True, slots=True)
class LinearEstimate:
    """Estimates of ``v^T param_k`` for targets ``v`` and output columns ``k``, with one width per target.

    Attributes
    ----------
    values : ndarray of shape (n_targets, n_outputs)
    widths : ndarray of shape (n_targets,)
        ``|estimate - truth| <= width`` for every target and output simultaneously, with probability at
        least ``1 - delta`` (``inf`` for a target the data cannot estimate).
    """

    values: FloatArray
    widths: FloatArray


def design_pinv(arms: FloatArray, weights: FloatArray) -> FloatArray:
    """Pseudo-inverse of ``A = sum_i w_i x_i x_i^T`` (eigenvalues below ``1e-10`` of the largest are 0)."""
    a = arms.T @ (weights[:, None] * arms)
    e, v = np.linalg.eigh(a)
    if e[-1] <= 0.0:
        return np.zeros_like(a)
    keep = e > _EIG_RTOL * e[-1]
    return (v[:, keep] / e[keep]) @ v[:, keep].T


def _in_span(a_pinv_a: FloatArray, targets: FloatArray) -> np.ndarray:
    """Whether each target lies in the range of ``A`` (``A^+ A v = v``)."""
    proj = targets @ a_pinv_a
    resid = np.linalg.norm(proj - targets, axis=1)
    return resid <= 1e-8 * np.maximum(np.linalg.norm(targets, axis=1), 1e-300)


def ols(
    arms: FloatArray,
    counts: IntArray,
    sums: FloatArray,
    targets: FloatArray,
    *,
    noise_sd: float,
    delta: float,
) -> LinearEstimate:
    """Least squares from per-arm counts and sums, with simultaneous sub-Gaussian widths.

    ``theta_hat = A_n^+ sum_x x S_x``; width of ``v``: ``sigma ||v||_{A_n^+} sqrt(2 log(2 k q / delta))``
    with ``k`` targets and ``q`` outputs (union bound); ``inf`` for targets outside the range of ``A_n``.
    Valid for any counts chosen before the observations (a fixed or independently drawn allocation).

    Parameters
    ----------
    arms : ndarray of shape (n_arms, d)
    counts : ndarray of shape (n_arms,)
    sums : ndarray of shape (n_arms, q)
    targets : ndarray of shape (k, d)
    noise_sd, delta : float
    """
    c = np.asarray(counts, dtype=np.float64)
    a = arms.T @ (c[:, None] * arms)
    pinv = design_pinv(arms, c)
    theta = pinv @ (arms.T @ sums)
    vals = targets @ theta
    w2 = np.maximum(np.einsum("ij,jk,ik->i", targets, pinv, targets), 0.0)
    k, q = targets.shape[0], sums.shape[1]
    scale = noise_sd * math.sqrt(2.0 * math.log(2.0 * k * q / delta))
    widths = np.where(_in_span(pinv @ a, targets), scale * np.sqrt(w2), np.inf)
    return LinearEstimate(values=vals, widths=widths)


def gaussian_bridge(
    counts: IntArray, sums: FloatArray, noise_sd: float, rng: np.random.Generator
) -> tuple[FloatArray, IntArray]:
    """Individual Gaussian observations given per-arm sums, exactly in law (grouped by arm).

    Returns ``(y, offsets)``: ``y`` of shape ``(n, q)``; the observations of arm ``g`` are the rows
    ``offsets[g]:offsets[g+1]``; each arm's rows sum to its ``sums[g]``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    q = sums.shape[1]
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    e = rng.standard_normal((n, q))
    group = np.repeat(np.arange(counts.size), counts)
    safe = np.maximum(counts, 1)
    e_mean = np.zeros((counts.size, q))
    np.add.at(e_mean, group, e)
    e_mean /= safe[:, None]
    y = (sums / safe[:, None])[group] + noise_sd * (e - e_mean[group])
    return y, offsets


def rips(
    arms: FloatArray,
    design: FloatArray,
    counts: IntArray,
    sums: FloatArray,
    targets: FloatArray,
    *,
    noise_sd: float,
    mean_bound: float,
    delta: float,
    rng: np.random.Generator,
    samples: tuple[FloatArray, IntArray] | None = None,
) -> LinearEstimate:
    """RIPS: Catoni means of inverse-propensity scores, for every target and output.

    Parameters
    ----------
    arms : ndarray of shape (n_arms, d)
    design : ndarray of shape (n_arms,)
        The distribution ``lambda`` the pulls were drawn from i.i.d.; ``A = A(lambda)``.
    counts : ndarray of shape (n_arms,)
        Number of draws of each arm (multinomial).
    sums : ndarray of shape (n_arms, q)
        Per-arm sums of the ``q`` observed outputs (reward and / or constraints).
    targets : ndarray of shape (k, d)
    noise_sd : float
        Gaussian noise scale (individual observations are drawn by :func:`gaussian_bridge`).
    mean_bound : float
        ``B >= |param^T x|`` for every arm and output.
    delta : float
        Simultaneous level over all targets and outputs (each Catoni call at ``delta / (2 k q)``).
    rng : numpy.random.Generator
        For the Gaussian bridge.
    samples : (y, offsets), optional
        Individual observations grouped by arm (skips the bridge).

    Returns
    -------
    LinearEstimate
        Widths ``sqrt(2 v_j log(1/delta'') / (n - 2 log(1/delta'')))`` with
        ``v_j = (B^2 + sigma^2) ||v_j||^2_{A(lambda)^{-1}}``.
    """
    w = np.asarray(design, dtype=np.float64)
    w = w / w.sum()
    pinv = design_pinv(arms, w)
    a = arms.T @ (w[:, None] * arms)
    coef = np.ascontiguousarray(targets @ pinv @ arms.T)  # (k, n_arms): v^T A^+ x
    norms2 = np.maximum(np.einsum("ij,jk,ik->i", targets, pinv, targets), 0.0)
    k, q = targets.shape[0], sums.shape[1]
    n = int(np.sum(counts))
    delta_each = delta / (2.0 * k * q)
    var = (mean_bound**2 + noise_sd**2) * np.maximum(norms2, 1e-300)
    widths = np.where(_in_span(pinv @ a, targets), catoni_width(n, var, delta_each), np.inf)
    if n == 0:
        return LinearEstimate(values=np.zeros((k, q)), widths=np.full(k, np.inf))
    y, offsets = gaussian_bridge(counts, sums, noise_sd, rng) if samples is None else samples
    alpha = np.array([catoni_alpha(n, v, delta_each) for v in var])
    vals = np.empty((k, q))
    out = np.empty(k)
    for col in range(q):
        _catoni_grouped(np.ascontiguousarray(y[:, col]), offsets, coef, alpha, out)
        vals[:, col] = out
    return LinearEstimate(values=vals, widths=widths)


def check_estimator(name: str, noise_kind: str, owner: str) -> None:
    """RIPS on batch sums needs Gaussian noise (the bridge); reject other noise early."""
    if name == "rips" and noise_kind != "gaussian":
        raise CannotStartError.build(
            f"{owner} with estimator='rips'",
            "it needs Gaussian noise (individual observations are drawn from per-arm sums by a Gaussian "
            f"bridge); got noise {noise_kind!r}",
            [Fix("option", "estimator", "ols", "estimator='ols' (least squares on the pulls, any noise)")],
        )
