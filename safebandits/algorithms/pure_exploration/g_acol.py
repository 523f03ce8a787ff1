"""G-ACOL and the sequential baselines of Lindner et al. (ICML 2022), Algorithm 2 and Table D.2.

One learner class, :class:`GACOL`, runs the fully sequential loop of Algorithm 2 -- pull one arm,
update the ridge estimate, recompute the adaptive confidence bounds (Proposition 3, or a tuned
constant), update ``U``, ``F``, ``r`` -- with a configurable *selection rule*. Registered variants:

============================  =====================================================================
name                          selection
============================  =====================================================================
``"g-acol"``                  target ``y = argmax_{x in U} ||x||_{A^{-1}}``; pull the arm of ``X``
                              whose one-step look-ahead most reduces ``||y||_{A^{-1}}``
``"greedy-maxvar"``           the same look-ahead with target ``argmax_{x in X} ||x||_{A^{-1}}``,
                              which always picks the target itself (see :func:`select_arm`)
``"adaptive-uniform"``        uniform random arm of ``X``
``"g-acol-uniform"``          uniform random arm of ``U``
``"maxrew-u"``                ``argmax_{x in U} theta^T x`` (first index on ties)
``"maxrew-f"``                ``argmax_{x in F} theta^T x`` if ``F`` is non-empty, else uniform over ``X``
============================  =====================================================================

Every variant has a "tuned" version: ``width="tuned"`` (``beta_t`` = ``tuned_width``, 0.5 by default).

The per-sample work is done by two compiled kernels acting in place on the learner's arrays,
:func:`select_arm` and :func:`tell_sample`, in ``O(n d + d^2)`` (primal numerics: ``A^{-1}``) or
``O(n^2)`` (Gram numerics: ``G = X A^{-1} X^T``, chosen when ``n`` is not much larger than ``d``;
see ``numerics`` of :class:`GACOLConfig`); the ask / tell path calls them once
per sample and :meth:`GACOL.run_compiled` runs the whole ask -> pull -> tell cycle in one compiled loop
(:func:`run_loop`) on the environment's noise stream, giving the same trajectory.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numba
import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import (
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
    literal_choices,
)
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.pure_exploration._cbai import (
    CBAILearner,
    CBAISets,
    cbai_update,
    check_cbai_info,
)
from safebandits.algorithms.registry import register_algorithm
from safebandits.estimators.confidence import adaptive_width_scalar
from safebandits.estimators.ridge import (
    DIAGONAL,
    GRAM,
    ArmRidge,
    arm_axis,
    arm_diag_refresh,
    arm_state_refresh,
    arm_state_update,
    choose_numerics,
    is_axis_aligned,
    normal_equations,
)
from safebandits.exceptions import ProtocolError
from safebandits.types import Decision, FloatArray, Observation

__all__ = ["GACOL", "GACOLConfig", "run_loop", "select_arm", "tell_sample"]

# selection rule codes
LOOKAHEAD, MOST_UNCERTAIN, UNIFORM, MAX_REWARD = 0, 1, 2, 3
# candidate set codes
FROM_UNCERTAIN, FROM_ALL, FROM_FEASIBLE = 0, 1, 2
# counters slots: samples so far t, position in the learner's uniform buffer
_T, _UPOS = 0, 1
#: Learner uniforms drawn per refill, environment variates taken per block of the compiled loop. Both
#: are multiples of the default ``refresh_every`` so that certified skips (:func:`try_skip`), which
#: start and end at refresh points, are not cut short by buffer ends.
UNIFORM_BLOCK = 64_000
VARIATE_BLOCK = 64_000


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class GACOLConfig(LearnerConfig):
    """Configuration of :class:`GACOL` and its sequential variants.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Error probability of Proposition 3's width.
    width : {"theory", "tuned"}, default "theory"
        ``"theory"``: ``beta_t`` of Proposition 3 with ``t`` = samples so far; ``"tuned"``: the
        constant ``tuned_width`` (Sec. 3.4 heuristic; no guarantee).
    tuned_width : float > 0, default 0.5
        Constant multiplier of ``||x||_{A^{-1}}`` (the authors' ``sqbeta_tuned``).
    ridge : float > 0, default 0.1
        Ridge regulariser ``lambda`` (``A_0 = lambda I``).
    noise_bound, arm_norm_bound, param_norm_bound : float, default 1.0
        ``R``, ``L``, ``S`` of Proposition 3 (the authors hard-code 1).
    refresh_every : int >= 0, default 1000
        Exact recompute of ``A^{-1}`` every this many samples (0: never).
    selection : {"lookahead", "most_uncertain", "uniform", "max_reward"}, default "lookahead"
        ``"lookahead"``: target ``y`` = max-variance candidate, pull ``argmin_{a in X}
        ||y||^2_{(A + a a^T)^{-1}}`` (authors' code, paper's prose); ``"most_uncertain"``: pull the
        max-variance candidate (Algorithm 2, line 4); ``"uniform"``: uniform random candidate;
        ``"max_reward"``: highest-reward candidate.
    select_from : {"uncertain", "all", "feasible"}, default "uncertain"
        Candidate set: ``U``, ``X``, or ``F`` (while ``F`` is empty: a uniform random arm of ``X``).
    numerics : {"auto", "primal", "gram", "diagonal"}, default "auto"
        How the ridge state is kept (:class:`~safebandits.estimators.ridge.ArmRidge`): ``"primal"``:
        ``A^{-1}`` (``d x d``), ``O(n d + d^2)`` per sample; ``"gram"``: ``G = X A^{-1} X^T``
        (``n x n``), ``O(n^2)`` per sample, look-ahead read off a row of ``G``; ``"diagonal"``:
        arms with at most one non-zero coordinate (e.g. "irrelevant dimensions"), ``A`` diagonal,
        ``O(n + d)`` per sample; ``"auto"``: diagonal for such arms, else Gram when
        ``n^2 < 2 d^2 + n d``, or ``n^2 < 3 d^2 + 2 n d`` with the look-ahead selection on ``U``
        (:func:`~safebandits.estimators.ridge.choose_numerics`). All are exact and agree up to
        rounding, so only (near-)ties can be decided differently.
    certified_skip : bool, default True
        In :meth:`GACOL.run_compiled` (simulation), let the uniform and max-reward rules, and Greedy
        Max Var on a diagonal design, take a whole stretch of samples at once when a bound proves that
        no arm can leave ``U`` meanwhile (:func:`try_skip`); the trajectory is the one of the
        sample-by-sample loop, so this only changes speed. Needs ``refresh_every > 0``; no effect on
        ask / tell or the other rules.
    """

    delta: float = 0.05
    width: Literal["theory", "tuned"] = "theory"
    tuned_width: float = 0.5
    ridge: float = 0.1
    noise_bound: float = 1.0
    arm_norm_bound: float = 1.0
    param_norm_bound: float = 1.0
    refresh_every: int = 1000
    selection: Literal["lookahead", "most_uncertain", "uniform", "max_reward"] = "lookahead"
    select_from: Literal["uncertain", "all", "feasible"] = "uncertain"
    numerics: Literal["auto", "primal", "gram", "diagonal"] = "auto"
    certified_skip: bool = True

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_literal_fields(self, owner=owner)
        check_positive(self.tuned_width, "tuned_width", owner=owner)
        check_positive(self.ridge, "ridge", owner=owner)
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        check_positive(self.arm_norm_bound, "arm_norm_bound", owner=owner)
        check_positive(self.param_norm_bound, "param_norm_bound", owner=owner, allow_zero=True)
        check_int(self.refresh_every, "refresh_every", low=0, owner=owner)
        check_choice(self.certified_skip, "certified_skip", (True, False), owner=owner)


# The codes above are the positions in the annotations of GACOLConfig (the one source of the names).
_SELECTIONS = literal_choices(GACOLConfig)["selection"]
_SELECT_FROM = literal_choices(GACOLConfig)["select_from"]
assert _SELECTIONS.index("max_reward") == MAX_REWARD and _SELECT_FROM.index("feasible") == FROM_FEASIBLE


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _is_candidate(i, select_from, in_uncertain, in_feasible):
    if select_from == FROM_UNCERTAIN:
        return in_uncertain[i]
    if select_from == FROM_FEASIBLE:
        return in_feasible[i]
    return True


@numba.njit(cache=True, inline="always")
def _effective_rule(selection, select_from, istate):
    """Max Rew-F's fallback: a uniform arm of ``X`` while ``F`` is empty (``istate[0] < 0``)."""
    if select_from == FROM_FEASIBLE and istate[0] < 0:
        return UNIFORM, FROM_ALL
    return selection, select_from


@numba.njit(cache=True, inline="always")
def _best_candidate(scores, select_from, in_uncertain, in_feasible):
    """Candidate with the highest score, the lowest index on ties; -1 if there is none."""
    best = -1
    best_val = -np.inf
    for i in range(scores.shape[0]):
        if _is_candidate(i, select_from, in_uncertain, in_feasible) and (best < 0 or scores[i] > best_val):
            best = i
            best_val = scores[i]
    return best


@numba.njit(cache=True, inline="always")
def select_arm(
    arms, arms_t, rewards, a_inv, gram, sq_widths, in_uncertain, in_feasible, istate, uniforms, counters,
    selection, select_from, numerics, work_v, work_g,
):  # fmt: skip
    """Arm to pull next (Algorithm 2, line 4, and the rules of Table D.2); ``O(n d + d^2)`` with primal
    numerics (look-ahead from ``a_inv``), ``O(n)`` with Gram numerics (``numerics`` = ``GRAM``:
    look-ahead from a row of ``gram``).

    Consumes one learner uniform from ``uniforms`` (advancing ``counters[1]``) exactly when the pick is
    uniform random. Ties go to the lowest index. ``istate[0] < 0`` means ``F`` is empty.
    """
    n, d = arms.shape
    selection, select_from = _effective_rule(selection, select_from, istate)
    if selection == UNIFORM:
        m = 0
        for i in range(n):
            if _is_candidate(i, select_from, in_uncertain, in_feasible):
                m += 1
        u = uniforms[counters[1]]
        counters[1] += 1
        k = int(u * m)
        if k >= m:
            k = m - 1
        for i in range(n):
            if _is_candidate(i, select_from, in_uncertain, in_feasible):
                if k == 0:
                    return i
                k -= 1
        return -1
    scores = rewards if selection == MAX_REWARD else sq_widths
    best = _best_candidate(scores, select_from, in_uncertain, in_feasible)
    if selection != LOOKAHEAD or select_from == FROM_ALL:
        # Over all of X the look-ahead picks the target itself: (y^T A^{-1} a)^2 / (1 + ||a||^2) <=
        # ||y||^2 ||a||^2 / (1 + ||a||^2) <= ||y||^4 / (1 + ||y||^2) by Cauchy-Schwarz and
        # ||a|| <= ||y|| (norms in A^{-1}), with equality at a = y; so it is not computed.
        return best
    # one-step look-ahead: argmin_a ||y||^2_{(A + a a^T)^{-1}} = ||y||^2 - (y^T A^{-1} a)^2 / (1 + ||a||^2)
    # with g_k = y^T A^{-1} x_k: a row of G = X A^{-1} X^T, or X (A^{-1} y)
    if numerics == GRAM:
        for k in range(n):
            work_g[k] = gram[best, k]
    else:
        if numerics == DIAGONAL:  # a_inv holds [diag(A); b]
            for i in range(d):
                work_v[i] = arms[best, i] / a_inv[0, i]
        else:
            for i in range(d):
                work_v[i] = 0.0
            for j in range(d):
                yj = arms[best, j]
                for i in range(d):
                    work_v[i] += a_inv[j, i] * yj
        for k in range(n):
            work_g[k] = 0.0
        for j in range(d):
            vj = work_v[j]
            for k in range(n):
                work_g[k] += arms_t[j, k] * vj
    target = sq_widths[best]
    pick = 0
    pick_val = np.inf
    for k in range(n):
        val = target - work_g[k] * work_g[k] / (1.0 + sq_widths[k])
        if val < pick_val:
            pick = k
            pick_val = val
    return pick


@numba.njit(cache=True)
def current_width(t, dim, fparams, width_mode):
    """``beta_t``: Proposition 3 with ``t`` samples (``width_mode`` 0) or the tuned constant (1)."""
    if width_mode == 1:
        return fparams[6]
    return adaptive_width_scalar(
        float(t), float(dim), fparams[1], fparams[2], fparams[3], fparams[4], fparams[5]
    )


@numba.njit(cache=True, inline="always")
def tell_sample(
    arms, arms_t, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, work_u, work_w, lower,
    upper, in_uncertain, in_feasible, fstate, istate, counters, fparams, iparams, arm, y,
):  # fmt: skip
    """Add observation ``y`` of ``arm``: ridge update, ``beta_t``, bounds of ``U``, set update (Alg. 2).

    ``fparams = [tau, delta, ridge, R, L, S, tuned_width]``, ``iparams = [width_mode, refresh_every,
    selection, select_from, numerics]``; the state arrays the numerics does not use are empty.
    """
    numerics = iparams[4]
    arm_state_update(
        numerics, arms, arms_t, a_inv, theta, gram, sq_widths, preds, counts, sums, work_u, work_w, arm, y
    )
    counters[0] += 1
    t = counters[0]
    if iparams[1] > 0 and t % iparams[1] == 0:
        arm_state_refresh(numerics, arms, a_inv, theta, gram, sq_widths, preds, counts, sums, fparams[2])
    certify(t, arms.shape[1], rewards, sq_widths, preds, lower, upper, in_uncertain, in_feasible, fstate,
            istate, fparams, iparams)  # fmt: skip


@numba.njit(cache=True, inline="always")
def certify(
    t, dim, rewards, sq_widths, preds, lower, upper, in_uncertain, in_feasible, fstate, istate, fparams,
    iparams,
):  # fmt: skip
    """Bounds ``preds -+ beta_t ||x||_{A^{-1}}`` of every arm of ``U`` after sample ``t``, then the set
    update of Algorithm 2 (:func:`~safebandits.algorithms.pure_exploration._cbai.cbai_update`)."""
    beta = current_width(t, dim, fparams, iparams[0])
    for i in range(rewards.shape[0]):
        if in_uncertain[i]:
            s = sq_widths[i]
            h = beta * math.sqrt(s) if s > 0.0 else 0.0
            lower[i] = preds[i] - h
            upper[i] = preds[i] + h
    cbai_update(lower, upper, rewards, fparams[0], in_uncertain, in_feasible, fstate, istate)


@numba.njit(cache=True)
def tell_then_select(
    arms, arms_t, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, work_u, work_w, lower,
    upper, in_uncertain, in_feasible, fstate, istate, counters, fparams, iparams, uniforms, work_v,
    work_g, arm, y,
):  # fmt: skip
    """:func:`tell_sample`, then the next :func:`select_arm` in the same call (one dispatch per sample
    on the ask / tell path). Returns the next arm, or -1 when the learner is done or its uniform
    buffer must be refilled first (the caller then selects at ``ask``)."""
    tell_sample(
        arms, arms_t, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, work_u, work_w,
        lower, upper, in_uncertain, in_feasible, fstate, istate, counters, fparams, iparams, arm, y,
    )  # fmt: skip
    if istate[2] == 0:
        return -1
    selection = iparams[2]
    select_from = iparams[3]
    if (selection == UNIFORM or select_from == FROM_FEASIBLE) and counters[1] >= uniforms.shape[0]:
        return -1
    return select_arm(
        arms, arms_t, rewards, a_inv, gram, sq_widths, in_uncertain, in_feasible, istate, uniforms,
        counters, selection, select_from, iparams[4], work_v, work_g,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------------
# certified skip (compiled loop only)
# --------------------------------------------------------------------------------------------------
#: Relative safety margin of the skip certificate (orders of magnitude above the rounding of the
#: bounds the sequential loop computes, so the skipped samples cannot change a set there either).
SKIP_SAFETY = 1e-9
#: Samples per chunk of the O(1)-per-sample bound on ``F_t`` in :func:`try_skip`.
SKIP_CHUNK = 256
#: Largest ``|U|`` for which :func:`try_skip` also keeps a bound of its own for every arm of ``U``.
SKIP_TRACKED = 8


@numba.njit(cache=True)
def _forward_solve(low, x, out):
    """``out = L^{-1} x`` for a lower-triangular ``L`` (forward substitution)."""
    d = low.shape[0]
    for i in range(d):
        s = x[i]
        for m in range(i):
            s -= low[i, m] * out[m]
        out[i] = s / low[i, i]


@numba.njit(cache=True)
def _close_chunk(q, zrows, part, peak, znorm):
    """End of a chunk of :func:`try_skip`: bound ``max ||q_t||`` over the chunk by
    ``||q|| + sum_a znorm_a peak_a``, fold the chunk's per-arm sums into ``q``, reset them."""
    n, d = zrows.shape
    e2 = 0.0
    for i in range(d):
        e2 += q[i] * q[i]
    bound = math.sqrt(e2)
    for k in range(n):
        pk = part[k]
        if pk != 0.0:
            bound += znorm[k] * peak[k]
            for i in range(d):
                q[i] += pk * zrows[k, i]
            part[k] = 0.0
            peak[k] = 0.0
    e2 = 0.0
    for i in range(d):
        e2 += q[i] * q[i]
    return max(bound, math.sqrt(e2))


@numba.njit(cache=True)
def _block_rule(rewards, in_uncertain, in_feasible, istate, selection, select_from, cand):
    """The selection rule while ``U`` and ``F`` stay fixed, as :func:`select_arm` applies it.

    Returns ``(m, arm)``: ``m > 0`` -- uniform over the ``m`` candidates ``cand[:m]`` (index order,
    one learner uniform per sample); ``m == 0`` -- always ``arm``; ``arm < 0`` -- no candidate.
    """
    selection, select_from = _effective_rule(selection, select_from, istate)
    if selection == UNIFORM:
        m = 0
        for i in range(rewards.shape[0]):
            if _is_candidate(i, select_from, in_uncertain, in_feasible):
                cand[m] = i
                m += 1
        return m, 0 if m > 0 else -1
    return 0, _best_candidate(rewards, select_from, in_uncertain, in_feasible)


@numba.njit(cache=True, inline="always")
def _wider(ssq, a, b):
    """The arm :func:`select_arm` prefers among ``a`` and ``b`` by width: the wider, else the lower index."""
    if a < 0:
        return b
    if b < 0:
        return a
    if ssq[a] > ssq[b]:
        return a
    if ssq[b] > ssq[a]:
        return b
    return min(a, b)


@numba.njit(cache=True)
def _tree_build(ssq, tree):
    """Tournament tree over the arms (leaves at ``size + i``); ``tree[1]`` is the widest arm."""
    n = ssq.shape[0]
    size = tree.shape[0] // 2
    for i in range(size):
        tree[size + i] = i if i < n else -1
    for k in range(size - 1, 0, -1):
        tree[k] = _wider(ssq, tree[2 * k], tree[2 * k + 1])


@numba.njit(cache=True)
def _tree_update(ssq, tree, i):
    k = (tree.shape[0] // 2 + i) // 2
    while k >= 1:
        tree[k] = _wider(ssq, tree[2 * k], tree[2 * k + 1])
        k //= 2


@numba.njit(cache=True)
def _widest_start(arms, a_inv, theta, sq_widths, preds, sstate, stheta, ssq, spreds, tree):
    """Copy the diagonal state at the block's start and build the tournament tree."""
    sstate[:, :] = a_inv
    stheta[:] = theta
    ssq[:] = sq_widths
    spreds[:] = preds
    _tree_build(ssq, tree)


@numba.njit(cache=True)
def _widest_step(arms, counts, sums, reg, sstate, stheta, ssq, spreds, tree, coord_ptr, coord_arms, arm, y,
                 t, period, refresh):  # fmt: skip
    """Greedy Max Var's design after sample ``t`` (a pull of ``arm`` with value ``y``, counts and sums
    already updated), exactly as :func:`~safebandits.estimators.ridge.arm_diag_update` and the refresh
    every ``period`` samples compute it, in ``O(log n)`` plus the arms along the pulled coordinate."""
    if refresh and t % period == 0:
        arm_diag_refresh(arms, sstate, stheta, ssq, spreds, counts, sums, reg)
        _tree_build(ssq, tree)
        return
    j = arm_axis(arms, arm)
    if j < 0:
        return
    v = arms[arm, j]
    sstate[0, j] += v * v
    sstate[1, j] += v * y
    inv = 1.0 / sstate[0, j]
    for c in range(coord_ptr[j], coord_ptr[j + 1]):
        i = coord_arms[c]
        xi = arms[i, j]
        ssq[i] = xi * xi * inv
        _tree_update(ssq, tree, i)


@numba.njit(cache=True)
def try_skip(
    arms, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, lower, upper, in_uncertain,
    in_feasible, fstate, istate, counters, fparams, iparams, uniforms, cand, zrows, work_a, work_b, work_q,
    saved, skipstate, maxvar, tracked, means, noise_code, sigma, variates, start, max_len,
):  # fmt: skip
    """Take up to ``max_len`` samples at once when no set of Algorithm 2 can change meanwhile.

    Called at a refresh point ``t0`` (``t0`` a multiple of ``refresh_every``) by :func:`run_loop`, for
    the selection rules that depend on the data only through ``U`` and ``F`` (uniform and max-reward),
    and for Greedy Max Var on a diagonal design (its pull, the widest arm of ``X``, depends on the design
    only: :func:`_widest_step` replays it with a tournament tree). While ``U`` and ``F`` are fixed the
    pulls are known, so the block's observations are drawn from
    the variates (the same formula and order as :func:`run_loop`: bit-identical counts and sums). With
    ``A_{t0} = L_0 L_0^T`` and the residuals ``r_s = y_s - x_s^T phi_hat_{t0}`` of the block,
    ``phi_hat_t - phi_hat_{t0} = A_t^{-1} sum_s x_s r_s``, so by Cauchy-Schwarz and ``A_t >= A_{t0}``
    ``|x_i^T phi_hat_t - x_i^T phi_hat_{t0}| <= ||x_i||_{A_t^{-1}} F_t`` with
    ``F_t = ||L_0^{-1} sum_s x_s r_s||``, tracked in ``O(1)`` per sample (chunks of :data:`SKIP_CHUNK`,
    :func:`_close_chunk`). As ``||x_i||_{A_t^{-1}} >= ||x_i||_{A_{t_1}^{-1}}`` and ``beta_t >=
    beta_{t0+1}``, if every arm ``i`` of ``U`` satisfies

        ``|x_i^T phi_hat_{t0} - tau| <= (beta_{t0+1} - max_t F_t) ||x_i||_{A_{t_1}^{-1}}``

    then no arm leaves ``U`` at any sample of the block, exactly as the sample-by-sample loop would
    find (and the anytime answer depends on the current bounds only). The block ends at a refresh
    point ``t_1``, where that loop recomputes its state from counts and sums: the state after the
    skip is the one it would reach, bit for bit. If the certificate fails, counts and sums are
    restored and nothing has changed. Returns the number of samples taken (0 or a multiple of
    ``refresh_every``). ``skipstate = [length cap, max F of the last skip, samples skipped so far]``.
    """
    n, d = arms.shape
    period = iparams[1]
    t0 = counters[0]
    tau = fparams[0]
    reg = fparams[2]
    widest = iparams[2] != UNIFORM and iparams[2] != MAX_REWARD  # Greedy Max Var, diagonal numerics
    if widest:
        m_cand, fixed = 0, 0
    else:
        m_cand, fixed = _block_rule(rewards, in_uncertain, in_feasible, istate, iparams[2], iparams[3], cand)
    if fixed < 0:
        return 0
    if m_cand > 0:
        max_len = min(max_len, uniforms.shape[0] - counters[1])
    beta = current_width(t0 + 1, d, fparams, iparams[0])
    # Predicted length. F grows with the block's share of the design: no pulled arm may more than
    # double its count (nor the block the samples so far). An arm's squared width shrinks about like
    # 1 / (its count) if the block pulls it, like 1 / t otherwise; F is guessed from the last skip.
    slack = beta - 1.25 * skipstate[1]
    if slack <= 0.0:
        return 0
    share = saved[2]
    for k in range(n):
        share[k] = 0.0
    if m_cand > 0:
        for c in range(m_cand):
            share[cand[c]] = 1.0 / m_cand
    elif not widest:  # the widest arm spreads the block over all arms, like t
        share[fixed] = 1.0
    t_eff = float(max(t0, period))
    length = float(min(max_len, skipstate[0], t_eff))
    for k in range(n):
        if share[k] > 0.0:
            length = min(length, (counts[k] + 1.0) / share[k])
        if in_uncertain[k] and sq_widths[k] > 0.0:
            rho = abs(preds[k] - tau) / (slack * math.sqrt(sq_widths[k]))
            if rho >= 1.0:
                return 0
            room = 1.0 / (rho * rho) - 1.0 if rho > 0.0 else np.inf
            if share[k] > 0.0:
                length = min(length, 0.8 * (counts[k] + 1.0) * room / share[k])
            else:
                length = min(length, 0.8 * t_eff * room)
    n_periods = int(length) // period
    if n_periods < 1:
        return 0
    length_i = n_periods * period
    # design at t0, its Cholesky factor and L^{-1} x_a for every arm
    normal_equations(arms, counts, sums, reg, work_a, work_b)
    low = np.linalg.cholesky(work_a)
    for k in range(n):
        _forward_solve(low, arms[k], zrows[k])
    for i in range(d):
        work_q[i] = 0.0
    # Per-arm bound for a few arms of U (h_c = A_{t0}^{-1} x_c, D_t = sum_s x_s x_s^T over the block):
    # x_c^T A_t^{-1} S_t = h_c^T S_t - h_c^T D_t A_t^{-1} S_t, so |x_c^T (phi_hat_t - phi_hat_{t0})| <=
    # |P_c(t)| + sqrt(Q_c(t)) F_t with P_c = sum_s G0[a_s, c] r_s and Q_c = sum_s G0[a_s, c]^2,
    # G0 = X A_{t0}^{-1} X^T (Cauchy-Schwarz in D_t, D_t <= A_t, A_t >= A_{t0}). Much tighter than
    # ||x_c||_{A_t^{-1}} F_t for short blocks, i.e. near an arm's exit.
    g0, tlist, tacc = tracked
    n_tracked = 0
    if istate[2] <= tlist.shape[0]:
        for c in range(n):
            if in_uncertain[c]:
                tlist[n_tracked] = c
                for a in range(n):
                    g = 0.0
                    for i in range(d):
                        g += zrows[a, i] * zrows[c, i]
                    g0[a, n_tracked] = g
                tacc[0, n_tracked] = 0.0
                tacc[1, n_tracked] = 0.0
                tacc[2, n_tracked] = 0.0
                n_tracked += 1
    # the block: pulls, observations, counts and sums as run_loop would make them
    for k in range(n):
        saved[0, k] = counts[k]
        saved[1, k] = sums[k]
    # F_t between chunk ends: ||q_t|| <= ||q_c|| + sum_a ||L^{-1} x_a|| max_t |sum of r_a since c|,
    # so a sample costs O(1) and a chunk O(n d)
    part = saved[2]
    peak = saved[3]
    znorm = saved[4]
    for k in range(n):
        part[k] = 0.0
        peak[k] = 0.0
        w2 = 0.0
        for i in range(d):
            w2 += zrows[k, i] * zrows[k, i]
        znorm[k] = math.sqrt(w2)
    e_max = 0.0
    upos = counters[1]
    sstate, stheta, ssq, spreds, tree, coord_ptr, coord_arms = maxvar
    if widest:
        _widest_start(arms, a_inv, theta, sq_widths, preds, sstate, stheta, ssq, spreds, tree)
    for s in range(length_i):
        if widest:
            arm = tree[1]
        elif m_cand > 0:
            c = int(uniforms[upos + s] * m_cand)
            if c >= m_cand:
                c = m_cand - 1
            arm = cand[c]
        else:
            arm = fixed
        z = variates[start + s, 0]
        if noise_code == 0:
            y = means[arm] + sigma * z
        else:
            y = 1.0 if z < 0.5 * (1.0 + means[arm]) else -1.0
        counts[arm] += 1.0
        sums[arm] += y
        if widest:
            _widest_step(arms, counts, sums, reg, sstate, stheta, ssq, spreds, tree, coord_ptr, coord_arms,
                         arm, y, t0 + s + 1, period, s + 1 < length_i)  # fmt: skip
        r = y - preds[arm]
        for k in range(n_tracked):
            g = g0[arm, k]
            pk = tacc[0, k] + g * r
            tacc[0, k] = pk
            if abs(pk) > tacc[1, k]:
                tacc[1, k] = abs(pk)
            tacc[2, k] += g * g
        p = part[arm] + r
        part[arm] = p
        if abs(p) > peak[arm]:
            peak[arm] = abs(p)
        if (s + 1) % SKIP_CHUNK == 0 or s + 1 == length_i:
            e_max = max(e_max, _close_chunk(work_q, zrows, part, peak, znorm))
    # certificate at the end of the block: every arm of U by the general or its own bound
    safe = 1.0 - SKIP_SAFETY
    ok = True
    f_eff = 0.0  # the largest F per unit width the certificate used
    normal_equations(arms, counts, sums, reg, work_a, work_b)
    low = np.linalg.cholesky(work_a)
    k = 0
    for i in range(n):
        if not in_uncertain[i]:
            continue
        _forward_solve(low, arms[i], work_b)
        w2 = 0.0
        for m in range(d):
            w2 += work_b[m] * work_b[m]
        w = math.sqrt(w2)
        move = e_max * w
        if k < n_tracked and tlist[k] == i:
            move = min(move, tacc[1, k] + math.sqrt(tacc[2, k]) * e_max)
            k += 1
        if abs(preds[i] - tau) + move > beta * w * safe:
            ok = False
            break
        if w > 0.0:
            f_eff = max(f_eff, move / w)
    if not ok:
        for k in range(n):
            counts[k] = saved[0, k]
            sums[k] = saved[1, k]
        skipstate[0] = max(float(period), 0.5 * length_i)
        return 0
    skipstate[0] = max(skipstate[0], 2.0 * length_i)
    skipstate[1] = f_eff
    skipstate[2] += length_i
    counters[0] = t0 + length_i
    if m_cand > 0:
        counters[1] = upos + length_i
    arm_state_refresh(iparams[4], arms, a_inv, theta, gram, sq_widths, preds, counts, sums, reg)
    certify(counters[0], d, rewards, sq_widths, preds, lower, upper, in_uncertain, in_feasible, fstate,
            istate, fparams, iparams)  # fmt: skip
    return length_i


@numba.njit(cache=True)
def run_loop(
    arms, arms_t, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, work_u, work_w, lower,
    upper, in_uncertain, in_feasible, fstate, istate, counters, fparams, iparams, uniforms, work_v,
    work_g, means, noise_code, sigma, variates, start, stop, skip_args,
):  # fmt: skip
    """Ask -> pull -> tell for variate rows ``start, start+1, ...`` until ``U`` is empty, row ``stop``
    is reached, or the learner's uniform buffer runs dry (the caller refills it and calls again).

    ``skip_args = (cand, zrows, work_a, work_b, work_q, saved, skipstate, maxvar, tracked)`` (see
    :func:`try_skip`); with an empty ``cand`` every sample is taken one by one.

    Observation of a pull of ``arm`` with standard variate ``z``: Gaussian (``noise_code`` 0)
    ``means[arm] + sigma z``; binary (1) ``+1 if z < (1 + means[arm]) / 2 else -1``, as in
    :mod:`safebandits.problems.noise`. Returns the index of the first unused variate row.
    """
    selection = iparams[2]
    select_from = iparams[3]
    numerics = iparams[4]
    needs_uniform = selection == UNIFORM or select_from == FROM_FEASIBLE
    cand, zrows, work_a, work_b, work_q, saved, skipstate, maxvar, tracked = skip_args
    period = iparams[1]
    widest = select_from == FROM_ALL and numerics == DIAGONAL  # Greedy Max Var on a diagonal design
    fixed_rule = selection == UNIFORM or selection == MAX_REWARD
    can_skip = cand.shape[0] > 0 and period > 0 and (fixed_rule or widest)
    j = start
    while j < stop:
        if istate[2] == 0:
            break
        if needs_uniform and counters[1] >= uniforms.shape[0]:
            break
        if can_skip and counters[0] % period == 0 and stop - j >= period:
            taken = try_skip(
                arms, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, lower, upper,
                in_uncertain, in_feasible, fstate, istate, counters, fparams, iparams, uniforms, cand, zrows,
                work_a, work_b, work_q, saved, skipstate, maxvar, tracked, means, noise_code, sigma,
                variates, j, stop - j,
            )  # fmt: skip
            if taken > 0:
                j += taken
                continue
        arm = select_arm(
            arms, arms_t, rewards, a_inv, gram, sq_widths, in_uncertain, in_feasible, istate, uniforms,
            counters, selection, select_from, numerics, work_v, work_g,
        )  # fmt: skip
        z = variates[j, 0]
        if noise_code == 0:
            y = means[arm] + sigma * z
        else:
            y = 1.0 if z < 0.5 * (1.0 + means[arm]) else -1.0
        tell_sample(
            arms, arms_t, rewards, a_inv, theta, gram, sq_widths, preds, counts, sums, work_u, work_w,
            lower, upper, in_uncertain, in_feasible, fstate, istate, counters, fparams, iparams, arm, y,
        )  # fmt: skip
        j += 1
    return j


# --------------------------------------------------------------------------------------------------
# learner
# --------------------------------------------------------------------------------------------------
_VARIANTS = {
    "g-acol": ({}, "G-ACOL: look-ahead on the most uncertain arm of U (Algorithm 2)."),
    "greedy-maxvar": ({"select_from": "all"}, "Greedy Max Var: look-ahead on the most uncertain arm of X."),
    "adaptive-uniform": ({"selection": "uniform", "select_from": "all"}, "Adaptive Uniform: uniform over X."),
    "g-acol-uniform": ({"selection": "uniform"}, "G-ACOL Uniform: uniform over U."),
    "maxrew-u": ({"selection": "max_reward"}, "Max Rew-U: highest-reward arm of U."),
    "maxrew-f": (
        {"selection": "max_reward", "select_from": "feasible"},
        "Max Rew-F: highest-reward certified-feasible arm, uniform over X until one exists.",
    ),
}


def _register(cls: type[BaseLearner]) -> type[BaseLearner]:
    for name, (defaults, description) in _VARIANTS.items():
        register_algorithm(name, task="pure_exploration", defaults=defaults, description=description)(cls)
    return cls


@_register
class GACOL(CBAILearner):
    """Sequential CBAI with adaptive confidence intervals: G-ACOL (Lindner et al. 2022, Algorithm 2).

    Each step pulls one arm chosen by the configured selection rule, adds the observation to a ridge
    estimate (``A_0 = ridge I``), bounds every uncertain arm by ``phi_hat^T x -+ beta_t ||x||_{A^{-1}}``
    with ``beta_t`` of Proposition 3 (``t`` = samples so far) or a tuned constant, and updates the
    uncertain set ``U``, the certified-feasible set ``F`` and the best certified reward ``r``
    (Sec. 3). It stops when ``U`` is empty and recommends the best arm of ``F``; the anytime answer
    falls back to the lowest-upper-bound arm seen (Sec. 3.4 heuristic, authors' code).

    Parameters
    ----------
    config : GACOLConfig
    info : CBAIInfo
        Arms, known reward parameter ``theta`` and threshold ``tau``.
    rng : numpy.random.Generator
        Learner randomness (uniform selections), drawn in blocks of :data:`UNIFORM_BLOCK`.

    Notes
    -----
    Glossary (paper symbol -> code): ``X`` -> ``info.arms``; ``theta`` -> ``info.reward_param``;
    ``phi_hat`` -> ``theta_hat`` of the ridge state; ``A^{-1}`` -> ``a_inv`` (Gram numerics: ``G = X A^{-1}
    X^T`` -> ``gram``, ``A^{-1}`` and ``phi_hat`` computed on demand); ``||x||^2_{A^{-1}}`` ->
    ``sq_widths``; ``beta_t`` -> :func:`current_width`; ``U_t, F_t, r`` -> :attr:`sets`;
    ``l_t, u_t`` -> :meth:`confidence_bounds`; ``tau`` -> ``info.threshold``.

    Guarantee: with ``width="theory"`` and the norm bounds ``R, L, S`` valid for the instance, the
    answer is correct with probability at least ``1 - delta`` (Sec. 3.2). ``width="tuned"`` and the
    uniform / max-reward rules are heuristics without guarantee; Max Rew-F can stall forever on
    instances where no certified arm is informative (App. D), so always run it with a budget.

    Deviations: see ``docs/decisions/acol.md`` (G-ACOL selection rule, tuned width, set comparisons).

    The whole run can be compiled: :meth:`run_compiled` gives the same trajectory as ask / tell.
    """

    config_cls = GACOLConfig

    def __init__(self, config: GACOLConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        arms, rewards, tau = check_cbai_info(info, type(self).__name__)
        numerics = config.numerics
        if numerics == "auto" and not is_axis_aligned(arms):
            lookahead = config.selection == "lookahead" and config.select_from != "all"
            numerics = choose_numerics(*arms.shape, lookahead=lookahead)
        self._ridge = ArmRidge(arms, config.ridge, refresh_every=0, numerics=numerics)
        self._rewards = rewards
        self._sets = CBAISets(rewards, tau)
        n, d = arms.shape
        self._lower = np.full(n, -np.inf)
        self._upper = np.full(n, np.inf)
        self._work_v = np.zeros(d)
        self._work_g = np.zeros(n)
        self._needs_uniform = config.selection == "uniform" or config.select_from == "feasible"
        self._uniforms = np.zeros(UNIFORM_BLOCK if self._needs_uniform else 0)
        self._counters = np.array([0, self._uniforms.shape[0]], dtype=np.int64)
        c = config
        self._fparams = np.array(
            [tau, c.delta, c.ridge, c.noise_bound, c.arm_norm_bound, c.param_norm_bound, c.tuned_width]
        )
        self._iparams = np.array(
            [
                int(c.width == "tuned"),
                c.refresh_every,
                _SELECTIONS.index(c.selection),
                _SELECT_FROM.index(c.select_from),
                self._ridge.numerics_code,
            ],
            dtype=np.int64,
        )
        # Kernel arguments, bound once: every array is updated in place and never rebound.
        r, s = self._ridge, self._sets
        self._select_args = (
            r.arms, r.arms_t, rewards, r.a_inv_state, r.gram, r.sq_widths, s.in_uncertain, s.in_feasible,
            s.istate, self._uniforms, self._counters, _SELECTIONS.index(c.selection),
            _SELECT_FROM.index(c.select_from), r.numerics_code, self._work_v, self._work_g,
        )  # fmt: skip
        self._tell_args = (
            r.arms, r.arms_t, rewards, r.a_inv_state, r.theta_state, r.gram, r.sq_widths, r.preds, r.counts,
            r.sums, r.work_u, r.work_w, self._lower, self._upper, s.in_uncertain, s.in_feasible, s.fstate,
            s.istate, self._counters, self._fparams, self._iparams,
        )  # fmt: skip
        self._loop_args = (*self._tell_args, self._uniforms, self._work_v, self._work_g)
        self._select_kernel = bind_kernel(select_arm, self._select_args)
        self._tell_kernel = bind_kernel(tell_then_select, (*self._loop_args, 0, 0.0))
        self._prefetched = -1  # next arm, selected at the end of the last tell
        self._skip_state: FloatArray | None = None  # [length cap, last max E, skipped] of try_skip

    # -- diagnostics ------------------------------------------------------------------------------
    @property
    def numerics(self) -> str:
        """Numerics of the ridge state, ``"primal"`` or ``"gram"`` (``"auto"`` resolved)."""
        return self._ridge.numerics

    @property
    def ridge(self) -> ArmRidge:
        """The ridge state: ``theta_hat`` (= ``phi_hat``), ``a_inv``, ``sq_widths``, ``preds``, ``gram``.

        With Gram numerics ``theta_hat`` and ``a_inv`` are recomputed from counts and sums on access.
        """
        return self._ridge

    @property
    def skipped_samples(self) -> int:
        """Samples taken by certified skips of :meth:`run_compiled` (diagnostic; see ``certified_skip``)."""
        return 0 if self._skip_state is None else int(self._skip_state[2])

    @property
    def beta(self) -> float:
        """Current width ``beta_t`` (``t`` = samples so far)."""
        return float(current_width(self.n_samples, self._ridge.dim, self._fparams, self._iparams[0]))

    def confidence_bounds(self) -> tuple[FloatArray, FloatArray]:
        """Current bounds ``(l_t, u_t)`` on ``phi^T x`` of every arm."""
        h = self.beta * self._ridge.widths
        return self._ridge.preds - h, self._ridge.preds + h

    # -- protocol ---------------------------------------------------------------------------------
    def _refill_uniforms(self) -> None:
        if self._needs_uniform and self._counters[_UPOS] >= self._uniforms.shape[0]:
            self._uniforms[:] = self.rng.random(self._uniforms.shape[0])
            self._counters[_UPOS] = 0

    def _ask(self, context: Any) -> Decision:
        arm = self._prefetched
        if arm >= 0:
            self._prefetched = -1
            return Decision(arm=arm)
        if self._needs_uniform:
            self._refill_uniforms()
        return Decision(arm=int(self._select_kernel(*self._select_args)))

    def _drop_prefetch(self) -> None:
        """Forget the arm selected at the end of the last tell, giving back the uniform it drew."""
        if self._prefetched < 0:
            return
        c = self.config
        drew_uniform = c.selection == "uniform" or (c.select_from == "feasible" and self._sets.istate[0] < 0)
        if drew_uniform:
            self._counters[_UPOS] -= 1
        self._prefetched = -1

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.constraints is None:
            raise ProtocolError("GACOL must be told an Observation with a constraint value.")
        self._update(int(decision.arm), float(observation.constraints[0]))

    def _update(self, arm: int, y: float) -> None:
        self._prefetched = int(self._tell_kernel(*self._loop_args, arm, y))

    def _recommend_info(self) -> dict[str, Any]:
        return {"beta": self.beta}

    # -- compiled simulation ----------------------------------------------------------------------
    def run_compiled(self, env: Any, budget: int) -> None:
        """Run ask -> pull -> tell in one compiled loop until ``done`` or ``budget`` total samples.

        Consumes the environment's standard variates through ``env.take_variates`` in blocks (the
        k-th pull meets the k-th variate, exactly as ``env.pull``) and the learner's uniforms from the
        same buffer as :meth:`ask`, so the trajectory equals the ask / tell path's. Variates of the
        last block left unused when the learner stops are discarded. Environments with more than
        one output column or an unknown noise model fall back to the Python loop.

        Parameters
        ----------
        env : ArmEnvironment
        budget : int
            Maximum total number of samples (including samples already taken).
        """
        if self._pending is not None:
            raise ProtocolError("GACOL.run_compiled called with a pending ask; tell it first.")
        self._drop_prefetch()
        budget = check_int(budget, "budget", low=0)
        code = getattr(env.noise, "code", None)
        means = np.asarray(env.means)
        if means.shape != (self.n_arms, 1) or code not in (0, 1):
            self._run_python(env, budget)
            return
        mean_vec = np.ascontiguousarray(means[:, 0], dtype=np.float64)
        sigma = float(env.noise.sigma) if code == 0 else 0.0
        skip_args = self._skip_args()
        period = self.config.refresh_every
        while not self.done and self.n_samples < budget:
            k = min(VARIATE_BLOCK, budget - self.n_samples)
            if period > 0 and k == VARIATE_BLOCK and k > period:
                k -= (self.n_samples + k) % period  # end blocks at refresh points: longer skips
            variates = np.ascontiguousarray(env.take_variates(k), dtype=np.float64)
            j = 0
            while j < k and not self.done:
                self._refill_uniforms()
                j_next = run_loop(*self._loop_args, mean_vec, int(code), sigma, variates, j, k, skip_args)
                self.n_samples += j_next - j
                env.n_samples += j_next - j
                j = j_next

    def _skip_args(self) -> tuple:
        """Arrays of :func:`try_skip` (empty: no skipping).

        Skips serve the uniform and max-reward rules, and Greedy Max Var (widest arm of all of ``X``)
        on a diagonal design, whose pulls a tournament tree over the widths replays in ``O(log n)``.
        """
        arms = self._ridge.arms
        n, d = arms.shape
        c = self.config
        widest = c.select_from == "all" and c.selection in ("lookahead", "most_uncertain")
        widest = widest and self._ridge.numerics == "diagonal"
        fixed_rule = c.selection in ("uniform", "max_reward")
        if not (c.certified_skip and c.refresh_every > 0 and (fixed_rule or widest)):
            n = d = 0
        nw, dw = (n, d) if widest else (0, 0)
        coord = np.argmax(arms[:nw] != 0.0, axis=1) if nw else np.zeros(0, dtype=np.int64)
        nonzero = np.any(arms[:nw] != 0.0, axis=1) if nw else np.zeros(0, dtype=bool)
        coord_arms = np.flatnonzero(nonzero)[np.argsort(coord[nonzero], kind="stable")]
        coord_ptr = np.searchsorted(coord[coord_arms], np.arange(dw + 1)) if nw else np.zeros(1, np.int64)
        size = 1 << max(nw - 1, 0).bit_length() if nw else 0
        maxvar = (
            np.zeros((2, dw)),
            np.zeros(dw),
            np.zeros(nw),
            np.zeros(nw),
            np.zeros(2 * size, dtype=np.int64),
            np.ascontiguousarray(coord_ptr, dtype=np.int64),
            np.ascontiguousarray(coord_arms, dtype=np.int64),
        )
        if self._skip_state is None:
            self._skip_state = np.array([float(VARIATE_BLOCK), 0.0, 0.0])
        kt = SKIP_TRACKED if n else 0
        tracked = (np.zeros((n, kt)), np.zeros(kt, dtype=np.int64), np.zeros((3, kt)))
        return (
            np.zeros(n, dtype=np.int64),
            np.zeros((n, d)),
            np.zeros((d, d)),
            np.zeros(d),
            np.zeros(d),
            np.zeros((5, n)),
            self._skip_state,
            maxvar,
            tracked,
        )

    def _run_python(self, env: Any, budget: int) -> None:
        while not self.done and self.n_samples < budget:
            decision = self.ask()
            self.tell(decision, env.play(decision))
