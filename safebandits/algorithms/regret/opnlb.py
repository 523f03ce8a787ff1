"""OPNLB: Optimistic-Pessimistic Nonlinear Bandit (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 4).

Finite reward and cost classes on a finite action set (spec ``stagewise.md`` sections 1.6 and 2.5).
Each round the learner

1. fits least squares over each class, ``theta_hat_t = argmin_{f in G_r} sum_s (f(X_s) - R_s)^2`` and
   ``mu_hat_t`` likewise over ``G_c``;
2. builds the confidence sets of Sec. 5.3 (event (39)): the functions within empirical distance
   ``||f - f_hat||_{D_t} = sqrt(sum_s (f(X_s) - f_hat(X_s))^2)`` of the estimate, the cost set also
   restricted to ``mu(x0) = c0``;
3. plays ``pi_t = argmax_{pi in Pi~_t^f} V~_t^r(pi)`` over the pessimistic feasible set (40),
   ``Pi~_t^f = {pi : V~_t^c(pi) <= tau}``, with ``V~_t^c(pi) = max_{mu in C^c} pi.mu`` and
   ``V~_t^r(pi) = max_{theta in C^r} pi.theta + alpha_r (max_{mu' in C^c} pi.mu'
   - min_{mu'' in C^c} pi.mu'')``;
4. samples ``X_t ~ pi_t``.

With finite classes a function is its vector of values on the actions, the data enter only through
per-action counts ``n_a`` and sums ``S_a``, and the least-squares loss of every function is
``sum_a n_a f(a)^2 - 2 f(a) S_a + const`` (updated in ``O(|G|)`` per round). The per-round problem is
solved exactly (:func:`solve_round`).
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
from typing import Any, Literal, NamedTuple

import numpy as np
from scipy.optimize import linprog

from safebandits._validation import (
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.exceptions import ConfigError
from safebandits.records import ArmEstimates, Certificate
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "OPNLB",
    "OPNLBConfig",
    "RoundSolution",
    "confidence_radius",
    "policy_values",
    "solve_round",
]

#: Tolerance of the dominance tests and of the branch-and-bound stopping rule.
_TOL = 1e-12
#: Above this many vectors the (quadratic) dominance pruning is skipped.
_PRUNE_CAP = 1500
#: Most objective vectors ``w`` the branch and bound holds (beyond: truncated, flagged inexact).
_W_CAP = 1_000_000
#: Largest ``|w| x vertices`` product for the one-row relaxation bounds.
_BOUND_CAP = 20_000_000
#: Lazy bound refinements between two bulk refreshes of the branch-and-bound heap.
_REFRESH = 2048


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class OPNLBConfig(LearnerConfig):
    """Configuration of :class:`OPNLB`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Confidence level: the sets use ``gamma(t, delta / 2)`` (Sec. 5.3), so that event (39) holds with
        probability at least ``1 - delta`` (Corollary 54).
    radius_form : {"squared", "literal"}, default "squared"
        ``"squared"``: ``||f - f_hat||^2_{D_t} <= radius_scale * gamma`` -- the bound Lemma 53 proves
        (on the squared distance), the consistent reading; ``"literal"``: ``||f - f_hat||_{D_t} <=
        radius_scale * gamma`` as the sets are printed (looser, still valid).
    radius_scale : float > 0, default 1.0
        Multiplier of ``gamma(t, delta) = 512 log(24 |G| log(2t) / delta)``. The constant 512 makes the
        theoretical sets so wide that they barely shrink over practical horizons (with ``|G| = 20``,
        ``delta = 0.05``, ``gamma(300, delta / 2)`` is about 6 000, a bound on a *squared* distance),
        so experiments use a small multiplier (e.g. 0.001-0.01). Values below 1 void the guarantee;
        the test-suite measures how often the truth stays in the sets.
    alpha_r : float >= 0 or None, default None
        Weight of the cost-width bonus in ``V~^r``. ``None``: ``(1 - r0) / (tau - c0)`` (Lemma 37);
        note that this may be below 1, although Algorithm 4's input line says ``alpha_r >= 1``.
    constrain_reward_safe : bool, default False
        Also restrict the reward set to ``theta(x0) = r0`` (``r0`` is known). The paper restricts only
        the cost set; this option is ours.
    safe_tol : float >= 0, default 1e-9
        Tolerance of the equality ``mu(x0) = c0`` (and ``theta(x0) = r0``).
    cache_size : int >= 0, default 4096
        Maximum number of per-round solutions kept, keyed by the confidence sets (and the available
        actions); 0 disables the cache. The solution depends on the data only through the sets.
    max_lps : int >= 1 or None, default None
        Budget of linear programmes per round of the exact solver's branch and bound (only used when
        the vertex enumeration is too large); ``None`` solves every round to optimality. With a
        budget the policy stays estimated-feasible (safety is kept) but may not be the maximiser
        (optimism, Lemma 37, may be lost); :meth:`OPNLB.diagnostics` counts such rounds.
    """

    delta: float = 0.05
    radius_form: Literal["squared", "literal"] = "squared"
    radius_scale: float = 1.0
    alpha_r: float | None = None
    constrain_reward_safe: bool = False
    safe_tol: float = 1e-9
    cache_size: int = 4096
    max_lps: int | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_literal_fields(self, owner=owner)
        check_positive(self.radius_scale, "radius_scale", owner=owner)
        if self.alpha_r is not None:
            check_positive(self.alpha_r, "alpha_r", owner=owner, allow_zero=True)
        if not isinstance(self.constrain_reward_safe, (bool, np.bool_)):
            check_choice(self.constrain_reward_safe, "constrain_reward_safe", (True, False), owner=owner)
            raise ConfigError(f"The 'constrain_reward_safe' parameter of {owner} must be a bool.")
        check_positive(self.safe_tol, "safe_tol", owner=owner, allow_zero=True)
        check_int(self.cache_size, "cache_size", low=0, owner=owner)
        if self.max_lps is not None:
            check_int(self.max_lps, "max_lps", low=1, owner=owner)


def confidence_radius(t: int, n_functions: int, delta: float) -> float:
    """``gamma(t, delta) = 512 log(24 |G| log(2t) / delta)`` (Sec. 5.3, from Corollary 54).

    Examples
    --------
    >>> round(confidence_radius(1, 1, 1.0), 3)  # 512 log(24 log 2)
    1439.509
    """
    return 512.0 * math.log(24.0 * n_functions * math.log(2.0 * t) / delta)


# -- values and the exact per-round solver -----------------------------------------------------------


def policy_values(
    pis: FloatArray, reward_set: FloatArray, cost_set: FloatArray, alpha_r: float
) -> tuple[FloatArray, FloatArray]:
    """``V~^r(pi)`` and ``V~^c(pi)`` of policies (rows of ``pis``) for given confidence sets.

    Parameters
    ----------
    pis : ndarray of shape (k, n) or (n,)
        Policies over the actions.
    reward_set : ndarray of shape (k_r, n)
        ``C^r`` (surviving reward functions).
    cost_set : ndarray of shape (k_c, n)
        ``C^c`` (surviving cost functions).
    alpha_r : float

    Returns
    -------
    v_r, v_c : ndarray of shape (k,)
        ``max_theta pi.theta + alpha_r (max_mu' pi.mu' - min_mu'' pi.mu'')`` and ``max_mu pi.mu``
        (maxima over an empty set are ``-inf``).
    """
    pis = np.atleast_2d(pis)
    if cost_set.shape[0] == 0:  # maxima over an empty set
        return np.full(pis.shape[0], -np.inf), np.full(pis.shape[0], -np.inf)
    pc = pis @ cost_set.T
    v_c = pc.max(axis=1)
    width = v_c - pc.min(axis=1)
    if reward_set.shape[0] == 0:
        return np.full(pis.shape[0], -np.inf), v_c
    v_r = (pis @ reward_set.T).max(axis=1) + alpha_r * width
    return v_r, v_c


def _maxima(x: FloatArray, *, minima: bool = False) -> FloatArray:
    """Rows of ``x`` not dominated componentwise by another row (the Pareto maxima, or minima).

    A support function of a subset of the non-negative orthant is monotone, so a dominated reward
    vector can never be the maximiser of a linear objective over policies.
    """
    x = np.unique(x, axis=0)
    if x.shape[0] <= 1:
        return x
    y = -x if minima else x
    order = np.argsort(-y.sum(axis=1), kind="stable")
    y = y[order]
    keep = np.ones(y.shape[0], dtype=bool)
    block = max(1, 2_000_000 // (y.shape[0] * y.shape[1]))
    for start in range(0, y.shape[0], block):
        sl = slice(start, start + block)
        # dominated[i, j]: row j >= row i everywhere and > somewhere.
        ge = np.all(y[None, :, :] >= y[sl, None, :] - _TOL, axis=2)
        gt = np.any(y[None, :, :] > y[sl, None, :] + _TOL, axis=2)
        keep[sl] = ~np.any(ge & gt, axis=1)
    return x[order][keep]


def _constraint_rows(cost_set: FloatArray, tau: float) -> FloatArray:
    """The cost functions whose constraints ``pi.mu <= tau`` are not implied by the others or the simplex."""
    rows = cost_set[cost_set.max(axis=1) > tau]
    return _maxima(rows) if rows.shape[0] > 1 else rows


def _one_row_vertices(c: FloatArray | None, tau: float, n: int) -> FloatArray:
    """Vertices of ``{pi in simplex : pi.c <= tau}`` (all of the simplex's if ``c`` is None).

    Feasible pure actions ``c_a <= tau`` and, for ``c_a <= tau < c_b``, the mixture with
    ``pi.c = tau``: ``pi_a = (c_b - tau) / (c_b - c_a)``, ``pi_b = (tau - c_a) / (c_b - c_a)``.
    """
    if c is None:
        return np.eye(n)
    low = np.flatnonzero(c <= tau)
    high = np.flatnonzero(c > tau)
    a, b = np.meshgrid(low, high, indexing="ij")
    a, b = a.ravel(), b.ravel()
    k = a.size
    pairs = np.zeros((k, n))
    gap = c[b] - c[a]
    pairs[np.arange(k), a] = (c[b] - tau) / gap
    pairs[np.arange(k), b] = (tau - c[a]) / gap
    return np.vstack([np.eye(n)[low], pairs])


#: Largest number of candidate bases for which :func:`_polytope_vertices` enumerates the vertices.
_VERTEX_CAP = 50_000


def _n_bases(n: int, m: int) -> int:
    """Number of candidate bases (support ``S``, ``|S| - 1`` tight rows) of ``P`` with ``m`` rows."""
    return sum(math.comb(n, s) * math.comb(m, s - 1) for s in range(1, min(n, m + 1) + 1))


def _polytope_vertices(rows: FloatArray, tau: float, n: int) -> FloatArray:
    """All vertices of ``P = {pi in simplex : rows @ pi <= tau}`` by enumeration of bases.

    A vertex with support ``S`` has ``|S| - 1`` tight rows ``J`` and solves
    ``[1; rows[J, S]] pi_S = [1; tau]``; every (S, J) is tried in one batched solve and the feasible
    solutions are kept. Cost ``sum_s C(n, s) C(m, s - 1)`` small linear systems.
    """
    m = rows.shape[0]
    out = []
    for s in range(1, min(n, m + 1) + 1):
        supports = np.array(list(itertools.combinations(range(n), s)), dtype=np.int64)
        subsets = np.array(list(itertools.combinations(range(m), s - 1)), dtype=np.int64)
        subsets = subsets.reshape(len(subsets), s - 1)
        sup = np.repeat(supports, subsets.shape[0], axis=0)
        sub = np.tile(subsets, (supports.shape[0], 1))
        k = sup.shape[0]
        mat = np.ones((k, s, s))
        if s > 1:
            mat[:, 1:, :] = rows[sub[:, :, None], sup[:, None, :]]
        rhs = np.full((k, s), tau)
        rhs[:, 0] = 1.0
        det = np.linalg.det(mat)
        ok = np.abs(det) > 1e-12
        if not np.any(ok):
            continue
        sol = np.linalg.solve(mat[ok], rhs[ok][:, :, None])[:, :, 0]
        pis = np.zeros((sol.shape[0], n))
        np.put_along_axis(pis, sup[ok], sol, axis=1)
        feasible = np.all(pis >= -1e-12, axis=1) & np.all(pis @ rows.T <= tau + 1e-9, axis=1)
        out.append(pis[feasible])
    return np.vstack(out) if out else np.zeros((0, n))


def _candidate_vectors(
    reward_set: FloatArray, cost_set: FloatArray, alpha_r: float
) -> tuple[FloatArray, bool]:
    """The objective vectors ``w = theta + alpha_r (mu' - mu'')`` that can win, and whether all are kept.

    ``theta`` ranges over the Pareto maxima of ``C^r``, ``mu'`` over the maxima and ``mu''`` over the
    minima of ``C^c`` (a dominated ``w`` never has a larger LP value: the policies are non-negative);
    the differences and the sums are pruned again while small enough (``_PRUNE_CAP``). Beyond
    ``_W_CAP`` vectors the differences with the smallest sums are dropped (not exact any more).
    """
    n = reward_set.shape[1]

    def prune(x: FloatArray, minima: bool = False) -> FloatArray:
        return _maxima(x, minima=minima) if x.shape[0] <= _PRUNE_CAP else x

    thetas = prune(reward_set)
    if alpha_r == 0.0 or cost_set.shape[0] == 1:
        return thetas, True
    hi, lo = prune(cost_set), prune(cost_set, minima=True)
    diffs = prune((hi[:, None, :] - lo[None, :, :]).reshape(-1, n))
    exact = True
    if thetas.shape[0] * diffs.shape[0] > _W_CAP:
        keep = max(1, _W_CAP // thetas.shape[0])
        diffs = diffs[np.argsort(-diffs.sum(axis=1), kind="stable")[:keep]]
        exact = False
    w = (thetas[:, None, :] + alpha_r * diffs[None, :, :]).reshape(-1, n)
    return prune(w), exact


class RoundSolution(NamedTuple):
    """Result of :func:`solve_round`.

    Attributes
    ----------
    pi : ndarray of shape (n,)
        The policy (estimated-feasible: ``V~^c(pi) <= tau``).
    value : float
        ``V~^r(pi)`` (NaN on a fallback).
    n_lps : int
        Linear programmes solved.
    fallback : bool
        An empty confidence set forced ``pi0``.
    exact : bool
        The policy is a certified maximiser (``False`` if ``max_lps`` stopped the branch and bound or
        the candidate vectors were truncated).
    """

    pi: FloatArray
    value: float
    n_lps: int
    fallback: bool
    exact: bool = True


def _lp(w: FloatArray, rows: FloatArray, tau: float) -> tuple[FloatArray, FloatArray] | None:
    """``argmax {pi.w : pi in simplex, rows @ pi <= tau}`` (HiGHS) and the rows' multipliers ``>= 0``."""
    n = w.shape[0]
    res = linprog(
        -w,
        A_ub=rows,
        b_ub=np.full(rows.shape[0], tau),
        A_eq=np.ones((1, n)),
        b_eq=np.ones(1),
        bounds=[(0.0, None)] * n,
        method="highs",
    )
    if res.status != 0:  # pragma: no cover - pi0 is always feasible
        return None
    pi = np.clip(res.x, 0.0, None)
    lam = np.clip(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0, None)
    return pi / pi.sum(), lam


def _refresh(
    heap: list[tuple[float, int, int]], w: FloatArray, duals: FloatArray, offsets: FloatArray, best: float
) -> list[tuple[float, int, int]]:
    """Rebuild the branch-and-bound heap with every multiplier applied, dropping beaten vectors."""
    neg, idx, ks = (np.array(col) for col in zip(*heap)) if heap else (np.zeros(0),) * 3
    idx = idx.astype(np.int64)
    bound = -neg.astype(np.float64)
    for j in range(int(ks.min()) if ks.size else offsets.shape[0], offsets.shape[0]):
        sel = ks <= j
        lag = offsets[j] + (w[idx[sel]] - duals[j][None, :]).max(axis=1)
        bound[sel] = np.minimum(bound[sel], lag)
    keep = bound > best + 1e-10
    out = list(zip((-bound[keep]).tolist(), idx[keep].tolist(), itertools.repeat(offsets.shape[0])))
    heapq.heapify(out)
    return out


def solve_round(
    reward_set: FloatArray,
    cost_set: FloatArray,
    *,
    tau: float,
    alpha_r: float,
    safe_arm: int,
    method: Literal["auto", "vertices", "lp"] = "auto",
    max_lps: int | None = None,
) -> RoundSolution:
    """Exact ``argmax_{pi : V~^c(pi) <= tau} V~^r(pi)`` for finite confidence sets (Alg. 4, line 5).

    The feasible set (40) is the polytope ``P = {pi in simplex : pi.mu <= tau for all mu in C^c}`` and
    ``V~^r(pi) = max_w pi.w`` over ``w = theta + alpha_r (mu' - mu'')`` is a maximum of linear
    functions, hence convex: its maximum over ``P`` is attained at a vertex of ``P``, and it equals
    ``max_w max_P pi.w`` -- one linear programme per vector ``w``. First, constraint rows implied by
    others (``max mu <= tau``, or dominated componentwise by another row) are dropped; ``m`` rows remain.

    * ``method="vertices"``: enumerate the vertices of ``P`` (:func:`_polytope_vertices`; closed form
      when ``m <= 1``) and evaluate ``V~^r`` at each.
    * ``method="lp"``: the reference -- one LP (HiGHS) per candidate vector ``w`` (see
      :func:`_candidate_vectors`: dominated ``theta``, ``mu'``, ``mu''`` and ``w`` are pruned, since an
      LP's value over a subset of the non-negative orthant is monotone in ``w``) whose trivial bound
      ``max_a w_a`` exceeds the best value found, in decreasing bound order.
    * ``method="auto"`` (default): the vertices when ``m <= 1`` or when there are at most
      ``_VERTEX_CAP`` candidate bases; otherwise branch and bound over the ``w``, best bound first,
      with the bounds (all valid by weak duality) ``tau sum(lam) + max_a (w - lam @ rows)_a`` for the
      multipliers ``lam >= 0`` of the LP of the componentwise maximum of the ``w`` and, lazily, of every
      LP solved since, and ``max_{P_j} pi.w`` over the one-row relaxations ``P_j`` (closed form); the
      incumbent is ``V~^r`` of every LP solution (at least that LP's value) and of the feasible
      vertices of the relaxations.

    The returned policy is mixed with ``pi0`` if numerical error left ``V~^c(pi)`` above ``tau``.
    ``pi0`` (all mass on ``safe_arm``) is returned when ``C^r`` or ``C^c`` is empty.

    Parameters
    ----------
    reward_set : ndarray of shape (k_r, n)
    cost_set : ndarray of shape (k_c, n)
        Every row must satisfy ``mu(x0) = c0 < tau``.
    tau, alpha_r : float
    safe_arm : int
    method : {"auto", "vertices", "lp"}
    max_lps : int or None
        Stop the branch and bound after this many LPs and return the best policy found (still
        estimated-feasible; ``exact=False``). ``None``: run to optimality.

    Returns
    -------
    RoundSolution
    """
    n = cost_set.shape[1]
    pi0 = np.zeros(n)
    pi0[safe_arm] = 1.0
    if reward_set.shape[0] == 0 or cost_set.shape[0] == 0:
        return RoundSolution(pi0, math.nan, 0, True, True)
    rows = _constraint_rows(cost_set, tau)
    m = rows.shape[0]

    def value(pis: FloatArray) -> FloatArray:
        return policy_values(pis, reward_set, cost_set, alpha_r)[0]

    n_lps = 0
    exact = True
    use_vertices = method == "vertices" or (method == "auto" and (m <= 1 or _n_bases(n, m) <= _VERTEX_CAP))
    if use_vertices:
        if m <= 1:
            verts = _one_row_vertices(rows[0] if m else None, tau, n)
        else:
            verts = np.vstack([pi0[None, :], _polytope_vertices(rows, tau, n)])
        vals = value(verts)
        best = int(np.argmax(vals))
        best_pi, best_val = verts[best], float(vals[best])
    else:
        w, exact = _candidate_vectors(reward_set, cost_set, alpha_r)
        best_pi, best_val = pi0, float(value(pi0)[0])
        duals = np.zeros((0, n))  # lam @ rows of every LP solved (Lagrangian bounds)
        offsets = np.zeros(0)  # tau * sum(lam)

        def solve(c: FloatArray) -> None:
            nonlocal best_pi, best_val, duals, offsets, n_lps
            out = _lp(c, rows, tau)
            n_lps += 1
            if out is None:  # pragma: no cover - pi0 is always feasible
                return
            pi, lam = out
            v = float(value(pi)[0])
            if v > best_val:
                best_pi, best_val = pi, v
            duals = np.vstack([duals, lam @ rows])
            offsets = np.append(offsets, tau * float(lam.sum()))

        if method == "auto":
            # The componentwise maximum of the w dominates them all: its LP gives an incumbent and
            # multipliers that bound every w at once.
            solve(w.max(axis=0))
            ub = offsets[0] + (w - duals[0][None, :]).max(axis=1)
            budget = _BOUND_CAP
            for row in rows:  # one-row relaxations: closed-form bounds and feasible vertices
                verts = _one_row_vertices(row, tau, n)
                if w.shape[0] * verts.shape[0] <= budget:
                    ub = np.minimum(ub, (w @ verts.T).max(axis=1))
                    budget -= w.shape[0] * verts.shape[0]
                verts = verts[np.all(verts @ rows.T <= tau, axis=1)]
                if verts.shape[0]:
                    vals = value(verts)
                    if vals.max() > best_val:
                        best_pi, best_val = verts[int(np.argmax(vals))], float(vals.max())
        else:
            ub = w.max(axis=1)
        # Best bound first (a heap of the w that can still win); bounds are tightened lazily with the
        # multipliers of the LPs solved since they were computed.
        alive = np.flatnonzero(ub > best_val + 1e-10)
        heap = list(zip((-ub[alive]).tolist(), alive.tolist(), itertools.repeat(offsets.shape[0])))
        heapq.heapify(heap)
        pops = 0
        while heap:
            if method == "auto" and pops >= _REFRESH:
                # Many lazy refinements: apply the new multipliers to every live bound at once.
                heap = _refresh(heap, w, duals, offsets, best_val)
                pops = 0
                continue
            neg, i, k = heapq.heappop(heap)
            pops += 1
            if -neg <= best_val + 1e-10:
                break
            if method == "auto" and k < offsets.shape[0]:
                lag = float((offsets[k:] + (w[i][None, :] - duals[k:]).max(axis=1)).min())
                if lag < -neg - 1e-12:
                    heapq.heappush(heap, (-lag, i, offsets.shape[0]))
                    continue
            if max_lps is not None and n_lps >= max_lps:
                exact = False
                break
            solve(w[i])
    pi = np.clip(best_pi, 0.0, None)
    pi = pi / pi.sum()
    v_c = float((cost_set @ pi).max())
    if v_c > tau:  # numerical slack: pull the policy back towards pi0 (whose cost is c0 < tau)
        c0 = float(cost_set[0, safe_arm])
        eta = (tau - c0) / (v_c - c0) * (1.0 - 1e-12)
        pi = eta * pi + (1.0 - eta) * pi0
    return RoundSolution(pi, float(value(pi)[0]), n_lps, False, exact)


# -- the learner -----------------------------------------------------------------------------------


class _ClassLS:
    """Least squares over a finite class from per-action counts and sums, with empirical distances.

    ``loss_i = sum_a n_a G_ia^2 - 2 G_ia S_a`` (the squared error up to the constant ``sum_s y_s^2``)
    and ``dist2_i = sum_a n_a (G_ia - G_ja)^2`` to the minimiser ``j`` are both updated in ``O(|G|)``
    per observation; the distances are recomputed in ``O(|G| n)`` when the minimiser changes.
    """

    def __init__(self, g: FloatArray) -> None:
        self.g = g
        self.g2 = g * g
        self.loss = np.zeros(g.shape[0])
        self.dist2 = np.zeros(g.shape[0])
        self.best = 0

    def update(self, a: int, y: float, counts: FloatArray) -> None:
        col = self.g[:, a]
        self.loss += self.g2[:, a] - 2.0 * y * col
        best = int(np.argmin(self.loss))
        if best != self.best:
            self.best = best
            self.dist2 = ((self.g - self.g[best]) ** 2) @ counts
        else:
            diff = col - col[best]
            self.dist2 += diff * diff


@register_algorithm(
    "opnlb",
    task="regret",
    description="OPNLB: optimistic-pessimistic least squares over finite function classes (Alg. 4).",
    info="function-class",
    guarantee="expectation",
    assumptions=("function-class", "outcomes-in-unit", "noise", "safe-action"),
)
class OPNLB(BaseLearner):
    """OPNLB, Optimistic-Pessimistic Nonlinear Bandit (Pacchiano et al., Algorithm 4; Theorem 38).

    In-expectation stage-wise constraint (``setting = "expectation"``): every policy ``pi_t`` satisfies
    ``E_{pi_t} mu*(X) <= tau`` whenever ``mu*`` is in the cost confidence set (Lemma 37).

    Per round ``t`` (data ``D_t`` of the ``t - 1`` previous rounds):

    1. least squares over ``G_r`` and ``G_c`` (line 3);
    2. ``C_t^r = {theta in G_r : ||theta - theta_hat_t||_{D_t} <= gamma_r(t, delta/2)}`` and
       ``C_t^c = {mu in G_c : ||mu - mu_hat_t||_{D_t} <= gamma_c(t, delta/2), mu(x0) = c0}`` with
       ``gamma(t, delta) = 512 log(24 |G| log(2t) / delta)`` (Sec. 5.3; see ``radius_form``,
       ``radius_scale``);
    3. ``pi_t = argmax {V~^r(pi) : V~^c(pi) <= tau}`` (eq. 40, line 5), solved exactly by
       :func:`solve_round`; ``pi0`` if a set is empty;
    4. ``X_t ~ pi_t`` with the learner's generator; ``Decision(arm=X_t, probs=pi_t)``.

    Parameters
    ----------
    config : OPNLBConfig
    info : FunctionClassInfo
        The classes ``G_r``, ``G_c``, ``x0``, ``r0``, ``c0``, ``tau`` (not the true functions).
    rng : numpy.random.Generator
        Samples ``X_t ~ pi_t``.

    Notes
    -----
    ``ask(context)`` accepts the round's available actions ``A_t`` as an index array or a boolean mask
    (it must contain ``x0``); ``None`` means every action.

    Cost per round: ``O((|G_r| + |G_c|) n)`` at most for the estimates and sets (``O(|G|)`` when the
    least-squares minimiser does not move); the exact solver runs only when the confidence sets differ
    from every cached pair. Measured (this machine): about 20-30 us per cached round; one solve takes
    about 1 ms with 5 actions and 20 functions per class (vertex enumeration), about 0.1-0.5 s with
    8 actions and 40-50 functions all in the sets (branch and bound, 40-5 000 LPs), a few seconds
    with 10 actions and 100 functions -- maximising the convex ``V~^r`` over a polytope is hard in
    general; ``max_lps`` caps it.

    Deviations (``docs/decisions/stagewise.md``): the squared radius by default (``radius_form``); the radius
    multiplier ``radius_scale``; ``alpha_r = (1 - r0) / (tau - c0)`` by default even when below 1;
    ``delta`` is halved once (``gamma(t, delta / 2)``), as the sets are printed; least-squares ties
    go to the lowest index and ``theta_hat``, ``mu_hat`` are unconstrained (only the sets use
    ``mu(x0) = c0``); an empty set plays ``pi0``; the solver's policy is pulled towards ``pi0`` when
    numerical slack leaves it above ``tau``; the per-round problem, for which the paper gives no
    method, is solved exactly over finite classes (:func:`solve_round`).
    """

    config_cls = OPNLBConfig
    setting = "expectation"

    def __init__(self, config: OPNLBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        for attr in ("reward_class", "cost_class", "safe_arm", "safe_reward", "safe_cost", "threshold"):
            if getattr(info, attr, None) is None:
                raise ConfigError(
                    f"OPNLB needs a FunctionClassInfo (reward_class, cost_class, safe_arm, safe_reward, "
                    f"safe_cost, threshold); got {type(info).__name__} without {attr!r}."
                )
        g_r = np.ascontiguousarray(info.reward_class, dtype=np.float64)
        g_c = np.ascontiguousarray(info.cost_class, dtype=np.float64)
        if g_r.ndim != 2 or g_c.ndim != 2 or g_r.shape[1] != g_c.shape[1]:
            raise ConfigError(
                f"OPNLB needs reward and cost classes of shapes (|G_r|, n) and (|G_c|, n); "
                f"got {g_r.shape} and {g_c.shape}."
            )
        self.n_actions = n = g_r.shape[1]
        self.safe_arm = int(info.safe_arm)
        self.r0 = float(info.safe_reward)
        self.c0 = float(info.safe_cost)
        self.tau = float(info.threshold)
        if not 0 <= self.safe_arm < n:
            raise ConfigError(f"safe_arm must be in [0, {n}); got {self.safe_arm}.")
        # c0 < tau (Assumption 5; alpha_r = (1 - r0) / (tau - c0)) is checked by FunctionClassInfo itself
        cfg = config
        self.alpha_r = (1.0 - self.r0) / (self.tau - self.c0) if cfg.alpha_r is None else float(cfg.alpha_r)
        self._ls_r = _ClassLS(g_r)
        self._ls_c = _ClassLS(g_c)
        self._safe_ok_c = np.abs(g_c[:, self.safe_arm] - self.c0) <= cfg.safe_tol
        self._safe_ok_r = (
            np.abs(g_r[:, self.safe_arm] - self.r0) <= cfg.safe_tol
            if cfg.constrain_reward_safe
            else np.ones(g_r.shape[0], dtype=bool)
        )
        self.counts = np.zeros(n)
        self.reward_sums = np.zeros(n)
        self.cost_sums = np.zeros(n)
        self.t = 1  # current round (1-based): D_t holds t - 1 observations
        self._all = np.ones(n, dtype=bool)
        self._cache: dict[bytes, tuple[FloatArray, FloatArray, float]] = {}
        self.n_solves = 0
        self.n_lps = 0
        self.cache_hits = 0
        self.n_fallbacks = 0
        self.n_inexact = 0
        self.last_value = math.nan

    # -- estimates and sets ----------------------------------------------------------------------
    @property
    def reward_class(self) -> FloatArray:
        return self._ls_r.g

    @property
    def cost_class(self) -> FloatArray:
        return self._ls_c.g

    def estimates(self) -> tuple[int, int]:
        """Indices of the least-squares estimates ``theta_hat_t`` in ``G_r`` and ``mu_hat_t`` in ``G_c``."""
        return self._ls_r.best, self._ls_c.best

    def radii(self) -> tuple[float, float]:
        """Bounds on the squared empirical distance for ``C^r`` and ``C^c`` in the current round."""
        cfg = self.config
        half = cfg.delta / 2.0
        out = []
        for ls in (self._ls_r, self._ls_c):
            rad = cfg.radius_scale * confidence_radius(self.t, ls.g.shape[0], half)
            out.append(rad if cfg.radius_form == "squared" else rad * rad)
        return out[0], out[1]

    def confidence_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """Boolean masks of ``C_t^r`` over ``G_r`` and ``C_t^c`` over ``G_c`` (Sec. 5.3)."""
        rad_r, rad_c = self.radii()
        mask_r = (self._ls_r.dist2 <= rad_r) & self._safe_ok_r
        mask_c = (self._ls_c.dist2 <= rad_c) & self._safe_ok_c
        return mask_r, mask_c

    def arm_estimates(self) -> ArmEstimates:
        """Per action: the least-squares functions' values ``theta_hat_t(a)``, ``mu_hat_t(a)`` and, as the
        interval, the smallest and largest value over the confidence sets ``C_t^r``, ``C_t^c`` (Sec. 5.3;
        an empty set leaves the interval unbounded)."""
        mask_r, mask_c = self.confidence_sets()
        best_r, best_c = self.estimates()
        cols = []
        for g, mask, best in ((self.reward_class, mask_r, best_r), (self.cost_class, mask_c, best_c)):
            plausible = g[mask]
            if plausible.shape[0]:
                cols.append((g[best], plausible.min(axis=0), plausible.max(axis=0)))
            else:
                cols.append((g[best], np.full(self.n_actions, -np.inf), np.full(self.n_actions, np.inf)))
        est, lower, upper = (np.column_stack([c[i] for c in cols]) for i in range(3))
        est = np.clip(est, lower, upper)  # (the least-squares function may sit outside a set it fails)
        how = "least-squares function's value; interval: min / max over the confidence sets C_t (Sec. 5.3)"
        return ArmEstimates(("reward", "cost"), est, lower, upper, (None, self.tau), interval=how)

    def values(self, pis: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``V~_t^r`` and ``V~_t^c`` of policies (rows of ``pis``) under the current sets."""
        mask_r, mask_c = self.confidence_sets()
        return policy_values(
            np.atleast_2d(pis), self.reward_class[mask_r], self.cost_class[mask_c], self.alpha_r
        )

    # -- protocol --------------------------------------------------------------------------------
    def _available(self, context: Any) -> np.ndarray:
        if context is None:
            return self._all
        arr = np.asarray(context)
        if arr.dtype == bool:
            if arr.shape != (self.n_actions,):
                raise ConfigError(f"An action mask must have shape ({self.n_actions},); got {arr.shape}.")
            mask = arr.copy()
        else:
            idx = arr.astype(np.int64).ravel()
            if idx.size == 0 or idx.min() < 0 or idx.max() >= self.n_actions:
                raise ConfigError(
                    f"Available actions must be indices in [0, {self.n_actions}); got {context!r}."
                )
            mask = np.zeros(self.n_actions, dtype=bool)
            mask[idx] = True
        if not mask[self.safe_arm]:
            raise ConfigError("The round's action set must contain the safe action x0 (Assumption 5).")
        return mask

    def policy(self, context: Any = None) -> FloatArray:
        """``pi_t`` for the current data (cached by confidence sets and available actions)."""
        return self._policy(self._available(context))[0].copy()

    def _policy(self, avail: np.ndarray) -> tuple[FloatArray, FloatArray, float]:
        mask_r, mask_c = self.confidence_sets()
        key = mask_r.tobytes() + mask_c.tobytes() + avail.tobytes()
        hit = self._cache.get(key)
        if hit is not None:
            self.cache_hits += 1
            return hit
        cols = np.flatnonzero(avail)
        sol = solve_round(
            self.reward_class[np.ix_(mask_r, cols)],
            self.cost_class[np.ix_(mask_c, cols)],
            tau=self.tau,
            alpha_r=self.alpha_r,
            safe_arm=int(np.searchsorted(cols, self.safe_arm)),
            max_lps=self.config.max_lps,
        )
        self.n_solves += 1
        self.n_lps += sol.n_lps
        self.n_fallbacks += int(sol.fallback)
        self.n_inexact += int(not sol.exact)
        pi = np.zeros(self.n_actions)
        pi[cols] = sol.pi
        pi.flags.writeable = False
        cdf = np.cumsum(pi)
        entry = (pi, cdf, sol.value)
        if self.config.cache_size > 0:
            if len(self._cache) >= self.config.cache_size:
                self._cache.clear()
            self._cache[key] = entry
        return entry

    def _ask(self, context: Any) -> Decision:
        pi, cdf, value = self._policy(self._available(context))
        self.last_value = value
        u = self.rng.random() * cdf[-1]
        a = min(int(np.searchsorted(cdf, u, side="right")), self.n_actions - 1)
        return Decision(arm=a, probs=pi)

    def _certificate(self, decision: Decision) -> Certificate:
        """The policy's pessimistic expected cost ``V~_t^c(pi_t) = max_{mu in C_t^c} pi_t . mu <= tau``
        (eq. 40) over the confidence set it was solved with; ``pi0`` (all mass on the safe action: an empty
        confidence set, or the best policy) is certified as the known safe action."""
        t, probs = self.n_samples + 1, np.asarray(decision.probs, dtype=np.float64)
        alone = Certificate.safe_action_only(probs, self.safe_arm, t, "x0: the known safe action")
        if alone is not None:
            return alone
        _, v_c = self.values(probs)
        return Certificate(kind="policy-bound", round=t, bound=v_c, threshold=np.array([self.tau]),
                           basis="V~_t^c(pi_t) = max over C_t^c of pi_t . mu <= tau (eq. 40)")  # fmt: skip

    def _tell(self, decision: Decision, observation: Observation) -> None:  # type: ignore[override]
        a = int(decision.arm)  # type: ignore[arg-type]
        r = float(observation.reward)  # type: ignore[arg-type]
        c = float(np.asarray(observation.constraints).ravel()[0])
        self.counts[a] += 1.0
        self.reward_sums[a] += r
        self.cost_sums[a] += c
        self._ls_r.update(a, r, self.counts)
        self._ls_c.update(a, c, self.counts)
        self.t += 1

    def diagnostics(self) -> dict[str, Any]:
        """Run summary: ``alpha_r``, final set sizes and radii, solver and cache counters."""
        mask_r, mask_c = self.confidence_sets()
        rad_r, rad_c = self.radii()
        return {
            "alpha_r": self.alpha_r,
            "reward_set_size": int(mask_r.sum()),
            "cost_set_size": int(mask_c.sum()),
            "radius_r": rad_r,
            "radius_c": rad_c,
            "n_solves": self.n_solves,
            "n_lps": self.n_lps,
            "cache_hits": self.cache_hits,
            "fallbacks": self.n_fallbacks,
            "inexact_solves": self.n_inexact,
        }
