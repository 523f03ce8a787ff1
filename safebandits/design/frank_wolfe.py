"""G-optimal and transductive designs: ``min_lambda max_y w_y ||y||^2_{A(lambda)^{-1}}``.

A design ``lambda`` is a probability vector over the rows ``x_i`` of ``arms`` (the measurement set X),
``A(lambda) = sum_i lambda_i x_i x_i^T``. The covering set Y (``targets``, default the arms) and positive
weights ``w_y`` give the objective ``f(lambda) = max_y w_y y^T A(lambda)^{-1} y`` (a *squared* width).
With ``Y = X`` and unit weights this is G-optimality: the optimum is the rank of X (Kiefer--Wolfowitz).
Transductive (``Y != X``, e.g. differences ``x_i - x_j``) and weighted designs (``w_y = 1 / margin_y^2``:
the oracle allocation and H_CLB of Lindner et al. 2022) use the same solver.

``stop="relative-change"``
    Frank--Wolfe as in the code released with Lindner et al. (2022): step ``2 / (k + 2)`` towards the arm
    maximising ``(x_i^T A^{-1} y*)^2`` for the worst target ``y*``; stop when
    ``||gamma (e_i - lambda)||_2 / ||lambda||_2 < tol``. No certificate.

``stop="gap"`` (default)
    Primal--dual, with a certificate. For a distribution ``q`` on Y let ``C_q = sum_y q_y w_y y y^T`` and
    ``phi_q(lambda) = tr(C_q A^{-1})`` (an L-criterion). Since ``phi_q <= f`` and ``phi_q`` is convex and
    homogeneous of degree -1, its linearisation at any ``lambda``, optimally rescaled, gives

        f* >= phi_q(lambda)^2 / max_i h_i,    h_i = x_i^T A^{-1} C_q A^{-1} x_i,

    (also with ``A^+`` for singular ``A``: it is the dual bound with ``v_y = A^+ y``). The solver
    alternates (i) Frank--Wolfe with away steps and closed-form exact line search on ``phi_q`` (the
    L-optimal analogue of the Wolfe--Atwood algorithm for D-optimality), warm-started, to relative gap
    ``eps``; (ii) a multiplicative dual update ``q_y <- q_y (rho_y / phi_q)^2``, ``rho_y = w_y
    ||y||^2_{A^{-1}}``, exact in one step for multi-armed designs. It stops when
    ``value - lower <= tol * value`` and reports that certified bound as ``Design.gap``.

Arms need not span R^d: the solver works in whitened coordinates of their row span (rank r, SVD with a
relative tolerance); a target outside that span has infinite width and is rejected. Frank--Wolfe steps
cost ``O(n r + r^2)`` (``O(n r + m r + r^2)`` for the relative-change rule): ``A^{-1}`` and the
gradients are updated by Sherman--Morrison formulas in compiled kernels and recomputed from ``A``
(Cholesky) every ``_REFRESH_EVERY`` steps; each dual update costs ``O((n + m) r^2)``.

Diagonal arms (scaled standard basis vectors, ``stop="gap"``) are dispatched to the separable solver
:func:`safebandits.design.diagonal.diagonal_design`, which never forms ``A`` (pools of 10^4--10^5 points).

Singular optima (targets that do not need every arm: ACOL's uncertain sets, a single target) are only
approached from the interior. The subproblem keeps a small ridge-like term so that ``A`` stays well
conditioned, and the design without its negligible weights is periodically certified on its own
support span; once it is certified better, the iterate moves to that span.

References
----------
Lindner, Tschiatschek, Hofmann, Krause (2022), *Interactively Learning Preference Constraints in Linear
Bandits*, ICML (designs of Algorithms 1 and 3; Frank--Wolfe in the released code).
Kiefer and Wolfowitz (1960), *The equivalence of two extremum problems*, Canad. J. Math. 12.
Pukelsheim (2006), *Optimal Design of Experiments*, SIAM Classics, ch. 7 and 9 (duality, L-criteria).
Todd (2016), *Minimum-Volume Ellipsoids*, SIAM, ch. 3 (Frank--Wolfe with away steps).

Deviations from the brief and the paper: ``docs/decisions/acol.md`` ("Design solver").
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

import numba
import numpy as np
from numpy.typing import ArrayLike

from safebandits._validation import check_array, check_choice, check_int, check_interval
from safebandits.design.base import Design, is_diagonal
from safebandits.design.diagonal import diagonal_design
from safebandits.estimators.ridge import cholesky_inverse
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = ["Design", "frank_wolfe_design", "uniform_design"]

_OWNER = "frank_wolfe_design"
#: Stopping rule of :func:`frank_wolfe_design` (the annotation is the one list of the accepted values).
StopRule = Literal["gap", "relative-change"]
_RANK_RTOL = 1e-10  # singular values of the arms below this fraction of the largest are zero
_SPAN_RTOL = 1e-8  # a target (arm) is outside a span if its residual exceeds this fraction of its norm
_EIG_RTOL = 1e-12  # eigenvalues of A below this fraction of the largest are zero (sparse designs)
_REFRESH_EVERY = 100  # exact A^{-1} (Cholesky) every this many rank-one updates
_STEP_MAX = 1.0 - 1e-6  # largest Frank-Wolfe step (A stays positive definite)
_PRUNE_RTOL = 1e-8  # final pruning threshold, relative to the largest weight
# Dual update q_y <- q_y (rho_y / phi)^_DUAL_EXPONENT, each log-change clipped to +-_DUAL_CLIP, and q_y at
# least _DUAL_FLOOR * tol / m times the largest (floored mass <= 1e-3 tol: negligible in the bound).
_DUAL_EXPONENT = 2.0
_DUAL_CLIP = 2.0
_DUAL_FLOOR = 1e-3
# Subproblems are solved to relative Frank-Wolfe gap min(0.1, _INNER_FACTOR * certified relative gap).
_INNER_FACTOR = 0.5
# The subproblem minimises tr(C A^{-1}) + reg tr(A^{-1}), reg making up max(_REG_TOL2 tol^2, _REG_FLOOR)
# of the criterion, so that arms the targets do not need keep some weight and A stays well conditioned.
_REG_TOL2 = 0.3
_REG_FLOOR = 1e-6
# Every _SPARSE_EVERY dual updates, the design without its weights below _SPARSE_RTOL times the largest
# is certified on its support span; the iterate moves there if that design is better and its relative
# gap is below _SHRINK_GAP.
_SPARSE_EVERY = 4
_SPARSE_RTOL = 1e-2
_SHRINK_GAP = 0.05
# Stop after this many dual updates in a row without a primal step, a better certificate or a change of
# q (the regularisation limits the accuracy attainable for some singular optima).
_MAX_STALLED = 20


class LoptIterate(NamedTuple):
    """A Frank--Wolfe iterate on ``tr(C A(lambda)^{-1})`` (:func:`_lopt_steps`), written in place.

    ``lam`` the design (n,), ``inv`` ``A(lambda)^{-1}`` (r, r), ``h`` (n,) the gradient magnitudes
    ``h_i = x_i^T A^{-1} C A^{-1} x_i``.
    """

    lam: np.ndarray
    inv: np.ndarray
    h: np.ndarray


class WidthIterate(NamedTuple):
    """A Frank--Wolfe iterate of the authors' rule (:func:`_relative_change_steps`), written in place.

    ``lam`` the design (n,), ``inv`` ``A(lambda)^{-1}`` (r, r), ``widths`` (m,) ``||y||^2_{A^{-1}}`` of the
    targets.
    """

    lam: np.ndarray
    inv: np.ndarray
    widths: np.ndarray


class Targets(NamedTuple):
    """The covering set: targets ``y`` (m, r) in whitened coordinates and their weights ``w_y`` (m,)."""

    y: np.ndarray
    weights: np.ndarray


def uniform_design(n_arms: int) -> FloatArray:
    """The uniform design over ``n_arms`` arms.

    Examples
    --------
    >>> uniform_design(4)
    array([0.25, 0.25, 0.25, 0.25])
    """
    n = check_int(n_arms, "n_arms", low=1, owner="uniform_design")
    return np.full(n, 1.0 / n)


def frank_wolfe_design(
    arms: ArrayLike,
    targets: ArrayLike | None = None,
    target_weights: ArrayLike | None = None,
    *,
    tol: float = 1e-3,
    max_iter: int = 10_000,
    stop: StopRule = "gap",
    init: ArrayLike | None = None,
) -> Design:
    """Solve ``min_lambda max_y w_y ||y||^2_{A(lambda)^{-1}}`` over designs on the rows of ``arms``.

    Parameters
    ----------
    arms : array-like of shape (n_arms, d)
        The measurement set X; the design's weights live on its rows. The rows need not span R^d.
    targets : array-like of shape (n_targets, d), default=None
        The covering set Y (default: ``arms``). Every target must lie in the row span of ``arms``.
    target_weights : array-like of shape (n_targets,), default=None
        Positive weights ``w_y`` (default: ones).
    tol : float in (0, 1), default=1e-3
        ``"gap"``: relative accuracy, stop when the certified gap is at most ``tol * value``.
        ``"relative-change"``: threshold of the authors' relative-change rule.
    max_iter : int >= 1, default=10_000
        Maximum number of Frank--Wolfe steps.
    stop : {"gap", "relative-change"}, default="gap"
        Stopping rule and algorithm (see the module docstring).
    init : array-like of shape (n_arms,), default=None
        Initial design (non-negative, normalised here); default uniform. A design whose support does
        not span the arms is mixed with the uniform design.

    Returns
    -------
    Design
        Weights, squared value, number of steps, certified gap (``nan`` for ``"relative-change"``) and
        whether the stopping rule was met. Weights below ``1e-8`` times the largest are pruned when
        that does not worsen the result.

    Raises
    ------
    ConfigError
        On invalid arguments, arms that are all zero, or a target outside the row span of ``arms``.

    Notes
    -----
    Applicability: the ``"gap"`` certificate (``value - gap`` is a lower bound on the optimum) holds up to
    floating-point rounding, also when ``converged`` is ``False``. The dual updates have no convergence
    proof; on hard instances (many nearly active targets, e.g. G-optimal designs for hundreds of points
    on a sphere) ``tol <= 1e-4`` may need more than 10_000 steps. Singular optima are reached when the
    design without its small weights can be certified; otherwise weights of order ``1e-3`` may remain on
    arms the optimum does not use. Deviations: ``docs/decisions/acol.md`` ("Design solver").

    Examples
    --------
    >>> arms = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> res = frank_wolfe_design(arms, targets=[[1.0, 1.0]])
    >>> np.round(res.weights, 6), round(res.value, 6)
    (array([0.5, 0.5]), 4.0)
    """
    x = check_array(arms, "arms", ndim=2, min_rows=1, owner=_OWNER)
    n, d = x.shape
    if d == 0:
        raise ConfigError(
            f"The 'arms' parameter of {_OWNER} must have at least one column. Got array of shape {x.shape}."
        )
    if targets is None:
        y = x.copy()
    else:
        y = check_array(targets, "targets", ndim=2, shape=(None, d), min_rows=1, owner=_OWNER)
    m = y.shape[0]
    if target_weights is None:
        tw = np.ones(m)
    else:
        tw = check_array(target_weights, "target_weights", shape=(m,), owner=_OWNER)
        if np.any(tw <= 0.0):
            raise ConfigError(
                f"The 'target_weights' parameter of {_OWNER} must be an array of positive values. "
                f"Got minimum {tw.min()!r} instead."
            )
    tol = check_interval(tol, "tol", low=0.0, high=1.0, owner=_OWNER)
    max_iter = check_int(max_iter, "max_iter", low=1, owner=_OWNER)
    stop = check_choice(stop, "stop", StopRule, owner=_OWNER)
    lam0 = np.full(n, 1.0 / n) if init is None else _check_weights(init, "init", n)
    if stop == "gap" and n > 1 and is_diagonal(x):
        # A(lambda) is diagonal: separable widths, solved without forming A (design/diagonal.py).
        costs = tw[:, None] * (y / np.diagonal(x)[None, :]) ** 2
        return diagonal_design(costs, tol=tol, max_iter=max_iter)

    xw, yw = _whiten(x, y)
    if not np.any(yw):
        # Every target is zero: every design has value 0.
        gap = 0.0 if stop == "gap" else math.nan
        return Design(weights=lam0, value=0.0, n_iter=0, gap=gap, converged=True)
    lam, inv = _positive_definite_start(xw, lam0)
    if stop == "gap":
        lam, value, lower, n_iter, converged = _solve_gap(xw, yw, tw, lam, inv, tol, max_iter)
    else:
        lam, value, n_iter, converged = _solve_relative_change(xw, yw, tw, lam, inv, tol, max_iter)
        lower = -math.inf
    lam, value = _prune(xw, yw, tw, lam, value, lower, tol)
    gap = max(value - lower, 0.0) if stop == "gap" else math.nan
    return Design(weights=lam, value=float(value), n_iter=int(n_iter), gap=float(gap), converged=converged)


# --------------------------------------------------------------------------------------------------
# set-up: validation, whitening, exact evaluation
# --------------------------------------------------------------------------------------------------
def _check_weights(value: Any, name: str, n: int) -> FloatArray:
    w = check_array(value, name, shape=(n,), owner=_OWNER)
    if np.any(w < 0.0) or not w.sum() > 0.0:
        raise ConfigError(
            f"The {name!r} parameter of {_OWNER} must be non-negative with a positive sum. "
            f"Got minimum {w.min()!r} and sum {w.sum()!r} instead."
        )
    return w / w.sum()


def _whiten(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Coordinates of arms and targets in a whitened basis of the arms' row span.

    With ``x = U S V^T`` (rank r), the map ``z -> S^{-1} V^T z`` sends the arms to the rows of ``U`` and
    preserves every width ``y^T A(lambda)^{-1} y`` (the same invertible map is applied to both sets).
    """
    _, sing, vt = np.linalg.svd(x, full_matrices=False)
    if sing[0] == 0.0:
        raise ConfigError(f"The 'arms' parameter of {_OWNER} must not be all zero. Got only zero rows.")
    r = int(np.sum(sing > _RANK_RTOL * sing[0]))
    basis = vt[:r]
    coords = y @ basis.T
    residual = np.linalg.norm(y - coords @ basis, axis=1)
    norms = np.linalg.norm(y, axis=1)
    outside = residual > _SPAN_RTOL * norms
    if np.any(outside):
        k = int(np.flatnonzero(outside)[0])
        raise ConfigError(
            f"The 'targets' parameter of {_OWNER} must lie in the row span of 'arms' (rank {r}); a target "
            f"outside it has infinite width. Got target {k} with relative residual "
            f"{residual[k] / norms[k]:.3g} instead. Project the targets or add arms."
        )
    xw = np.ascontiguousarray((x @ basis.T) / sing[:r])
    yw = np.ascontiguousarray(coords / sing[:r])
    return xw, yw


def _inverse(xw: FloatArray, lam: FloatArray) -> FloatArray | None:
    """``A(lam)^{-1}`` by Cholesky, or ``None`` if ``A(lam)`` is not numerically positive definite."""
    a = xw.T @ (lam[:, None] * xw)
    inv = np.empty_like(a)
    try:
        cholesky_inverse(a, inv)
    except np.linalg.LinAlgError:
        return None
    return inv


def _positive_definite_start(xw: FloatArray, lam: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Return ``lam`` (mixed with the uniform design if needed) and ``A(lam)^{-1}``."""
    n = lam.shape[0]
    for mix in (0.0, 1e-9, 1e-6, 1e-3, 1.0):
        cand = (1.0 - mix) * lam + mix / n
        inv = _inverse(xw, cand)
        if inv is not None:
            return cand, inv
    raise AssertionError("the uniform design spans the arms by construction")  # pragma: no cover


def _widths(yw: FloatArray, inv: FloatArray) -> FloatArray:
    """Unweighted squared widths ``y^T A^{-1} y`` of all targets."""
    return np.maximum(np.einsum("ij,ij->i", yw @ inv, yw), 0.0)


def _prune(
    xw: FloatArray,
    yw: FloatArray,
    tw: FloatArray,
    lam: FloatArray,
    value: float,
    lower: float,
    tol: float,
) -> tuple[FloatArray, float]:
    """Zero the weights below ``_PRUNE_RTOL * max`` if the design stays as good (re-evaluated)."""
    small = lam < _PRUNE_RTOL * lam.max()
    if not np.any(small):
        return lam, value
    cand = np.where(small, 0.0, lam) / lam[~small].sum()
    on_support = _support_coordinates(xw, yw, cand)
    if on_support is None:
        return lam, value
    _, _, y_in, inv = on_support
    cand_value = float(np.max(tw * _widths(y_in, inv)))
    if math.isfinite(lower):
        ok = cand_value - lower <= max(tol * cand_value, value - lower)
    else:
        ok = cand_value <= value * (1.0 + 1e-3 * tol)
    return (cand, cand_value) if ok else (lam, value)


# --------------------------------------------------------------------------------------------------
# stop="gap": dual multiplicative updates + Frank-Wolfe with away steps on the L-criterion
# --------------------------------------------------------------------------------------------------
def _solve_gap(
    xw: FloatArray,
    yw: FloatArray,
    tw: FloatArray,
    lam: FloatArray,
    inv: FloatArray,
    tol: float,
    max_iter: int,
) -> tuple[FloatArray, float, float, int, bool]:
    """Primal--dual solver; returns (best design, its value, certified lower bound, steps, converged).

    The iterate lives on a working span, initially the span of all arms. When the design without its
    weights below ``_SPARSE_RTOL * max`` has a lower value and a better certificate (relative gap below
    ``_SHRINK_GAP``), the optimum is taken to be singular: the iterate moves to that design and the
    working span shrinks to its support span (arms outside it become inactive). Certificates always use
    every arm, projected on the working span (``v_y = A^+ y`` in the dual bound), so they stay valid.
    """
    m = yw.shape[0]
    x, y = xw, yw
    active = np.ones(xw.shape[0], dtype=bool)
    log_q = np.zeros(m)
    log_floor = math.log(_DUAL_FLOOR * tol / m)
    reg_rel = max(_REG_TOL2 * tol * tol, _REG_FLOOR)
    lower = -math.inf
    best_value, best_lam = math.inf, lam.copy()
    n_steps = 0
    rel_gap = math.inf
    stalled = 0  # consecutive dual updates without a primal step or a better certificate
    moved = math.inf  # largest change of log q in the last dual update
    for n_outer in range(1, max_iter + 1):
        q = np.exp(log_q - log_q.max())
        qw = (q / q.sum()) * tw
        cov = np.ascontiguousarray((y * qw[:, None]).T @ y)
        eps = min(0.1, _INNER_FACTOR * rel_gap)
        reg = reg_rel * float(np.sum(cov * inv)) / float(np.trace(inv))
        cov_reg = cov + reg * np.eye(cov.shape[0])
        steps_before = n_steps
        lam_active, inv, n_steps = _lopt_solve(
            np.ascontiguousarray(x[active]), cov_reg, lam[active], inv, eps, n_steps, max_iter
        )
        lam[active] = lam_active

        widths = _widths(y, inv)
        rho = tw * widths
        phi = float(qw @ widths)
        value = float(rho.max())
        candidates = [(lam, value, _dual_bound(x, inv, cov, phi))]
        small = lam < _SPARSE_RTOL * lam.max()
        if n_outer % _SPARSE_EVERY == 0 and np.any(small):
            sparse = np.where(small, 0.0, lam) / lam[~small].sum()
            evaluated = _evaluate_on_support(x, y, tw, sparse, qw, cov)
            if evaluated is not None:
                candidates.append((sparse, *evaluated))
        for cand, cand_value, bound in candidates:
            lower = max(lower, bound)
            if cand_value < best_value:
                best_value, best_lam = cand_value, cand.copy()
        previous, rel_gap = rel_gap, (best_value - lower) / best_value
        if rel_gap <= tol:
            return best_lam, best_value, lower, n_steps, True
        stalled = stalled + 1 if n_steps == steps_before and rel_gap >= previous and moved < 1e-3 else 0
        if n_steps >= max_iter or stalled >= _MAX_STALLED:
            break
        shrunk = _shrink_span(x, y, candidates[1][0]) if _shrink_pays(candidates) else None
        if shrunk is not None:
            lam = candidates[1][0].copy()
            x, y, active, inv = shrunk
            widths = _widths(y, inv)
            rho, phi = tw * widths, float(qw @ widths)
        with np.errstate(divide="ignore"):
            step = np.clip(_DUAL_EXPONENT * np.log(rho / phi), -_DUAL_CLIP, _DUAL_CLIP)
        new_log_q = np.maximum(log_q + step - np.max(log_q + step), log_floor)
        moved = float(np.max(np.abs(new_log_q - log_q)))
        log_q = new_log_q
    return best_lam, best_value, lower, n_steps, False


def _shrink_pays(candidates: list[tuple[FloatArray, float, float]]) -> bool:
    """Whether the sparse design has a lower value and a better own certificate than the iterate."""
    if len(candidates) < 2:
        return False
    (_, value, bound), (_, sparse_value, sparse_bound) = candidates
    sparse_gap = (sparse_value - sparse_bound) / sparse_value
    return sparse_value < value and sparse_gap < min((value - bound) / value, _SHRINK_GAP)


def _shrink_span(
    x: FloatArray, y: FloatArray, lam: FloatArray
) -> tuple[FloatArray, FloatArray, np.ndarray, FloatArray] | None:
    """Coordinates on the span of ``lam``'s support, the arms in it, and ``A(lam)^{-1}`` there."""
    on_support = _support_coordinates(x, y, lam)
    if on_support is None:
        return None
    basis, x_in, y_in, inv = on_support
    active = np.linalg.norm(x - x_in @ basis, axis=1) <= _SPAN_RTOL * np.linalg.norm(x, axis=1)
    return x_in, y_in, active, inv


def _lopt_gradient(xw: FloatArray, inv: FloatArray, cov: FloatArray) -> FloatArray:
    """``h_i = x_i^T A^{-1} C A^{-1} x_i`` (minus the gradient of ``tr(C A(lambda)^{-1})``)."""
    xa = xw @ inv
    return np.einsum("ij,ij->i", xa @ cov, xa)


def _dual_bound(xw: FloatArray, inv: FloatArray, cov: FloatArray, phi: float) -> float:
    """Lower bound ``phi^2 / max_i h_i`` on the optimum (module docstring); ``inv`` may be ``A^+``."""
    h_max = float(np.max(_lopt_gradient(xw, inv, cov)))
    return phi * phi / h_max if h_max > 0.0 else -math.inf


def _evaluate_on_support(
    xw: FloatArray, yw: FloatArray, tw: FloatArray, lam: FloatArray, qw: FloatArray, cov: FloatArray
) -> tuple[float, float] | None:
    """Value and dual bound of a possibly singular design, or ``None`` if a target has infinite width.

    With ``B`` an orthonormal basis (rows) of the span of the support, ``A^+ = B^T (B A B^T)^{-1} B``;
    widths of targets in that span and the bound (with ``v_y = A^+ y``, valid for any ``v``) follow.
    """
    on_support = _support_coordinates(xw, yw, lam)
    if on_support is None:
        return None
    basis, x_in, y_in, inv = on_support
    widths = _widths(y_in, inv)
    bound = _dual_bound(x_in, inv, basis @ cov @ basis.T, float(qw @ widths))
    return float(np.max(tw * widths)), bound


def _support_coordinates(
    xw: FloatArray, yw: FloatArray, lam: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray] | None:
    """Basis (rows) of the range of ``A(lam)``, arms and targets in it, and ``A^{-1}`` there.

    ``A = V diag(e) V^T``; eigenvalues below ``_EIG_RTOL * max(e)`` count as zero, so ``A^+`` is
    ``V_k diag(1 / e_k) V_k^T``. ``None`` if a target has a component outside the range.
    """
    e, v = np.linalg.eigh(xw.T @ (lam[:, None] * xw))
    keep = e > _EIG_RTOL * e[-1]
    basis = np.ascontiguousarray(v[:, keep].T)
    y_in = yw @ basis.T
    residual = np.linalg.norm(yw - y_in @ basis, axis=1)
    if np.any(residual > _SPAN_RTOL * np.linalg.norm(yw, axis=1)):
        return None
    return basis, np.ascontiguousarray(xw @ basis.T), np.ascontiguousarray(y_in), np.diag(1.0 / e[keep])


def _lopt_solve(
    xw: FloatArray,
    cov: FloatArray,
    lam: FloatArray,
    inv: FloatArray,
    eps: float,
    n_steps: int,
    max_iter: int,
) -> tuple[FloatArray, FloatArray, int]:
    """Frank--Wolfe with away steps on ``tr(C A^{-1})`` to relative gap ``eps``, with exact refreshes.

    Every ``_REFRESH_EVERY`` steps ``A^{-1}`` is recomputed from ``A``. The line searches make the
    criterion decrease; if the exact criterion increased over a chunk of steps, rounding errors of the
    rank-one updates took over (an ill-conditioned ``A``): the chunk is undone and the solve ends.
    """
    phi = float(np.sum(cov * inv))
    while True:
        budget = min(_REFRESH_EVERY, max_iter - n_steps)
        if budget <= 0:
            break
        start = lam.copy()
        work = inv.copy()
        h = _lopt_gradient(xw, inv, cov)
        _, steps, done = _lopt_steps(xw, cov, LoptIterate(lam, work, h), phi, eps, budget)
        n_steps += steps
        exact = _inverse(xw, lam)
        phi_new = math.inf if exact is None else float(np.sum(cov * exact))
        if not phi_new <= phi * (1.0 + 1e-9):
            lam[:] = start
            break
        inv, phi = exact, phi_new
        if done:
            break
    return lam, inv, n_steps


@numba.njit(cache=True)
def _lopt_steps(
    xw: FloatArray, cov: FloatArray, it: LoptIterate, phi: float, eps: float, max_steps: int
) -> tuple[float, int, bool]:
    """Up to ``max_steps`` Frank--Wolfe / away steps on ``phi(lam) = tr(C A(lam)^{-1})``, in place.

    The iterate ``it`` (``lam``, ``inv = A^{-1}`` and ``h``, ``h_i = x_i^T A^{-1} C A^{-1} x_i``) is updated
    by rank-one formulas in ``O(n r + r^2)``; steps are at most ``_STEP_MAX``. Along
    ``lam + gamma (e_k - lam)``, with ``t = gamma / (1 - gamma)``, ``s = x_k^T A^{-1} x_k`` and ``h = h_k``,
    the objective is ``(1 + t) (phi - t h / (1 + t s))``; its stationary point solves ``s t^2 + 2 t = R``,
    ``R = (h - phi) / (phi s - h)``, i.e. ``t = R / (1 + sqrt(1 + s R))`` (``t > 0``: Frank--Wolfe step;
    ``t < 0``: away step, at most a drop of the weight). Returns ``(phi, n_steps, converged)``, converged
    meaning ``max_i h_i - phi <= eps phi``.
    """
    lam, inv, h = it.lam, it.inv, it.h
    step_max = _STEP_MAX
    n, r = xw.shape
    u = np.empty(r)
    v = np.empty(r)
    w = np.empty(r)
    t_max = step_max / (1.0 - step_max)
    steps = 0
    while True:
        i_fw = 0
        h_max = h[0]
        i_aw = -1
        h_min = np.inf
        for p in range(n):
            if h[p] > h_max:
                h_max = h[p]
                i_fw = p
            if lam[p] > 0.0 and h[p] < h_min:
                h_min = h[p]
                i_aw = p
        if h_max - phi <= eps * phi:
            return phi, steps, True
        if steps >= max_steps:
            return phi, steps, False
        k = i_fw
        t = 0.0
        s = 0.0
        drop = False
        away = False
        if i_aw >= 0 and phi - h_min > h_max - phi and lam[i_aw] < 1.0:
            s = _quad_solve(inv, xw, i_aw, u)
            away = True
            k = i_aw
            den = phi * s - h_min
            big = 1.0 + s * (h_min - phi) / den if den > 0.0 else -1.0
            t = (h_min - phi) / den / (1.0 + math.sqrt(big)) if big > 0.0 else -np.inf
            if lam[k] * s < 1.0 - 1e-6:
                if t <= -lam[k]:  # drop step: A stays positive definite without arm k
                    t = -lam[k]
                    drop = True
            else:  # arm k is needed for A to be invertible: keep at least 1% of its weight
                t = max(t, -(1.0 - 1e-2) * lam[k])
        if not away:
            k = i_fw
            s = _quad_solve(inv, xw, k, u)
            den = phi * s - h_max
            if den <= 0.0:
                t = t_max
            else:
                ratio = (h_max - phi) / den
                t = min(t_max, ratio / (1.0 + math.sqrt(1.0 + s * ratio)))
        c = t / (1.0 + t * s)
        # v = C u, w = A^{-1} C u
        u_c_u = 0.0
        for a in range(r):
            acc = 0.0
            for b in range(r):
                acc += cov[a, b] * u[b]
            v[a] = acc
            u_c_u += u[a] * acc
        for a in range(r):
            acc = 0.0
            for b in range(r):
                acc += inv[a, b] * v[b]
            w[a] = acc
        scale = (1.0 + t) * (1.0 + t)
        for p in range(n):
            xu = 0.0
            xw_p = 0.0
            for a in range(r):
                xu += xw[p, a] * u[a]
                xw_p += xw[p, a] * w[a]
            h[p] = scale * (h[p] - 2.0 * c * xu * xw_p + c * c * u_c_u * xu * xu)
        phi = (1.0 + t) * (phi - c * u_c_u)
        for a in range(r):
            for b in range(r):
                inv[a, b] = (1.0 + t) * (inv[a, b] - c * u[a] * u[b])
        gamma = t / (1.0 + t)
        for p in range(n):
            lam[p] *= 1.0 - gamma
        lam[k] += gamma
        if drop:
            lam[k] = 0.0
        steps += 1


@numba.njit(cache=True)
def _quad_solve(inv: FloatArray, xw: FloatArray, k: int, u: FloatArray) -> float:
    """Write ``u = A^{-1} x_k`` and return ``s = x_k^T A^{-1} x_k``."""
    r = inv.shape[0]
    s = 0.0
    for a in range(r):
        acc = 0.0
        for b in range(r):
            acc += inv[a, b] * xw[k, b]
        u[a] = acc
        s += xw[k, a] * acc
    return s


# --------------------------------------------------------------------------------------------------
# stop="relative-change": the authors' Frank-Wolfe (Lindner et al. 2022, released code)
# --------------------------------------------------------------------------------------------------
def _solve_relative_change(
    xw: FloatArray,
    yw: FloatArray,
    tw: FloatArray,
    lam: FloatArray,
    inv: FloatArray,
    tol: float,
    max_iter: int,
) -> tuple[FloatArray, float, int, bool]:
    """Step ``2/(k+2)`` towards the best arm for the worst target; returns (design, value, steps, stopped)."""
    k = 0
    stopped = False
    while k < max_iter and not stopped:
        widths = _widths(yw, inv)
        budget = min(_REFRESH_EVERY, max_iter - k)
        k, stopped = _relative_change_steps(
            xw, Targets(yw, tw), WidthIterate(lam, inv, widths), k, tol, budget
        )
        exact = _inverse(xw, lam)
        if exact is None:  # pragma: no cover - steps < 1 keep A positive definite
            lam, exact = _positive_definite_start(xw, lam)
        inv = exact
    value = float(np.max(tw * _widths(yw, inv)))
    return lam, value, k, stopped


@numba.njit(cache=True)
def _relative_change_steps(
    xw: FloatArray, targets: Targets, it: WidthIterate, k: int, tol: float, max_steps: int
) -> tuple[int, bool]:
    """Up to ``max_steps`` steps of the authors' rule from step ``k``, on the iterate ``it`` in place;
    returns (steps so far, stopped)."""
    yw, tw = targets.y, targets.weights
    lam, inv, widths = it.lam, it.inv, it.widths
    n, r = xw.shape
    m = yw.shape[0]
    u = np.empty(r)
    v = np.empty(r)
    for _ in range(max_steps):
        worst = 0
        for y in range(1, m):
            if tw[y] * widths[y] > tw[worst] * widths[worst]:
                worst = y
        for a in range(r):
            acc = 0.0
            for b in range(r):
                acc += inv[a, b] * yw[worst, b]
            v[a] = acc
        best = 0
        best_grad = -1.0
        for p in range(n):
            acc = 0.0
            for a in range(r):
                acc += xw[p, a] * v[a]
            if acc * acc > best_grad:
                best_grad = acc * acc
                best = p
        gamma = 2.0 / (k + 3.0)  # iteration k + 1 of the authors' loop: 2 / ((k + 1) + 2)
        norm2 = 0.0
        for p in range(n):
            norm2 += lam[p] * lam[p]
        change = gamma * math.sqrt(max(norm2 - 2.0 * lam[best] + 1.0, 0.0))
        if change < tol * math.sqrt(norm2):
            return k, True
        s = _quad_solve(inv, xw, best, u)
        t = gamma / (1.0 - gamma)
        c = t / (1.0 + t * s)
        for y in range(m):
            acc = 0.0
            for a in range(r):
                acc += yw[y, a] * u[a]
            widths[y] = (1.0 + t) * (widths[y] - c * acc * acc)
        for a in range(r):
            for b in range(r):
                inv[a, b] = (1.0 + t) * (inv[a, b] - c * u[a] * u[b])
        for p in range(n):
            lam[p] *= 1.0 - gamma
        lam[best] += gamma
        k += 1
    return k, False
