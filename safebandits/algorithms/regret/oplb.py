"""OPLB: Optimistic-Pessimistic Linear Bandit (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 2).

In-expectation stage-wise constraints: each round the learner picks a policy ``pi_t`` over the finite
action set ``{x0} u {a_1..a_K}``, samples ``X_t ~ pi_t`` and must keep ``E_{pi_t} <X, mu*_i> <= tau_i``.
Algorithm 2 solves (34): ``max V~r(pi)`` s.t. ``V~c_i(pi) <= tau_i``, where both values depend only on the
mean action ``x_pi`` (eqs. 29-32): ``V~r`` is convex in ``x_pi`` and the feasible set is the intersection
of ``conv(A_t)`` with second-order cones, a non-convex maximisation that the paper leaves unsolved.

Solvers (``OPLBConfig.solver``): the default, ``"search"``, (34) itself, is described here (defaults follow
the paper's programme). ``"arm-lp"`` (an option) values each policy by its arms' indices, the one-constraint
LP solved exactly (:mod:`~.oplb_lp`: a conservative version of (34) with the same guarantees, not its
optimum; about 10x cheaper per round).

Practical solver (spec ``stagewise.md`` Sec. 2.3, option 2): policies supported on ``{x0, a_i}`` and
``{x0, a_i, a_k}``. Write a policy of the second kind as ``x_pi = x0 + eta (y(phi) - x0)`` with the
*virtual vertex* ``y(phi) = (1 - phi) a_i + phi a_k`` (``pi = (1 - eta) on x0, eta (1 - phi) on a_i,
eta phi on a_k``). For fixed ``phi`` this is a ray from ``x0``, along which the pessimistic cost is
affine (eq. 18), so the largest feasible ``eta`` is LC-LUCB's closed form
``eta(phi) = min(1, min_i (tau_i - c0_i) / (V~c_i(y(phi)) - c0_i))``, and, ``V~r`` being convex along
the ray, the best policy of the ray is ``pi0`` or the one at ``eta(phi)``. Per round:

* ``pi0`` and, for every arm, the scaled 2-support ``eta(0)`` (exact, closed form);
* for every pair with at least one pessimistically infeasible arm, ``g(phi) = V~r(x0 + eta(phi)
  (y(phi) - x0))`` is maximised over ``phi``: exactly at the *corners* of the pair's feasible region
  (the ``phi`` where the edge ``[a_i, a_k]`` crosses a boundary ``V~c_j = tau_j``, roots of a quadratic),
  on a grid of ``n_grid`` cells, then by ``refine_iters`` golden-section steps around every local
  maximum of the grid values. Pairs with both arms feasible are skipped (the whole triangle is feasible
  at ``eta = 1``, ``g`` is convex in ``phi`` and maximal at an arm), and so are pairs whose upper bound
  ``max(V~r(x0), V~r(a_i), V~r(a_k))`` (convexity of ``V~r``) cannot beat the incumbent. Pairs, edge
  roots and refinements whose certified bounds (:mod:`~.oplb_bound`: a three-point linear relaxation
  on each grid cell) are below the incumbent are skipped too: none could have changed the policy.

Guarantees
----------
* **Safety (Prop. 26).** With ``c0`` known every returned policy satisfies ``V~c_i(pi) <= tau_i`` for all
  ``i``: ``pi0`` has ``V~c = c0 < tau`` and every other candidate sits at or inside the closed-form
  boundary of its ray. With ``c0`` unknown (full estimator, after the warm start) the other candidates
  are found by a bisection that keeps the feasible side, but ``pi0`` stays a candidate even when its
  pessimistic cost exceeds ``tau`` (the warm start certified ``c0 < tau``), and is also returned when a
  ray's feasible scale is 0. On the good event of Thm. 10 every such policy is truly feasible, whatever
  the search returns.
* **Optimism (Lemma 29).** The proof compares with ``pi~ = eta pi* + (1 - eta) pi0``, ``eta`` maximal,
  where ``pi*`` is a basic optimal solution of the true LP (at most 2 support points for one constraint).
  If ``pi*`` is supported on ``{x0, a_i}``, ``pi~`` lies on the feasible part of the ray to ``a_i``, whose
  maximum of the convex ``V~r`` is at ``pi0`` or at the scaled ``a_i`` -- both evaluated exactly, so
  ``V~r(pi_t) >= V~r(pi~)`` holds exactly. If ``pi*`` mixes two arms with weight ``phi*``, ``pi~`` is the
  point ``eta(phi*)`` of the pair's ray ``phi*``: covered exactly when both arms are pessimistically
  feasible, when ``pi~`` is a corner (the edge meets the boundary) or ``phi*`` is a search point, and
  otherwise up to the resolution of the 1-D search (``g`` is continuous; maxima inside the curved part of
  the boundary are located by the grid and golden section). Checked against a 1001-point dense search in
  the tests. With ``m >= 2`` constraints ``pi*`` may need ``m + 1`` arms; 3-supports are then a heuristic
  restriction.

Deviations (docs/decisions/stagewise.md): the per-round solver above (the paper has none); mean-action
policies over star-convex sets are played as mixtures of the vertices and ``x0``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import check_int
from safebandits.algorithms._driver import make_driver
from safebandits.algorithms.base import CompiledRounds
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.lc_lucb import (
    NO_SAFE_ROW,
    SAFE_ACTION,
    StagewiseLinearConfig,
    StagewiseLinearLearner,
    stagewise_update,
)
from safebandits.algorithms.regret.oplb_bound import below, cell_bounds, pair_bound
from safebandits.algorithms.regret.oplb_lp import arm_lp_policy
from safebandits.estimators.stagewise import (
    StagewiseState,
    VertexTable,
    confidence_radii,
    ray_scale,
    refresh_due,
)
from safebandits.records import Certificate, PlayedBlock
from safebandits.types import Decision

__all__ = [
    "OPLB",
    "OPLBConfig",
    "OPLBRun",
    "OPLBWork",
    "PolicySearch",
    "oplb_choose",
    "oplb_policy",
    "oplb_rounds",
    "oplb_select",
    "sample_policy",
]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0
#: The vertex table's row of ``x0`` (as a row of the best policy's support in :func:`oplb_policy`: none).
X0_ROW = 0
#: :func:`_edge_roots`'s placeholder for a root that does not exist (outside ``(0, 1)``: never kept).
NO_ROOT = -1.0


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class OPLBConfig(StagewiseLinearConfig):
    """Configuration of :class:`OPLB`.

    Parameters
    ----------
    delta, reg, radii, alpha_r, alpha_c, refresh_every, safe_value_ucb
        As :class:`~safebandits.algorithms.regret.lc_lucb.StagewiseLinearConfig` (theory: Thm. 27's
        ``alpha_c = 1``, ``alpha_r = 1 + 2 (1 - r0) / min_i (tau_i - c0_i)``).
    solver : {"search", "arm-lp"}, default "search"
        The per-round programme. ``"arm-lp"``: each policy valued by its arms' indices ``V~r(x_r)``,
        ``V~c(x_r)``, the one-constraint LP solved exactly in closed form (at most two rows mixed;
        :mod:`~.oplb_lp`: a conservative version of (34), same guarantees, not its optimum); with several
        constraints the search. ``"search"``: (34) itself over 2- and 3-supports (module docstring), the
        paper's programme, so the default (``oplb-random`` also sets it: its stored runs were made with it).
    n_grid : int >= 1, default 8
        Cells of the grid over the mixing weight ``phi`` of each pair (1: 2-supports only; the search).
    refine_iters : int >= 0, default 16
        Golden-section steps around each local maximum of a searched pair's grid values (the search).
    """

    #: ``solver`` came after the ``oplb-random`` runs were stored (with the search): left out of their keys.
    unkeyed: ClassVar[Mapping[str, Any]] = {"solver": "search"}

    solver: Literal["search", "arm-lp"] = "search"
    n_grid: int = 8
    refine_iters: int = 16

    def __post_init__(self) -> None:
        StagewiseLinearConfig.__post_init__(self)  # (zero-argument super() fails in slotted dataclasses)
        check_int(self.n_grid, "n_grid", low=1, owner=type(self).__name__)
        check_int(self.refine_iters, "refine_iters", low=0, owner=type(self).__name__)


# --------------------------------------------------------------------------------------------------
# typed records of the compiled kernels
# --------------------------------------------------------------------------------------------------
class PolicySearch(NamedTuple):
    """Settings of one round's policy search (:func:`oplb_policy`)."""

    safe_row: int  #: row of ``x0`` among the arms (:data:`~.lc_lucb.NO_SAFE_ROW`: none)
    safe_value: float  #: value of ``pi0`` when ``known_safe_value``
    known_safe_value: bool  #: ``pi0``'s value is ``safe_value`` (else its UCB ``V~r(x0)``)
    n_grid: int  #: cells of the grid over ``phi``
    refine: int  #: golden-section steps around each local maximum
    arm_lp: bool  #: the per-arm LP (:func:`~.oplb_lp.arm_lp_policy`) instead of the search


class OPLBWork(NamedTuple):
    """Work arrays of :func:`oplb_policy` and :func:`oplb_rounds`: cross Gram matrices ``gram``
    (``x_r^T Sigma^{-1} x_s``) and ``zgram`` (``z_r^T M^{-1} z_s``), ``lin_y`` (m), ``wv`` (d), ``wp``
    (d'), per-row ``ucb`` and ``scale`` (n + 1), the learner's ``uniforms`` (read at
    ``positions[0].uniforms``, one element of dtype
    :data:`~safebandits.algorithms.regret.lc_lucb.RNG_POSITIONS`), the observed ``costs`` and the per-arm
    LP's rows: pessimistic costs ``cost_ucb`` (n + 1, 1) and policy ``mix`` (n + 1)."""

    gram: np.ndarray
    zgram: np.ndarray
    lin_y: np.ndarray
    wv: np.ndarray
    wp: np.ndarray
    ucb: np.ndarray
    scale: np.ndarray
    uniforms: np.ndarray
    positions: np.ndarray
    costs: np.ndarray
    cost_ucb: np.ndarray
    mix: np.ndarray


class PairGeometry(NamedTuple):
    """What :func:`_pair_value` reads of a round: the vertex table ``tbl``, the cross Gram matrices, the
    ray scaling's ``affine`` flag, the radii ``kr``, ``kc``, ``c0``, ``tau`` and the work vector ``lin_y``."""

    tbl: VertexTable
    gram: np.ndarray
    zgram: np.ndarray
    affine: bool
    kr: float
    kc: float
    c0: np.ndarray
    tau: np.ndarray
    lin_y: np.ndarray


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _pair_value(phi, i, k, geo):
    """``(g(phi), eta(phi))`` of the table rows ``(i, k)``: value and scale of the ray to ``y(phi)``."""
    tbl, gram, zgram, lin_y = geo.tbl, geo.gram, geo.zgram, geo.lin_y
    affine, kr, kc, c0, tau = geo.affine, geo.kr, geo.kc, geo.c0, geo.tau
    lin = tbl.lin
    p = 1.0 - phi
    for j in range(lin_y.shape[0]):
        lin_y[j] = p * lin[i, j] + phi * lin[k, j]
    qc = p * p * tbl.qc[i] + 2.0 * p * phi * zgram[i, k] + phi * phi * tbl.qc[k]
    sxx = p * p * tbl.sxx[i] + 2.0 * p * phi * gram[i, k] + phi * phi * tbl.sxx[k]
    s0x = p * tbl.s0x[i] + phi * tbl.s0x[k]
    rx = p * tbl.rx[i] + phi * tbl.rx[k]
    s00, r0x = tbl.sxx[0], tbl.rx[0]
    eta = ray_scale(affine, lin_y, qc, kc, c0, tau, lin[0], (s00, s0x, sxx))
    q = (1.0 - eta) * (1.0 - eta) * s00 + 2.0 * eta * (1.0 - eta) * s0x + eta * eta * sxx
    return r0x + eta * (rx - r0x) + kr * math.sqrt(max(q, 0.0)), eta


@numba.njit(cache=True)
def _cross_grams(est, tbl, gram, zgram, wv, wp):
    """``gram[r, s] = x_r^T Sigma^{-1} x_s`` and ``zgram[r, s] = z_r^T M^{-1} z_s`` (projected layout)."""
    sinv, minv = est.sigma_inv, est.m_inv
    vx, vz = tbl.vx, tbl.vz
    n, d = vx.shape
    for r in range(1, n):
        for i in range(d):
            wv[i] = 0.0
        for j in range(d):
            xj = vx[r, j]
            for i in range(d):
                wv[i] += sinv[j, i] * xj
        for s in range(1, n):
            t = 0.0
            for i in range(d):
                t += vx[s, i] * wv[i]
            gram[r, s] = t
        if not est.const.shared:
            dp = vz.shape[1]
            for i in range(dp):
                wp[i] = 0.0
            for j in range(dp):
                zj = vz[r, j]
                for i in range(dp):
                    wp[i] += minv[j, i] * zj
            for s in range(1, n):
                t = 0.0
                for i in range(dp):
                    t += vz[s, i] * wp[i]
                zgram[r, s] = t


@numba.njit(cache=True)
def _edge_roots(i, k, tbl, zgram, kc, tau, roots):
    """Mixing weights ``phi in (0, 1)`` where the edge ``[a_i, a_k]`` crosses a pessimistic boundary
    ``V~c_j(y(phi)) = tau_j`` (corners of the feasible region): ``(tau_j - L(phi))^2 = kc^2 Q(phi)`` with
    ``tau_j - L(phi) >= 0``, a quadratic in ``phi``. Returns their number (written to ``roots``)."""
    n_roots = 0
    lin = tbl.lin
    qi, qk, zik = tbl.qc[i], tbl.qc[k], zgram[i, k]
    k2 = kc * kc
    for j in range(tau.shape[0]):
        a0 = tau[j] - lin[i, j]
        a1 = lin[i, j] - lin[k, j]
        qa = a1 * a1 - k2 * (qi - 2.0 * zik + qk)
        qb = 2.0 * a0 * a1 - 2.0 * k2 * (zik - qi)
        qc = a0 * a0 - k2 * qi
        cand = (NO_ROOT, NO_ROOT)
        if abs(qa) < 1e-14 * (abs(qb) + abs(qc) + 1e-300):
            if qb != 0.0:
                cand = (-qc / qb, NO_ROOT)
        else:
            disc = qb * qb - 4.0 * qa * qc
            if disc >= 0.0:
                sq = math.sqrt(disc)
                cand = ((-qb - sq) / (2.0 * qa), (-qb + sq) / (2.0 * qa))
        for phi in cand:
            if 0.0 < phi < 1.0 and a0 + a1 * phi >= 0.0:
                roots[n_roots] = phi
                n_roots += 1
    return n_roots


@numba.njit(cache=True)
def _golden(lo, hi, refine, i, k, geo):
    """Golden-section search of ``g`` on ``[lo, hi]``; returns the best ``(g, phi, eta)`` evaluated."""
    c = hi - _GOLDEN * (hi - lo)
    d = lo + _GOLDEN * (hi - lo)
    fc, ec = _pair_value(c, i, k, geo)
    fd, ed = _pair_value(d, i, k, geo)
    pv, pphi, peta = fc, c, ec
    for _ in range(refine):
        if fc >= fd:
            hi, d, fd, ed = d, c, fc, ec
            c = hi - _GOLDEN * (hi - lo)
            fc, ec = _pair_value(c, i, k, geo)
        else:
            lo, c, fc, ec = c, d, fd, ed
            d = lo + _GOLDEN * (hi - lo)
            fd, ed = _pair_value(d, i, k, geo)
        if fc > pv:
            pv, pphi, peta = fc, c, ec
        if fd > pv:
            pv, pphi, peta = fd, d, ed
    if fd > pv:
        pv, pphi, peta = fd, d, ed
    return pv, pphi, peta


class PairBuffers(NamedTuple):
    """Work arrays of :func:`_search_pair`: grid values ``vals`` (n_grid + 1), cell bounds ``cells``
    (n_grid), edge ``roots`` (2 m) and the arms' 2-support values ``v2`` (the grid's end values)."""

    vals: np.ndarray
    cells: np.ndarray
    roots: np.ndarray
    v2: np.ndarray


class PairGrid(NamedTuple):
    """Settings of :func:`_search_pair`: grid cells, golden-section steps, ``V~r(x0)`` and the layout."""

    n_grid: int
    refine: int
    ucb0: float
    shared: bool


@numba.njit(cache=True, inline="always")
def _pair_searched(i, k, safe_row, scale, ucb, ucb0, best_val):
    """Whether the pair of rows ``(i, k)`` is searched: neither is ``x0``, not both arms are feasible (the
    whole triangle is: ``g`` is convex in ``phi``, maximal at an arm), and one vertex's ``V~r`` beats the
    incumbent (convexity: else no point of the triangle does)."""
    if i - 1 == safe_row or k - 1 == safe_row or (scale[i] == 1.0 and scale[k] == 1.0):
        return False
    return max(ucb0, ucb[i], ucb[k]) > best_val


@numba.njit(cache=True)
def _search_pair(i, k, geo, bufs, grid, floor):
    """The best ``(g, phi, eta)`` of the pair of rows ``(i, k)`` (module docstring): ``g`` on the grid
    over ``phi``, at the edge roots, then golden-section steps around every local maximum of the grid
    values. A root or a refinement whose certified cell bound (:func:`~.oplb_bound.cell_bounds`) is
    below ``floor`` or the pair's best so far is skipped, and the whole pair (``-inf``) when every cell's
    is below ``floor``: none of them could be the first to reach the search's optimum if ``floor`` is at
    most that optimum."""
    vals, cells, roots, v2 = bufs
    n_grid, refine = grid.n_grid, grid.refine
    if below(cell_bounds(i, k, grid.ucb0, geo, grid.shared, cells), floor):
        return -np.inf, 0.0, 0.0
    pv, pphi, peta = -np.inf, 0.0, 0.0
    vals[0], vals[n_grid] = v2[i], v2[k]
    for g in range(1, n_grid):
        vals[g], eta = _pair_value(g / n_grid, i, k, geo)
        if vals[g] > pv:
            pv, pphi, peta = vals[g], g / n_grid, eta
    for q in range(_edge_roots(i, k, geo.tbl, geo.zgram, geo.kc, geo.tau, roots)):
        if below(cells[min(int(roots[q] * n_grid), n_grid - 1)], max(pv, floor)):
            continue
        val, eta = _pair_value(roots[q], i, k, geo)
        if val > pv:
            pv, pphi, peta = val, roots[q], eta
    for g in range(n_grid + 1):  # refine around every local maximum of the grid values
        if (g > 0 and vals[g - 1] > vals[g]) or (g < n_grid and vals[g + 1] > vals[g]):
            continue
        if below(max(cells[max(g - 1, 0)], cells[min(g, n_grid - 1)]), max(pv, floor)):
            continue
        lo, hi = max(g - 1, 0) / n_grid, min(g + 1, n_grid) / n_grid
        val, phi, eta = _golden(lo, hi, refine, i, k, geo)
        if val > pv:
            pv, pphi, peta = val, phi, eta
    return pv, pphi, peta


@numba.njit(cache=True)
def oplb_policy(est, tbl, search, work, probs):
    """Algorithm 2, lines 4-6: the radii of the confidence sets (line 4, eq. 5), the pessimistically
    feasible policies (line 5, eq. 33) and the optimistic policy (line 6, problem 34), searched over 2-
    and 3-supports (module docstring) from the vertex table ``tbl`` (row 0 ``x0``, row ``i + 1`` arm
    ``i``); writes ``probs`` over the arms (mass ``1 - sum`` on ``x0`` unless ``x0`` is a row,
    ``search.safe_row``) and returns its value ``V~r(pi)`` (eq. 31). Rows ``bi``, ``bk`` of the best
    policy's support: :data:`X0_ROW` for none."""
    safe_row, n_grid, refine = search.safe_row, search.n_grid, search.refine
    gram, zgram, ucb, scale = work.gram, work.zgram, work.ucb, work.scale
    c0, tau = est.c0, est.tau
    sxx, rx = tbl.sxx, tbl.rx
    n = sxx.shape[0]
    kr, kc = confidence_radii(est)  # alpha_r beta_r, alpha_c beta_c (eq. 5)
    affine = not est.const.full or est.const.x0_zero
    geo = PairGeometry(tbl, gram, zgram, affine, kr, kc, c0, tau, work.lin_y)
    ucb0 = rx[0] + kr * math.sqrt(max(sxx[0], 0.0))
    best_val = search.safe_value if search.known_safe_value else ucb0
    bi, bk, bphi, beta_ = X0_ROW, X0_ROW, 0.0, 0.0
    vals = np.empty(n_grid + 1)  # g on the grid phi = 0, 1/n_grid, ..., 1 of the current pair
    v2 = np.empty(n)  # value of each arm's 2-support
    roots = np.empty(2 * tau.shape[0])
    cells = np.empty(max(n_grid, 1))  # the bound of each grid cell of the current pair
    shared = est.const.shared
    for r in range(1, n):
        ucb[r] = rx[r] + kr * math.sqrt(max(sxx[r], 0.0))
        v2[r], scale[r] = _pair_value(0.0, r, r, geo)
        if r - 1 != safe_row and scale[r] > 0.0 and v2[r] > best_val:
            best_val, bi, bk, bphi, beta_ = v2[r], r, X0_ROW, 0.0, scale[r]
    if n_grid < 2 or n <= 2:
        bk = X0_ROW
    else:
        _cross_grams(est, tbl, gram, zgram, work.wv, work.wp)
    bufs = PairBuffers(vals, cells, roots, v2)
    grid = PairGrid(n_grid, refine, ucb0, shared)
    for i in range(1, n if n_grid >= 2 else 1):
        for k in range(i + 1, n):
            if not _pair_searched(i, k, safe_row, scale, ucb, ucb0, best_val):
                continue
            # certified bounds (oplb_bound.py): nothing skipped could have changed the policy
            if below(pair_bound(i, k, ucb, ucb0, geo, shared), best_val):
                continue
            pv, pphi, peta = _search_pair(i, k, geo, bufs, grid, best_val)
            if peta > 0.0 and pv > best_val:
                best_val, bi, bk, bphi, beta_ = pv, i, k, pphi, peta
    for r in range(probs.shape[0]):
        probs[r] = 0.0
    if bi != X0_ROW:
        probs[bi - 1] = beta_ * (1.0 - bphi)
        if bk != X0_ROW:
            probs[bk - 1] = beta_ * bphi
    if safe_row != NO_SAFE_ROW:
        probs[safe_row] = 1.0 - beta_
    return best_val


@numba.njit(cache=True)
def oplb_choose(est, tbl, search, work, probs):
    """The round's policy by the configured solver: :func:`~.oplb_lp.arm_lp_policy` or
    :func:`oplb_policy` (same arguments and outputs)."""
    if search.arm_lp:
        return arm_lp_policy(est, tbl, search, work, probs)
    return oplb_policy(est, tbl, search, work, probs)


@numba.njit(cache=True)
def sample_policy(probs, u, safe_row):
    """Algorithm 2, line 7's ``X_t ~ pi_t``: the row sampled by the uniform ``u`` (inverse CDF over the
    rows), or :data:`~.lc_lucb.SAFE_ACTION` for ``x0`` (mass ``1 - sum(probs)`` when ``x0`` is not a row)."""
    cum = 0.0
    last = SAFE_ACTION
    for i in range(probs.shape[0]):
        if probs[i] > 0.0:
            cum += probs[i]
            last = i
            if u < cum:
                return i
    return last if safe_row != NO_SAFE_ROW else SAFE_ACTION


class OPLBRun(NamedTuple):
    """A block of rounds on the shared driver: the estimator's state and the vertex table, the policy
    search's settings and work arrays, the observed ``costs`` (``work.costs``) and the outputs: the
    played ``points``, the policies ``probs`` and their optimistic values ``values``."""

    est: StagewiseState
    tbl: VertexTable
    search: PolicySearch
    work: OPLBWork
    costs: np.ndarray
    points: np.ndarray
    probs: np.ndarray
    values: np.ndarray


@numba.njit(cache=True, inline="always")
def oplb_select(run, j):
    """Algorithm 2, lines 4-6: the policy ``pi_t`` of (34) into ``run.probs[j]`` (its value
    ``V~r(pi_t)`` into ``run.values[j]``), then line 7's ``X_t ~ pi_t`` with the next learner uniform into
    ``run.points[j]`` (row ``idx + 1`` of the table, ``x0`` for :data:`~.lc_lucb.SAFE_ACTION`);
    ``False`` (nothing played) when the uniforms ran out or the exact refresh is due (the caller refills
    or refreshes)."""
    if refresh_due(run.est):
        return False
    work = run.work
    pos = work.positions[0]
    if pos.uniforms >= work.uniforms.shape[0]:
        return False
    run.values[j] = oplb_choose(run.est, run.tbl, run.search, work, run.probs[j])
    idx = sample_policy(run.probs[j], work.uniforms[pos.uniforms], run.search.safe_row)
    pos.uniforms += 1
    vx = run.tbl.vx
    for a in range(vx.shape[1]):
        run.points[j, a] = vx[idx + 1, a]
    return True


#: The shared driver (:func:`~safebandits.algorithms._driver.make_driver`) over OPLB's kernels (the
#: update is LC-LUCB's, :func:`~safebandits.algorithms.regret.lc_lucb.stagewise_update`: line 7's
#: observation into the estimates of line 3):
#: ``oplb_rounds(run, env, variates, (start, stop, mode)) -> j`` on an :class:`OPLBRun`, the first row not
#: played (refill the uniforms, call again).
oplb_rounds = make_driver("oplb_rounds", oplb_select, stagewise_update, __name__, plays="points")


# --------------------------------------------------------------------------------------------------
# learner
# --------------------------------------------------------------------------------------------------
@register_algorithm("oplb", task="regret", description="OPLB: optimistic-pessimistic policies for "
                    "in-expectation stage-wise constraints (Pacchiano et al., Algorithm 2).",
                    info=("stagewise", "k-armed"), guarantee="expectation",
                    assumptions=("linear", "means-at-most-1", "param-norm", "noise",
                                 "safe-action"))  # fmt: skip
class OPLB(StagewiseLinearLearner):
    """OPLB (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 2) with the per-arm LP or the 3-support search.

    Parameters
    ----------
    config : OPLBConfig
    info : StagewiseInfo
        Any action set: policies are distributions over ``x0`` and the vertices (rows of ``arms``).
    rng : numpy.random.Generator
        Source of the policy-sampling uniforms, drawn in blocks into a buffer that the ask / tell path
        and :meth:`simulate` both read (same trajectory).

    Notes
    -----
    ``ask`` returns ``Decision(probs=pi_t, arm=sampled row)`` or ``Decision(probs=pi_t, point=x0)`` when
    ``x0`` (not a row) is sampled. The estimators are updated with the *played* action ``X_t``.
    Guarantee (Thm. 27): theory radii give ``O~((1 + (1 - r0)/(tau - c0)) d sqrt(T))`` policy regret and
    feasible policies with probability ``>= 1 - 2 delta``, given the solver guarantees above.
    """

    config_cls = OPLBConfig
    name = "oplb"
    setting = "expectation"

    def __init__(self, config: OPLBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        m, dp = self.estimator.tau.shape[0], self.estimator.state.z.shape[0]
        self._lin_y, self._wv, self._wp = np.zeros(m), np.zeros(self._arms.shape[1]), np.zeros(dp)
        self._alloc(self._arms.shape[0])
        self._arm_lp = self.config.solver == "arm-lp" and m == 1  # (several constraints: the search)
        self._policy_kernel = bind_kernel(oplb_choose, self._policy_args(self._tbl, self._safe_row))

    def _alloc(self, n: int) -> None:
        """Work arrays for ``n`` arms (``n + 1`` table rows)."""
        self._probs = np.zeros(n)
        self._gram = np.zeros((n + 1, n + 1))
        self._zgram = self._gram if self.estimator.shared else np.zeros((n + 1, n + 1))
        self._ucb, self._scale = np.zeros(n + 1), np.zeros(n + 1)
        self._cost_ucb, self._mix = np.zeros((n + 1, 1)), np.zeros(n + 1)

    def _search(self, safe_row: int) -> PolicySearch:
        c = self.config
        value = self._safe_value
        return PolicySearch(safe_row, value, not math.isnan(value), c.n_grid, c.refine_iters, self._arm_lp)

    def _work(self) -> OPLBWork:
        return OPLBWork(
            self._gram, self._zgram, self._lin_y, self._wv, self._wp, self._ucb, self._scale, self._uniforms,
            self._position_block, self._costs, self._cost_ucb, self._mix,
        )  # fmt: skip

    def _policy_args(self, tbl: VertexTable, safe_row: int) -> tuple[Any, ...]:
        return (self.estimator.state, tbl, self._search(safe_row), self._work(), self._probs)

    @property
    def last_policy(self) -> np.ndarray:
        """The last policy asked (probabilities over the rows of the round's arms)."""
        return self._probs.copy()

    def _ask(self, context: Any) -> Decision:
        self._drawn_normals = self._drawn_uniforms = 0
        self._last_value = math.nan
        if self.in_warm_start:
            return self._x0_decision()
        arms, tbl, safe_row = self._context_arms(context)
        self._round_arms = arms
        if arms.shape[0] != self._probs.shape[0]:
            self._alloc(arms.shape[0])
        self._refill()
        self._last_value = float(self._policy_kernel(*self._policy_args(tbl, safe_row)))
        u = self._uniforms[self._uniforms_at[0]]
        self._uniforms_at[0] += 1
        self._drawn_uniforms = 1
        idx = int(sample_policy(self._probs, u, safe_row))
        probs = self._probs.copy()
        if idx == SAFE_ACTION:
            return Decision(point=self._x0.copy(), probs=probs)
        return Decision(arm=idx, probs=probs)

    def _certificate(self, decision: Decision) -> Certificate:
        """The policy's pessimistic expected costs ``V~c_i(pi_t) = V~c_i(x_pi) <= tau_i`` (eqs. 30, 34) at
        its mean action ``x_pi``, with the estimates and radii it was chosen with; ``pi0`` (all mass on
        ``x0``: warm start, or the best candidate) is certified as the known safe action."""
        probs = decision.probs
        if self.in_warm_start or probs is None:
            return self._x0_certificate()
        arms = self._round_arms
        on_rows = probs.copy()
        if self._safe_row != NO_SAFE_ROW and self._safe_row < on_rows.shape[0]:
            on_rows[self._safe_row] = 0.0
        if not np.any(on_rows > 0.0):
            return self._x0_certificate()
        x_pi = probs @ arms + max(1.0 - float(probs.sum()), 0.0) * self._x0
        est = self.estimator
        return Certificate(kind="policy-bound", round=self.n_samples + 1,
                           bound=est.pessimistic_cost(x_pi[None, :])[0], threshold=est.tau.copy(),
                           basis="V~c_i(pi_t) <= tau_i at the mean action x_pi (eqs. 30, 34)")  # fmt: skip

    # -- simulation: the hooks of BaseLearner.simulate's one loop (plays, shape, refill: the base's) --
    def _sim_start(self) -> None:
        if self._probs.shape[0] != self._arms.shape[0]:
            self._alloc(self._arms.shape[0])

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        """Warm-start rounds with the sampler, then the shared driver (:data:`oplb_rounds`): the played
        points, the policies they were drawn from and the optimistic values."""
        points = np.empty((rows, self._arms.shape[1]))
        probs = np.zeros((rows, self._arms.shape[0]))
        values = np.full(rows, math.nan)
        j0 = self._warm_rounds(sampler, points, 0, rows)
        if self._safe_row >= 0:
            probs[:j0, self._safe_row] = 1.0
        self._round_arms = self._arms
        work = self._work()
        est, search = self.estimator.state, self._search(self._safe_row)
        run = OPLBRun(est, self._tbl, search, work, work.costs, points, probs, values)
        return CompiledRounds(oplb_rounds, run, j0)

    def _sim_result(self, rounds: Any, env: Any, n: int) -> PlayedBlock:
        run = rounds.run
        if n > rounds.start:
            self._probs[:] = run.probs[n - 1]
            self._last_value = float(run.values[n - 1])
        return PlayedBlock(run.points, run.probs, values=run.values)
