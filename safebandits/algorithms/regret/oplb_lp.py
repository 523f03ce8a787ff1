"""OPLB's per-arm linear programme (``solver="arm-lp"``): problem (34) with each policy valued by the
indices of its arms, the one-constraint LP that OPB solves (LP (37), Lemma 40), on linear indices.

For a policy ``pi`` over the rows ``x_r`` (``x0`` and the vertices; the vertex table's rows), write the
arms' optimistic rewards ``u^r_r = V~r(x_r)`` (eq. 9) and pessimistic costs ``u^c_r = V~c(x_r)`` (eq. 10).
The programme is::

    max_pi  sum_r pi_r u^r_r   s.t.   sum_r pi_r u^c_r <= tau,   pi in the simplex,

an LP with one constraint: an optimal policy is a vertex of its feasible set, a row with ``u^c <= tau`` or a
pair ``u^c_a < tau < u^c_b`` mixed to cost exactly ``tau`` (Lemma 40; solved in closed form by
:func:`~safebandits.algorithms.regret.opb.lp_closed_form`, ``O(n^2)``, ties to ``x0``, then the
singleton and the lowest rows).

Relation to (34), whose values are those of the mean action ``x_pi`` (eqs. 31-32): ``V~r`` and ``V~c`` are
convex in ``x``, so ``sum pi_r u^c_r >= V~c(x_pi)`` and ``sum pi_r u^r_r >= V~r(x_pi)`` (Jensen). Hence

* **safety (Prop. 26)** holds as for (34): every LP-feasible policy is in ``Pi~f_t`` (eq. 33);
* **optimism (Lemma 29)** holds by the proof of OPB's Lemma: with ``pi~ = eta pi* + (1 - eta) pi0``, ``eta``
  the largest with ``sum pi~_r u^c_r <= tau``, ``(1 - eta) / eta <= sum pi*_r (u^c_r - c_r) / (tau - c0)``
  and the reward indices exceed the means by ``(alpha_r - 1)`` times the same widths, so Thm. 27's
  ``alpha_r = 1 + 2 (1 - r0) / (tau - c0)`` keeps ``sum pi~_r u^r_r >= r(pi*)`` on the good event (the
  widths are per arm, ``E_pi ||X||``, rather than ``||x_pi||``; the regret sum is then over the widths
  of the played actions, the elliptical-potential bound of Thm. 27's order).

It is not (34): its feasible set is smaller (a policy whose per-arm costs average above ``tau`` may
still have ``V~c(x_pi) <= tau``) and its value is per-arm. The value returned is the LP's (what the
learner maximised, for the optimism claims).

With ``x0`` pessimistically infeasible (full estimator after the warm start, which certified ``c0 <
tau``), ``pi0`` stays a candidate as in the search: the LP's policy is played only if its value beats
``pi0``'s. Several constraints (support up to ``m + 1``) are not solved here: the learner uses the
search there (:class:`~safebandits.algorithms.regret.oplb.OPLBConfig`).
"""

from __future__ import annotations

import math

import numba

from safebandits.algorithms.regret.lc_lucb import NO_SAFE_ROW
from safebandits.algorithms.regret.opb import INFEASIBLE, lp_closed_form
from safebandits.estimators.stagewise import confidence_radii

__all__ = ["arm_lp_policy"]


@numba.njit(cache=True)
def arm_lp_policy(est, tbl, search, work, probs):
    """The per-arm LP (module docstring) from the vertex table ``tbl`` (row 0 ``x0``, row ``i + 1`` arm
    ``i``): writes ``probs`` over the arms (mass ``1 - sum`` on ``x0`` unless ``x0`` is a row,
    ``search.safe_row``) and returns the policy's value ``sum pi_r u^r_r`` (``pi0``'s: ``safe_value`` if
    known, else ``V~r(x0)``). ``work``: an :class:`~safebandits.algorithms.regret.oplb.OPLBWork` (its
    ``ucb``, ``cost_ucb`` and ``mix`` rows are written); one constraint (column 0 of the table's ``lin``)."""
    kr, kc = confidence_radii(est)  # alpha_r beta_r, alpha_c beta_c (eq. 5)
    rx, sxx, lin, qc = tbl.rx, tbl.sxx, tbl.lin, tbl.qc
    ur, uc, mix = work.ucb, work.cost_ucb, work.mix
    n = sxx.shape[0]
    for r in range(n):
        ur[r] = rx[r] + kr * math.sqrt(max(sxx[r], 0.0))  # eq. (9) at the row
        uc[r, 0] = lin[r, 0] + kc * math.sqrt(max(qc[r], 0.0))  # eq. (10) at the row
    if search.known_safe_value:
        ur[0] = search.safe_value
    safe_row = search.safe_row
    if safe_row != NO_SAFE_ROW:  # x0 listed among the arms: the same candidate as row 0 (never preferred)
        ur[safe_row + 1], uc[safe_row + 1, 0] = ur[0], uc[0, 0]
    value = lp_closed_form(ur, ur, uc, est.tau[0], mix)
    for a in range(probs.shape[0]):
        probs[a] = 0.0
    if value == INFEASIBLE or value <= ur[0]:  # pi0 (also when x0 is not LP-feasible and nothing beats it)
        if safe_row != NO_SAFE_ROW:
            probs[safe_row] = 1.0
        return ur[0]
    for a in range(probs.shape[0]):
        probs[a] = mix[a + 1]
    if safe_row != NO_SAFE_ROW:
        probs[safe_row] += mix[0]
    return value
