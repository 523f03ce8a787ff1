"""A certified upper bound on OPLB's value over one pair's policies (a relaxation of problem (34) restricted
to ``{x0, a_i, a_k}``, in closed form), used to skip pairs that cannot beat the incumbent.

Write ``V~c_j(x) = L_j(x) + kc ||z(x)||_{M^-1}`` (``L_j`` the linear part, the table's ``lin``). For a unit
vector ``g`` of the dual norm, ``||z||_{M^-1} >= <z, M^-1 z_g> / ||z_g||_{M^-1}`` (Cauchy--Schwarz), an
affine minorant ``C_j(x) <= V~c_j(x)`` that is exact at the row ``g``. For a pessimistically feasible ``x``
of the triangle and any ``lambda >= 0``::

    V~r(x) <= V~r(x) - lambda (C_j(x) - tau_j)

and the right-hand side is convex in ``x`` (``V~r`` is, ``C_j`` is affine), so its maximum over the
triangle is at a vertex ``v``: ``u_v - lambda s_v`` with ``u_v = V~r(v)`` (the vertex's UCB) and ``s_v =
C_j(v) - tau_j``. The smallest such bound over ``lambda >= 0`` is, by LP duality, the value of the
three-point linear programme ``max pi . u`` s.t. ``pi . s <= 0``, ``pi`` in the simplex
(:func:`three_point_lp`: a vertex with ``s_v <= 0`` or a pair ``s_v <= 0 < s_w`` mixed to ``pi . s = 0``;
``-inf`` if every ``s_v > 0``). The bound is the smallest over the constraints and over ``g`` in
``{a_i, a_k}``; with ``lambda = 0`` it is ``max(u_0, u_i, u_k)``, the convexity bound, so it is never
larger. ``z(x0) = 0`` in the projected layout; in the shared one (``M = Sigma``, ``z = x``) row 0's term
is read off ``s0x``.

The same bound holds on the sub-triangle ``{x0, y(phi_a), y(phi_b)}`` of the mixtures ``y(phi) = (1 -
phi) a_i + phi a_k`` (its vertices' UCBs and the minorant, affine in ``phi``): :func:`cell_bounds` bounds
the pair's search on each cell ``[c / n, (c + 1) / n]`` of its grid over ``phi``.

:func:`~safebandits.algorithms.regret.oplb.oplb_policy` skips a pair, an edge root or a golden-section
refinement whose bound is below the incumbent (or the pair's best value so far) by :data:`PRUNE_MARGIN`
(:func:`below`): a candidate replaces the incumbent only with a strictly larger value, so none skipped
could have changed the policy or its value, which are those of the search without the tests, bit for bit.
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["PRUNE_MARGIN", "below", "cell_bounds", "pair_bound", "three_point_lp"]

#: Relative margin below the incumbent that a pair's bound must reach to be skipped (covers the rounding
#: of the bound and of the search's values, ~1e-15 relative).
PRUNE_MARGIN = 1e-12


@numba.njit(cache=True, inline="always")
def three_point_lp(u0, u1, u2, s0, s1, s2):
    """``max pi . u`` s.t. ``pi . s <= 0``, ``pi`` in the 3-simplex (``-inf`` if infeasible), in closed
    form: the best vertex with ``s <= 0`` and the best pair ``s_v <= 0 < s_w`` mixed to ``pi . s = 0``."""
    best = -np.inf
    us = (u0, u1, u2)
    ss = (s0, s1, s2)
    for v in range(3):
        if ss[v] <= 0.0:
            if us[v] > best:
                best = us[v]
            for w in range(3):
                if ss[w] > 0.0 and us[w] > us[v]:
                    val = us[v] + (us[w] - us[v]) * (-ss[v] / (ss[w] - ss[v]))
                    if val > best:
                        best = val
    return best


@numba.njit(cache=True, inline="always")
def pair_bound(i, k, ucb, ucb0, geo, shared):
    """Upper bound on ``V~r`` over the pessimistically feasible policies supported on ``{x0, a_i, a_k}``
    (table rows ``0, i, k``; module docstring). ``ucb``: the rows' ``V~r``; ``geo``: the round's
    :class:`~safebandits.algorithms.regret.oplb.PairGeometry` (its cross Gram ``zgram`` filled);
    ``shared``: the cost Gram matrix is ``Sigma`` (``z = x``)."""
    tbl, zgram, kc, tau = geo.tbl, geo.zgram, geo.kc, geo.tau
    lin, qc = tbl.lin, tbl.qc
    bound = max(ucb0, ucb[i], ucb[k])
    for g in (i, k):
        if qc[g] <= 0.0:
            continue
        norm = math.sqrt(qc[g])
        h0 = kc * tbl.s0x[g] / norm if shared else 0.0
        hi, hk = kc * zgram[i, g] / norm, kc * zgram[k, g] / norm
        for j in range(tau.shape[0]):
            t = tau[j]
            b = three_point_lp(
                ucb0, ucb[i], ucb[k], lin[0, j] + h0 - t, lin[i, j] + hi - t, lin[k, j] + hk - t
            )
            if b < bound:
                bound = b
    return bound


@numba.njit(cache=True, inline="always")
def below(bound, incumbent):
    """``bound`` is below ``incumbent`` by more than :data:`PRUNE_MARGIN` (relative)."""
    return bound < incumbent - PRUNE_MARGIN * (1.0 + abs(incumbent))


@numba.njit(cache=True, inline="always")
def _mix_ucb(phi, i, k, geo):
    """``V~r(y(phi))`` of the mixture ``y(phi) = (1 - phi) a_i + phi a_k`` (rows ``i``, ``k``)."""
    tbl, p = geo.tbl, 1.0 - phi
    q = p * p * tbl.sxx[i] + 2.0 * p * phi * geo.gram[i, k] + phi * phi * tbl.sxx[k]
    return p * tbl.rx[i] + phi * tbl.rx[k] + geo.kr * math.sqrt(max(q, 0.0))


@numba.njit(cache=True)
def cell_bounds(i, k, ucb0, geo, shared, out):
    """``out[c]``: the bound (module docstring) over the sub-triangle ``{x0, y(c / n), y((c + 1) / n)}``,
    ``n = out.shape[0]``, for the pair of rows ``(i, k)``; returns the largest."""
    tbl, zgram, kc, tau = geo.tbl, geo.zgram, geo.kc, geo.tau
    lin, qc = tbl.lin, tbl.qc
    n = out.shape[0]
    top = -np.inf
    ua = _mix_ucb(0.0, i, k, geo)
    for c in range(n):
        pa, pb = c / n, (c + 1) / n
        ub = _mix_ucb(pb, i, k, geo)
        bound = max(ucb0, ua, ub)
        for g in (i, k):
            if qc[g] <= 0.0:
                continue
            norm = math.sqrt(qc[g])
            h0 = kc * tbl.s0x[g] / norm if shared else 0.0
            hi, hk = kc * zgram[i, g] / norm, kc * zgram[k, g] / norm
            for j in range(tau.shape[0]):
                ci, ck = lin[i, j] + hi - tau[j], lin[k, j] + hk - tau[j]
                sa, sb = (1.0 - pa) * ci + pa * ck, (1.0 - pb) * ci + pb * ck
                b = three_point_lp(ucb0, ua, ub, lin[0, j] + h0 - tau[j], sa, sb)
                if b < bound:
                    bound = b
        out[c] = bound
        top = max(top, bound)
        ua = ub
    return top
