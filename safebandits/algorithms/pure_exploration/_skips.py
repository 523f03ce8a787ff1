"""Certified skips of G-ACOL's compiled simulation loop: many samples at once, the same trajectory.

Some sequential rules of the G-ACOL family pull arms that do not depend on the data as long as the
sets ``U`` and ``F`` of Algorithm 2 stay the same: the uniform rules (G-ACOL Uniform, Adaptive Uniform)
and the max-reward rules (Max Rew-U, Max Rew-F) depend on the data only through ``U`` and ``F``, and
Greedy Max Var on a design whose arms each have one non-zero coordinate pulls the widest arm of ``X``,
a function of the design alone; G-ACOL, while ``U`` holds one arm ``y``, pulls ``y`` itself for as
long as :func:`lookahead_keeps_target` certifies (a bound on every other arm's look-ahead reduction that
holds for any number of pulls of ``y``). For a stretch of samples in which no arm leaves ``U`` the pulls
are therefore known in advance, and the environment's sampler draws their observations.

:func:`try_skip` takes such a stretch at once, starting and ending at exact-refresh points ``t0`` and
``t1`` (multiples of ``refresh_every``): it plays the pulls, accumulating the per-arm counts and sums
exactly as the sample-by-sample loop would (same formula, same order: bit-identical sufficient
statistics), and bounds how far any prediction ``x^T phi_hat_t`` could have moved during the stretch.
What is *certified* is that no arm of ``U`` can satisfy ``l_t(x) > tau`` or ``u_t(x) <= tau`` at any
sample ``t0 < t <= t1``: so the sample-by-sample loop would not have changed ``U``, ``F`` or ``r``
either, would have made the same pulls, and at ``t1`` recomputes its state from the counts and sums,
exactly as the skip does. The result is *exact*, not approximate: the state after a skip is the one
the loop reaches, bit for bit, and the bound carries a relative margin :data:`SKIP_SAFETY` far above
the rounding of the bounds the loop computes. If the certificate fails, counts and sums are restored
and nothing has changed (the loop then takes the samples one by one).

Used only by :func:`~safebandits.algorithms.pure_exploration.g_acol.run_loop` (simulation); the ask /
tell path never skips.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from safebandits.algorithms.pure_exploration._g_acol_kernels import (
    FROM_ALL,
    FROM_UNCERTAIN,
    LOOKAHEAD,
    MAX_REWARD,
    NO_ARM,
    UNIFORM,
    GACOLState,
    best_candidate,
    certify,
    current_width,
    effective_rule,
    is_candidate,
)
from safebandits.estimators.ridge import (
    ArmRidgeArrays,
    DiagonalArrays,
    arm_axis,
    arm_diag_refresh,
    arm_state_refresh,
    normal_equations,
)
from safebandits.types import FloatArray, IntArray

__all__ = ["SKIP_CHUNK", "SKIP_LIVE", "SKIP_SAFETY", "SKIP_TRACKED", "SkipWork", "new_skip_work", "try_skip"]

#: Relative safety margin of the skip certificate (orders of magnitude above the rounding of the
#: bounds the sequential loop computes, so the skipped samples cannot change a set there either).
SKIP_SAFETY = 1e-9
#: Samples per chunk of the O(1)-per-sample bound on ``F_t`` in :func:`try_skip`.
SKIP_CHUNK = 256
#: Relative margin by which the target's own look-ahead reduction must beat every other arm's bound in
#: G-ACOL's skips (:func:`lookahead_keeps_target`), far above the relative rounding of the look-ahead's
#: values (about 1e-12 between an exact refresh and the rank-one recursion, docs/decisions/acol.md).
PICK_SAFETY = 1e-6
#: Smallest ``s_y (1 - B)`` (target width times relative lead) a G-ACOL skip accepts: the look-ahead
#: compares ``s_y - reduction`` in floating point, whose rounding is about ``2e-16 s_y``.
PICK_FLOOR = 1e-12

#: Largest ``|U|`` for which :func:`try_skip` also keeps a bound of its own for every arm of ``U``.
SKIP_TRACKED = 8

#: Factor by which a refused skip (one the predicted length rules out, below) shrinks the remembered ``F``
#: per unit width: a value measured once (e.g. by the general bound while ``|U| > SKIP_TRACKED``) must
#: not rule out every later skip (issue 43: it did for whole budget-hit runs).
SKIP_FORGET = 0.5

#: The skip's memory across calls: the cap on the next skip's length, the largest ``F`` per unit width
#: the last successful certificate used (guides the next length; shrunk by :data:`SKIP_FORGET` at every
#: refusal), the samples skipped so far, the first sample ``t`` at which a skip may be tried again and
#: the wait after the next failure of a shortest skip (doubled at each, reset by a success), and the
#: skips tried and failed (diagnostics).
SKIP_LIVE = np.dtype(
    [("cap", np.float64), ("f_last", np.float64), ("skipped", np.int64), ("next_try", np.int64),
     ("wait", np.int64), ("tried", np.int64), ("failed", np.int64)]
)  # fmt: skip


class WidestTree(NamedTuple):
    """Greedy Max Var's replay on a diagonal design (empty when not used).

    ``shadow`` a copy of the diagonal ridge state the block updates (its ``counts`` and ``sums`` are the
    learner's); ``tree`` a tournament tree over the widths (leaves at ``size + i``, ``tree[1]`` the
    widest arm); ``coord_arms[coord_ptr[j]:coord_ptr[j + 1]]`` the arms along coordinate ``j``.
    """

    shadow: ArmRidgeArrays
    tree: IntArray
    coord_ptr: IntArray
    coord_arms: IntArray


class TrackedArms(NamedTuple):
    """Per-arm bounds for the arms of a small ``U`` (:data:`SKIP_TRACKED`): ``g0[a, k] = x_a^T
    A_{t0}^{-1} x_{arms[k]}``; ``acc[:, k] = [P_k, max |P_k|, Q_k]`` over the block."""

    g0: FloatArray
    arms: IntArray
    acc: FloatArray


class SkipWork(NamedTuple):
    """Work arrays of :func:`try_skip` (all empty: no skipping).

    ``cand`` the candidates of a uniform rule; ``zrows`` ``L_0^{-1} x_a`` for every arm (``A_{t0} = L_0
    L_0^T``); ``work_a`` (d, d), ``work_b`` (d,) the normal equations; ``work_q`` (d,) ``L_0^{-1} sum_s
    x_s r_s``; ``saved`` (5, n) saved counts and sums, each arm's share of the block, its partial and
    peak residual sums and ``||L_0^{-1} x_a||``; ``live`` a one-element array of dtype
    :data:`SKIP_LIVE`; ``widest`` :class:`WidestTree`; ``tracked`` :class:`TrackedArms`.
    """

    cand: IntArray
    zrows: FloatArray
    work_a: FloatArray
    work_b: FloatArray
    work_q: FloatArray
    saved: FloatArray
    live: np.ndarray
    widest: WidestTree
    tracked: TrackedArms


def new_skip_work(ridge: ArmRidgeArrays, enabled: bool, widest: bool, live: np.ndarray) -> SkipWork:
    """Work arrays of :func:`try_skip` for the arms of ``ridge`` (empty unless ``enabled``).

    ``widest``: Greedy Max Var on a diagonal design (adds the :class:`WidestTree`); ``live`` the
    learner's :data:`SKIP_LIVE` record array, kept across runs.
    """
    arms = ridge.arms
    n, d = arms.shape if enabled else (0, 0)
    nw, dw = (n, d) if widest else (0, 0)
    coord = np.argmax(arms[:nw] != 0.0, axis=1) if nw else np.zeros(0, dtype=np.int64)
    nonzero = np.any(arms[:nw] != 0.0, axis=1) if nw else np.zeros(0, dtype=bool)
    coord_arms = np.flatnonzero(nonzero)[np.argsort(coord[nonzero], kind="stable")]
    coord_ptr = np.searchsorted(coord[coord_arms], np.arange(dw + 1)) if nw else np.zeros(1, np.int64)
    size = 1 << max(nw - 1, 0).bit_length() if nw else 0
    shadow = DiagonalArrays(
        arms, ridge.arms_t, np.zeros((2, dw)), np.zeros(dw), np.zeros((0, 0)), np.zeros(nw), np.zeros(nw),
        ridge.counts, ridge.sums, np.zeros(0), np.zeros(0),
    )  # fmt: skip
    tree = WidestTree(
        shadow,
        np.zeros(2 * size, dtype=np.int64),
        np.ascontiguousarray(coord_ptr, dtype=np.int64),
        np.ascontiguousarray(coord_arms, dtype=np.int64),
    )
    kt = SKIP_TRACKED if n else 0
    tracked = TrackedArms(np.zeros((n, kt)), np.zeros(kt, dtype=np.int64), np.zeros((3, kt)))
    return SkipWork(
        np.zeros(n, dtype=np.int64), np.zeros((n, d)), np.zeros((d, d)), np.zeros(d), np.zeros(d),
        np.zeros((5, n)), live, tree, tracked,
    )  # fmt: skip


@numba.njit(cache=True)
def _forward_solve_arms(low, arms_t, out_t):
    """``out_t[:, k] = L^{-1} x_k`` for every arm (``arms_t`` is ``X^T``, (d, n)) by forward substitution,
    every arm's sums advancing together, one term per pass over a row (the passes vectorise: about 10x
    faster at d = 100 than one arm at a time, issue 43); each the terms and order of one arm's solve."""
    d, n = arms_t.shape
    for i in range(d):
        li = low[i, i]
        acc = out_t[i]
        for k in range(n):
            acc[k] = arms_t[i, k]
        for m in range(i):
            lim = low[i, m]
            zm = out_t[m]
            for k in range(n):
                acc[k] -= lim * zm[k]
        for k in range(n):
            acc[k] = acc[k] / li


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
def _block_rule(st, cand):
    """The selection rule while ``U`` and ``F`` stay fixed, as :func:`select_arm` applies it.

    Returns ``(m, arm)``: ``m > 0`` -- uniform over the ``m`` candidates ``cand[:m]`` (index order,
    one learner uniform per sample); ``m == 0`` -- always ``arm``; ``arm == NO_ARM`` -- no candidate.
    G-ACOL's look-ahead over ``U``: the only arm of ``U`` (its target) when ``|U| = 1``, else
    :data:`NO_ARM`; that the look-ahead keeps pulling it is certified apart
    (:func:`lookahead_keeps_target`).
    """
    sets = st.sets
    rewards, in_uncertain, in_feasible = sets.rewards, sets.in_uncertain, sets.in_feasible
    selection, select_from = effective_rule(st.const, sets.live[0].best_arm == NO_ARM)
    if selection == LOOKAHEAD and select_from == FROM_UNCERTAIN:
        if sets.live[0].n_uncertain != 1:
            return 0, NO_ARM
        return 0, best_candidate(rewards, select_from, in_uncertain, in_feasible)
    if selection == UNIFORM:
        m = 0
        for i in range(rewards.shape[0]):
            if is_candidate(i, select_from, in_uncertain, in_feasible):
                cand[m] = i
                m += 1
        return m, 0 if m > 0 else NO_ARM
    return 0, best_candidate(rewards, select_from, in_uncertain, in_feasible)


@numba.njit(cache=True)
def lookahead_keeps_target(zrows, y, length):
    """Whether G-ACOL's look-ahead (:func:`~safebandits.algorithms.pure_exploration._g_acol_kernels.
    select_arm`) pulls its target ``y``, the only arm of ``U``, at each of the next ``length`` samples
    if it pulls ``y`` at each of them (so: at all of them), with ``zrows[k] = L_0^{-1} x_k`` at the
    block's start (``A_{t0} = L_0 L_0^T``).

    With ``s_k = ||x_k||^2_{A^{-1}}``, ``g_k = x_k^T A^{-1} y`` at ``t0`` and ``m`` pulls of ``y``
    (Sherman--Morrison): ``g_k(m) = g_k / (1 + m s_y)``, ``s_y(m) = s_y / (1 + m s_y)``,
    ``s_k(m) = s_k - m g_k^2 / (1 + m s_y) >= s_k - g_k^2 / s_y``. The look-ahead compares the
    reductions ``g_k(m)^2 / (1 + s_k(m))`` with the target's own ``s_y(m)^2 / (1 + s_y(m))``; their
    ratio is at most ``B_k = (g_k / s_y)^2 (1 + s_y) / (1 + s_k - g_k^2 / s_y)`` for every ``m``. Certified
    when every other arm has ``B_k`` below ``1 - PICK_SAFETY`` less a rounding allowance growing with
    ``s_k / s_y`` (the error of ``g_k^2`` in units of ``s_y^2``), and the lead left at the block's
    end, ``s_y(length) (1 - B)``, is at least :data:`PICK_FLOOR` (the look-ahead values ``s_y -
    reduction`` are rounded at the scale of ``s_y``): then ``y`` is the strict minimiser at every sample,
    whatever the tie rule.
    """
    n, d = zrows.shape
    s_y = 0.0
    for i in range(d):
        s_y += zrows[y, i] * zrows[y, i]
    if not s_y > 0.0:
        return False
    worst = 0.0
    for k in range(n):
        if k == y:
            continue
        s_k = 0.0
        g = 0.0
        for i in range(d):
            s_k += zrows[k, i] * zrows[k, i]
            g += zrows[k, i] * zrows[y, i]
        rho = (g / s_y) * (g / s_y)
        resid = max(s_k - g * g / s_y, 0.0)
        bound = rho * (1.0 + s_y) / (1.0 + resid) + 1e-9 * (1.0 + s_k / s_y)
        worst = max(worst, bound)
        if worst > 1.0 - PICK_SAFETY:
            return False
    s_end = s_y / (1.0 + float(length) * s_y)
    return s_end * (1.0 - worst) >= PICK_FLOOR


@numba.njit(cache=True, inline="always")
def _wider(ssq, a, b):
    """The arm :func:`select_arm` prefers among ``a`` and ``b`` by width: the wider, else the lower index."""
    if a == NO_ARM:
        return b
    if b == NO_ARM:
        return a
    if ssq[a] > ssq[b]:
        return a
    if ssq[b] > ssq[a]:
        return b
    return min(a, b)


@numba.njit(cache=True)
def _tree_build(ssq, tree):
    """Tournament tree over the arms (leaves at ``size + i``, :data:`NO_ARM` past the last arm); ``tree[1]``
    is the widest arm."""
    n = ssq.shape[0]
    size = tree.shape[0] // 2
    for i in range(size):
        tree[size + i] = i if i < n else NO_ARM
    for k in range(size - 1, 0, -1):
        tree[k] = _wider(ssq, tree[2 * k], tree[2 * k + 1])


@numba.njit(cache=True)
def _tree_update(ssq, tree, i):
    k = (tree.shape[0] // 2 + i) // 2
    while k >= 1:
        tree[k] = _wider(ssq, tree[2 * k], tree[2 * k + 1])
        k //= 2


@numba.njit(cache=True)
def _widest_start(r, w):
    """Copy the diagonal state ``r`` at the block's start into ``w.shadow`` and build the tree."""
    s = w.shadow
    # (element loops, not slice assignments: numba compiles a broadcast check with a formatted error
    # message for each ``a[:] = b``, about 4 s of a cold compile)
    for i in range(r.a_inv.shape[0]):
        for k in range(r.a_inv.shape[1]):
            s.a_inv[i, k] = r.a_inv[i, k]
    for i in range(r.theta.shape[0]):
        s.theta[i] = r.theta[i]
    for i in range(r.sq_widths.shape[0]):
        s.sq_widths[i] = r.sq_widths[i]
        s.preds[i] = r.preds[i]
    _tree_build(s.sq_widths, w.tree)


@numba.njit(cache=True)
def _widest_step(const, w, arm, y, t, refresh):
    """Greedy Max Var's design after sample ``t`` (a pull of ``arm`` with value ``y``, counts and sums
    already updated), exactly as :func:`~safebandits.estimators.ridge.arm_diag_update` and the refresh
    every ``refresh_every`` samples compute it, in ``O(log n)`` plus the arms along the pulled
    coordinate."""
    s, tree = w.shadow, w.tree
    if refresh and t % const.refresh_every == 0:
        arm_diag_refresh(s, const.reg)
        _tree_build(s.sq_widths, tree)
        return
    arms, sstate, ssq = s.arms, s.a_inv, s.sq_widths
    j = arm_axis(arms, arm)
    if j < 0:
        return
    v = arms[arm, j]
    sstate[0, j] += v * v
    sstate[1, j] += v * y
    inv = 1.0 / sstate[0, j]
    for c in range(w.coord_ptr[j], w.coord_ptr[j + 1]):
        i = w.coord_arms[c]
        xi = arms[i, j]
        ssq[i] = xi * xi * inv
        _tree_update(ssq, tree, i)


@numba.njit(cache=True, inline="always")
def _refused(skip):
    """A skip the predicted length rules out (nothing tried): the remembered ``F`` per unit width shrinks
    by :data:`SKIP_FORGET`, so that a value measured under other conditions does not rule out every
    later skip; 0 samples taken."""
    skip.f_last *= SKIP_FORGET
    return 0


@numba.njit(cache=True, inline="always")
def _failed(skip, t0, period, shortest):
    """A certificate that failed (its work wasted: two Cholesky factorisations and the block's draws):
    after a failure of the ``shortest`` skip, none is tried for a wait that doubles at each such failure
    (at least ``period``, at most ``t0 / 4`` samples; reset by a success); 0 samples taken."""
    skip.failed += 1
    if shortest:
        w = min(max(skip.wait, period), max(t0 // 4, period))
        skip.next_try = t0 + w
        skip.wait = 2 * w
    return 0


@numba.njit(cache=True)
def try_skip(st: GACOLState, sk: SkipWork, sampler, start, max_len):
    """Take up to ``max_len`` samples (variate rows from ``start``) at once when no set of Algorithm 2
    can change meanwhile.

    Called at a refresh point ``t0`` (``t0`` a multiple of ``refresh_every``) by
    :func:`~safebandits.algorithms.pure_exploration.g_acol.run_loop`, for the selection rules that
    depend on the data only through ``U`` and ``F`` (uniform and max-reward), and for Greedy Max Var on
    a diagonal design (its pull, the widest arm of ``X``, depends on the design only:
    :func:`_widest_step` replays it with a tournament tree). While ``U`` and ``F`` are fixed the pulls
    are known, so the block's observations are drawn with ``sampler.sample(arm, row)`` (the
    environment's opaque sampler over its variate rows: the same formula and order as the driver's
    rounds, bit-identical counts and sums; the means stay the environment's). With
    ``A_{t0} = L_0 L_0^T`` and the residuals
    ``r_s = y_s - x_s^T phi_hat_{t0}`` of the block, ``phi_hat_t - phi_hat_{t0} = A_t^{-1} sum_s x_s
    r_s``, so by Cauchy-Schwarz and ``A_t >= A_{t0}`` ``|x_i^T phi_hat_t - x_i^T phi_hat_{t0}| <=
    ||x_i||_{A_t^{-1}} F_t`` with ``F_t = ||L_0^{-1} sum_s x_s r_s||``, tracked in ``O(1)`` per sample
    (chunks of :data:`SKIP_CHUNK`, :func:`_close_chunk`). As ``||x_i||_{A_t^{-1}} >=
    ||x_i||_{A_{t_1}^{-1}}`` and ``beta_t >= beta_{t0+1}``, if every arm ``i`` of ``U`` satisfies

        ``|x_i^T phi_hat_{t0} - tau| <= (beta_{t0+1} - max_t F_t) ||x_i||_{A_{t_1}^{-1}}``

    then no arm leaves ``U`` at any sample of the block, exactly as the sample-by-sample loop would
    find (and the anytime answer depends on the current bounds only). The block ends at a refresh
    point ``t_1``, where that loop recomputes its state from counts and sums: the state after the
    skip is the one it would reach, bit for bit. If the certificate fails, counts and sums are
    restored and nothing has changed. Returns the number of samples taken (0 or a multiple of
    ``refresh_every``).
    """
    r, sets, const, live, skip = st.ridge, st.sets, st.const, st.live[0], sk.live[0]
    arms, counts, sums, preds, sq_widths = r.arms, r.counts, r.sums, r.preds, r.sq_widths
    in_uncertain, uniforms = sets.in_uncertain, st.uniforms
    cand, zrows, work_a, work_b, work_q, saved = sk.cand, sk.zrows, sk.work_a, sk.work_b, sk.work_q, sk.saved
    n, d = arms.shape
    period = const.refresh_every
    t0 = live.t
    tau = sets.threshold
    reg = const.reg
    # Greedy Max Var on a diagonal design (the widest arm of X); G-ACOL's look-ahead is a fixed arm
    widest = const.select_from == FROM_ALL and const.selection != UNIFORM and const.selection != MAX_REWARD
    if widest:
        m_cand, fixed = 0, 0
    else:
        m_cand, fixed = _block_rule(st, cand)
    if fixed == NO_ARM or t0 < skip.next_try:
        return 0
    if m_cand > 0:
        max_len = min(max_len, uniforms.shape[0] - live.upos)
    beta = current_width(const, t0 + 1, d)
    # Predicted length. F grows with the block's share of the design: no pulled arm may more than
    # double its count (nor the block the samples so far). An arm's squared width shrinks about like
    # 1 / (its count) if the block pulls it, like 1 / t otherwise; F is guessed from the last skip,
    # forgotten little by little while it rules skips out (_refused).
    slack = beta - 1.25 * skip.f_last
    if slack <= 0.0:
        return _refused(skip)
    share = saved[2]
    for k in range(n):
        share[k] = 0.0
    if m_cand > 0:
        for c in range(m_cand):
            share[cand[c]] = 1.0 / m_cand
    elif not widest:  # the widest arm spreads the block over all arms, like t
        share[fixed] = 1.0
    t_eff = float(max(t0, period))
    length = float(min(max_len, skip.cap, t_eff))
    for k in range(n):
        if share[k] > 0.0:
            length = min(length, (counts[k] + 1.0) / share[k])
        if in_uncertain[k] and sq_widths[k] > 0.0:
            rho = abs(preds[k] - tau) / (slack * math.sqrt(sq_widths[k]))
            if rho >= 1.0:
                return _refused(skip)
            room = 1.0 / (rho * rho) - 1.0 if rho > 0.0 else np.inf
            if share[k] > 0.0:
                length = min(length, 0.8 * (counts[k] + 1.0) * room / share[k])
            else:
                length = min(length, 0.8 * t_eff * room)
    n_periods = int(length) // period
    if n_periods < 1:
        return _refused(skip)
    length_i = n_periods * period
    skip.tried += 1
    # design at t0, its Cholesky factor and L^{-1} x_a for every arm
    normal_equations(arms, counts, sums, reg, work_a, work_b)
    low = np.linalg.cholesky(work_a)
    solved = np.empty((d, n))
    _forward_solve_arms(low, r.arms_t, solved)
    for k in range(n):
        for i in range(d):
            zrows[k, i] = solved[i, k]
    if const.selection == LOOKAHEAD and not widest and not lookahead_keeps_target(zrows, fixed, length_i):
        return _failed(skip, t0, period, True)  # (nothing changed yet)
    for i in range(d):
        work_q[i] = 0.0
    # Per-arm bound for a few arms of U (h_c = A_{t0}^{-1} x_c, D_t = sum_s x_s x_s^T over the block):
    # x_c^T A_t^{-1} S_t = h_c^T S_t - h_c^T D_t A_t^{-1} S_t, so |x_c^T (phi_hat_t - phi_hat_{t0})| <=
    # |P_c(t)| + sqrt(Q_c(t)) F_t with P_c = sum_s G0[a_s, c] r_s and Q_c = sum_s G0[a_s, c]^2,
    # G0 = X A_{t0}^{-1} X^T (Cauchy-Schwarz in D_t, D_t <= A_t, A_t >= A_{t0}). Much tighter than
    # ||x_c||_{A_t^{-1}} F_t for short blocks, i.e. near an arm's exit.
    g0, tlist, tacc = sk.tracked.g0, sk.tracked.arms, sk.tracked.acc
    n_tracked = 0
    if sets.live[0].n_uncertain <= tlist.shape[0]:
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
    upos = live.upos
    tree = sk.widest.tree
    if widest:
        _widest_start(r, sk.widest)
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
        y = sampler.sample(st.arm_index[arm], start + s)
        counts[arm] += 1.0
        sums[arm] += y
        if widest:
            _widest_step(const, sk.widest, arm, y, t0 + s + 1, s + 1 < length_i)
        res = y - preds[arm]
        for k in range(n_tracked):
            g = g0[arm, k]
            pk = tacc[0, k] + g * res
            tacc[0, k] = pk
            if abs(pk) > tacc[1, k]:
                tacc[1, k] = abs(pk)
            tacc[2, k] += g * g
        p = part[arm] + res
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
    _forward_solve_arms(low, r.arms_t, solved)
    k = 0
    for i in range(n):
        if not in_uncertain[i]:
            continue
        w2 = 0.0
        for m in range(d):
            w2 += solved[m, i] * solved[m, i]
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
        skip.cap = max(float(period), 0.5 * length_i)
        return _failed(skip, t0, period, length_i <= period)
    skip.cap = max(skip.cap, 2.0 * length_i)
    skip.wait = 0
    skip.f_last = f_eff
    skip.skipped += length_i
    live.t = t0 + length_i
    if m_cand > 0:
        live.upos = upos + length_i
    arm_state_refresh(const.numerics, r, reg)
    certify(st, live.t)
    return length_i
