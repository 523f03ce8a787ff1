"""Designs with a diagonal design matrix: ``min_lambda max_i sum_x c_{i,x} / lambda_x``.

When the arms are scaled standard basis vectors ``a_x e_x`` (a multi-armed bandit, or the pool of an
active-learning problem, where querying ``x`` measures coordinate ``x``), ``A(lambda) = diag(lambda_x
a_x^2)`` and every width is separable: ``w_i ||y_i||^2_{A(lambda)^{-1}} = sum_x c_{i,x} / lambda_x``
with ``c_{i,x} = w_i y_{i,x}^2 / a_x^2``. This module solves that problem without forming ``A``, so
pools of tens of thousands of points cost milliseconds; :func:`~safebandits.design.frank_wolfe_design`
dispatches here when its arms are diagonal.

Duality. For ``q`` on the simplex over targets let ``s = C^T q``. Then

    f(lambda) = max_i sum_x c_{i,x} / lambda_x  >=  sum_x s_x / lambda_x  >=  g(q) = (sum_x sqrt(s_x))^2,

the last minimum being attained at ``lambda(q) proportional to sqrt(s)`` (Cauchy--Schwarz). ``g`` is
concave and its gradient is the vector of widths at ``lambda(q)``; the solver runs exponentiated-gradient
ascent on ``g`` with a backtracking step, evaluates ``f(lambda(q))`` at every iterate, and stops when
the best primal value is within ``tol`` (relative) of the best dual value ``g``: the returned gap is a
certificate. A single target has the closed form ``lambda proportional to sqrt(c)`` (value
``(sum_x sqrt(c_x))^2``), e.g. ``lambda_i proportional to sqrt(w_i)`` for weighted multi-armed designs
on ``e_i``.

Points whose cost columns are identical get the same weight at an optimum (the problem is convex and
symmetric in them); they are merged first (``m`` distinct columns with counts ``n_g`` become one point
of cost ``n_g^2 c_g``), so 0/1 costs over a large pool shrink to a few hundred groups.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from safebandits._validation import check_array, check_int, check_interval
from safebandits.design.base import Design, is_diagonal
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = ["diagonal_design", "is_diagonal"]

_OWNER = "diagonal_design"
_Q_FLOOR = 1e-12  # smallest dual weight relative to the largest (keeps every width finite)


def diagonal_design(
    costs: ArrayLike,
    *,
    tol: float = 1e-3,
    max_iter: int = 10_000,
) -> Design:
    """Solve ``min_{lambda in simplex} max_i sum_x costs[i, x] / lambda_x``.

    Parameters
    ----------
    costs : array-like of shape (n_targets, n_arms)
        Non-negative costs ``c_{i,x}`` (e.g. ``1{h_i(x) = 1}`` for Algorithm 2's safe design, or
        ``1{h_i(x) != h_j(x)}`` over pairs for its difference design). Arms with zero cost for every
        target get zero weight.
    tol : float in (0, 1), default=1e-3
        Stop when the certified relative gap ``(value - lower) / value`` is at most ``tol``.
    max_iter : int >= 1, default=10_000
        Maximum number of dual ascent steps.

    Returns
    -------
    Design
        ``weights`` on the simplex, ``value = max_i sum_x c_{i,x} / lambda_x`` (0 and uniform weights if
        every cost is zero), ``n_iter``, the certified ``gap`` and ``converged``.

    Examples
    --------
    >>> res = diagonal_design([[1.0, 4.0, 0.0]])
    >>> np.round(res.weights, 6), round(res.value, 6)
    (array([0.333333, 0.666667, 0.      ]), 9.0)
    >>> res = diagonal_design([[1.0, 0.0], [0.0, 1.0]])
    >>> np.round(res.weights, 3), round(res.value, 3)
    (array([0.5, 0.5]), 2.0)
    """
    c = check_array(costs, "costs", ndim=2, min_rows=1, owner=_OWNER)
    if c.shape[1] == 0:
        raise ConfigError(f"The 'costs' parameter of {_OWNER} must have at least one column. Got {c.shape}.")
    if np.any(c < 0.0):
        raise ConfigError(
            f"The 'costs' parameter of {_OWNER} must be non-negative. Got minimum {c.min()!r} instead."
        )
    tol = check_interval(tol, "tol", low=0.0, high=1.0, owner=_OWNER)
    max_iter = check_int(max_iter, "max_iter", low=1, owner=_OWNER)
    n = c.shape[1]
    used = np.flatnonzero(c.any(axis=0))
    if used.size == 0:
        return Design(weights=np.full(n, 1.0 / n), value=0.0, n_iter=0, gap=0.0, converged=True)
    c = c[:, used]
    c = c[c.any(axis=1)]
    c = c[_unique_rows(c)[0]]  # duplicate targets do not change the max
    first, inverse, counts = _unique_rows(np.ascontiguousarray(c.T))
    groups = c.T[first]
    cg = np.ascontiguousarray(groups.T * (counts.astype(float) ** 2))  # (m, G): cost of a group's mass
    lam_g, value, lower, n_iter, converged = _solve(cg, tol, max_iter)
    weights = np.zeros(n)
    weights[used] = lam_g[inverse] / counts[inverse]
    weights /= weights.sum()
    return Design(
        weights=weights,
        value=float(value),
        n_iter=n_iter,
        gap=float(max(value - lower, 0.0)),
        converged=converged,
    )


def _unique_rows(a: FloatArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of the first of each distinct row, the inverse map and the counts (rows as raw bytes)."""
    a = np.ascontiguousarray(a + 0.0)  # (-0.0 -> 0.0, so equal rows have equal bytes)
    keys = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), counts


def _primal(cg: FloatArray, q: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    """``lambda(q)``, the widths at it, and the dual value ``g(q)``.

    Every group has a positive cost for some target and ``q > 0``, so ``lambda(q) > 0``.
    """
    root = np.sqrt(q @ cg)
    total = float(root.sum())
    lam = root / total
    return lam, cg @ (1.0 / lam), total * total


def _solve(cg: FloatArray, tol: float, max_iter: int) -> tuple[FloatArray, float, float, int, bool]:
    m = cg.shape[0]
    if m == 1:
        lam, widths, g = _primal(cg, np.ones(1))
        return lam, float(widths[0]), g, 0, True
    log_q = np.zeros(m)
    step = 1.0
    q = np.full(m, 1.0 / m)
    lam, widths, g = _primal(cg, q)
    best_lam, best_value, lower = lam, float(widths.max()), g
    for k in range(1, max_iter + 1):
        if best_value - lower <= tol * best_value:
            return best_lam, best_value, lower, k - 1, True
        grad = widths / g  # relative gradient; sum_i q_i grad_i = 1
        while True:
            trial = log_q + step * grad
            trial = np.maximum(trial - trial.max(), math.log(_Q_FLOOR))
            q_new = np.exp(trial)
            q_new /= q_new.sum()
            lam_new, widths_new, g_new = _primal(cg, q_new)
            if g_new >= g or step < 1e-8:
                break
            step *= 0.5
        log_q, q, lam, widths, g = trial, q_new, lam_new, widths_new, g_new
        step = min(step * 1.5, 1e3)
        lower = max(lower, g)
        value = float(widths.max())
        if value < best_value:
            best_lam, best_value = lam, value
    return best_lam, best_value, lower, max_iter, best_value - lower <= tol * best_value
