"""The compiled numerical core of G-ACOL and its sequential variants (Lindner et al. 2022, Algorithm 2).

Everything a run changes is one named record, :class:`GACOLState`: the ridge arrays
(:class:`~safebandits.estimators.ridge.ArmRidgeArrays`), the sets ``U``, ``F``, ``r``
(:class:`~safebandits.algorithms.pure_exploration._cbai.CBAIState`), the bounds, the learner's uniform
buffer and the counters ``t`` and the buffer position (a :data:`GACOL_LIVE` record); the constants of
the run are named in :class:`GACOLConstants`. Two pure kernels act on it in place and read like the
pseudocode (the line numbers are those of Algorithm 2 as written in ``docs/decisions/acol.md``):

* :func:`select_arm` -- line 4 and the rules of Table D.2: which arm to pull (into ``b.chosen[0]`` of
  the driver's block ``b``, whose state is ``b.st``);
* :func:`tell_sample` -- lines 5-8: add the observation to the ridge estimate, ``t <- t + 1``
  (:func:`observe`), recompute the bounds ``l_t, u_t`` of ``U`` with ``beta_t`` and update ``F``,
  ``r``, ``U`` (:func:`certify`).

The learner (:class:`~safebandits.algorithms.pure_exploration.g_acol.GACOL`) adapts ask / tell to
them; its compiled simulation loop and the certified skips
(:mod:`~safebandits.algorithms.pure_exploration._skips`) call the same kernels.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba.extending import overload

from safebandits.algorithms.pure_exploration._cbai import NO_ARM, CBAIState, cbai_update_step
from safebandits.estimators.confidence import adaptive_width_inline
from safebandits.estimators.ridge import (
    DIAGONAL,
    GRAM,
    ArmRidgeArrays,
    arm_state_refresh,
    arm_state_step,
    arm_state_update,
    numerics_impl,
    transposed_matvec,
)
from safebandits.types import FloatArray

__all__ = [
    "GACOL_LIVE",
    "GACOLConstants",
    "GACOLState",
    "certify",
    "current_width",
    "observe",
    "refresh_due",
    "select_arm",
    "tell_refreshing",
    "tell_sample",
]

# selection rule codes (positions in GACOLConfig.selection's choices)
LOOKAHEAD, MOST_UNCERTAIN, UNIFORM, MAX_REWARD = 0, 1, 2, 3
# candidate set codes (positions in GACOLConfig.select_from's choices)
FROM_UNCERTAIN, FROM_ALL, FROM_FEASIBLE = 0, 1, 2


class GACOLConstants(NamedTuple):
    """Fixed settings of one G-ACOL run (read by the compiled kernels)."""

    delta: float  #: error probability of Proposition 3's width
    reg: float  #: ridge regulariser ``lambda``
    noise_bound: float  #: ``R``
    arm_norm_bound: float  #: ``L``
    param_norm_bound: float  #: ``S``
    tuned: bool  #: ``width="tuned"``: ``beta_t`` is the constant ``tuned_width``
    tuned_width: float  #: the tuned constant
    refresh_every: int  #: exact ridge recompute every this many samples (0: never)
    selection: int  #: :data:`LOOKAHEAD`, :data:`MOST_UNCERTAIN`, :data:`UNIFORM` or :data:`MAX_REWARD`
    select_from: int  #: :data:`FROM_UNCERTAIN`, :data:`FROM_ALL` or :data:`FROM_FEASIBLE`
    numerics: int  #: code of the ridge numerics (:data:`~safebandits.estimators.ridge.NUMERICS`)


#: The counters that change: samples so far ``t`` and the position ``upos`` of the next unused uniform
#: in the learner's buffer. One numpy record, written in place by the kernels and by the learner.
GACOL_LIVE = np.dtype([("t", np.int64), ("upos", np.int64)])


class GACOLState(NamedTuple):
    """Everything the compiled G-ACOL kernels read and write, by name (arrays updated in place, never
    rebound).

    ``ridge`` the estimate of ``phi`` with every arm's ``||x||^2_{A^{-1}}`` and ``x^T phi_hat``;
    ``sets`` ``U``, ``F``, ``r`` and the known rewards and threshold; ``lower`` / ``upper`` the bounds
    ``l_t, u_t`` of the arms (read for the arms of ``U`` only); ``uniforms`` the learner's uniform buffer
    (read at ``live.upos``; empty for the deterministic rules); ``work_v`` (d,) and ``work_g`` (n,)
    work vectors of the look-ahead; ``const`` :class:`GACOLConstants`; ``live`` a one-element array of
    dtype :data:`GACOL_LIVE` whose record ``live[0]`` the kernels read and write; ``arm_index`` the arm
    of ``X`` each arm of the state stands for (the identity, or the first of each group of repeated arms
    when the learner runs on the distinct arms, :mod:`~safebandits.algorithms.pure_exploration._distinct`):
    what the environment plays.
    """

    ridge: ArmRidgeArrays
    sets: CBAIState
    lower: FloatArray
    upper: FloatArray
    uniforms: FloatArray
    work_v: FloatArray
    work_g: FloatArray
    const: GACOLConstants
    live: np.ndarray
    arm_index: np.ndarray


@numba.njit(cache=True)
def needs_uniform(const):
    """Whether the rule can draw learner uniforms (uniform rules; Max Rew-F while ``F`` is empty)."""
    return const.selection == UNIFORM or const.select_from == FROM_FEASIBLE


@numba.njit(cache=True)
def is_candidate(i, select_from, in_uncertain, in_feasible):
    if select_from == FROM_UNCERTAIN:
        return in_uncertain[i]
    if select_from == FROM_FEASIBLE:
        return in_feasible[i]
    return True


@numba.njit(cache=True)
def effective_rule(const, f_empty):
    """``(selection, select_from)`` in force: Max Rew-F's fallback is a uniform arm of ``X`` while ``F``
    is empty (``f_empty``).

    The helpers of the per-sample path take scalars, arrays or records passed by reference (the driver's
    block, :func:`~safebandits._numba.by_reference`: one reference count per record), and each branch
    reads only the arrays it uses: numba keeps a reference count per array bound from the state, and
    where it cannot prune them (a record passed to an inlined helper, arrays bound to locals across
    early returns) they cost more than the whole selection on small instances (measured: 0.06 us -> 0.48
    us per selection on 11 arms, back to 0.10 us with this layout). The per-sample scans
    (:func:`best_candidate_of`, :func:`lookahead_of`, :func:`uniform_candidate_of`) take the driver's
    block ``b`` and call nothing: numba prunes the counts of the arrays such a function binds, but not
    of a reference kept across a call (its error exit skips the decrement), so their caller
    (:func:`select_arm`) holds nothing but ``b``. The
    small helpers (this one, :func:`needs_uniform`, :func:`is_candidate`, :func:`best_candidate`,
    :func:`_lookahead_pick`) are compiled once as functions of their own, not inlined by numba (LLVM
    inlines them where it pays): numba's inlining copies and re-types a callee's code at every call
    site, ~2.5 s of the family's cold compile (docs/decisions/engine.md).
    """
    if const.select_from == FROM_FEASIBLE and f_empty:
        return UNIFORM, FROM_ALL
    return const.selection, const.select_from


@numba.njit(cache=True)
def best_candidate(scores, select_from, in_uncertain, in_feasible):
    """Candidate with the highest score, the lowest index on ties; :data:`NO_ARM` if there is none."""
    best = NO_ARM
    best_val = -np.inf
    for i in range(scores.shape[0]):
        if is_candidate(i, select_from, in_uncertain, in_feasible) and (
            best == NO_ARM or scores[i] > best_val
        ):
            best = i
            best_val = scores[i]
    return best


@numba.njit(cache=True)
def best_candidate_of(b, by_reward, select_from):
    """:func:`best_candidate` of the rewards (``by_reward``) or of ``||x||^2_{A^{-1}}`` over the
    candidates of the state ``b.st``: one record in, nothing called (its arrays' counts pruned).

    The widest arm of all of ``X`` (Greedy Max Var) in two branch-free passes: the highest width over
    four running maxima (a maximum rounds nothing: any order gives the same value), then the first arm
    equal to it (``==``), which is the arm of the scan ``if best == NO_ARM or s > best_val`` (its first
    arm when all are ``-inf``; a NaN width, never met, falls back to the scan). The scan's dependency
    through every comparison was 20% of a Greedy Max Var sample on 70 arms (issue 43). The other rules
    (few candidates, or skipped) keep the scan."""
    st = b.st
    rewards, widths, in_uncertain, in_feasible = (
        st.sets.rewards,
        st.ridge.sq_widths,
        st.sets.in_uncertain,
        st.sets.in_feasible,
    )  # (bound once and read in place: an array chosen by a branch, or passed to a helper, is counted)
    n = rewards.shape[0]
    scan = by_reward or select_from != FROM_ALL
    top = np.nan
    if not scan:
        m0 = m1 = m2 = m3 = -np.inf
        for i in range(0, n - n % 4, 4):
            v0, v1, v2, v3 = widths[i], widths[i + 1], widths[i + 2], widths[i + 3]
            m0 = v0 if v0 > m0 else m0
            m1 = v1 if v1 > m1 else m1
            m2 = v2 if v2 > m2 else m2
            m3 = v3 if v3 > m3 else m3
        for i in range(n - n % 4, n):
            m0 = widths[i] if widths[i] > m0 else m0
        m0 = m1 if m1 > m0 else m0
        m2 = m3 if m3 > m2 else m2
        top = m2 if m2 > m0 else m0
        for i in range(n):
            if widths[i] == top:
                return i
            if widths[i] != widths[i]:  # (NaN before the widest: the scan decides)
                scan = True
                break
    best = NO_ARM
    best_val = -np.inf
    for i in range(n if scan else 0):
        if select_from == FROM_UNCERTAIN:
            candidate = in_uncertain[i]
        elif select_from == FROM_FEASIBLE:
            candidate = in_feasible[i]
        else:
            candidate = True
        if candidate:
            score = rewards[i] if by_reward else widths[i]
            if best == NO_ARM or score > best_val:
                best = i
                best_val = score
    return best


@numba.njit(cache=True)
def uniform_candidate_of(b, select_from):
    """:func:`_uniform_candidate` of the state ``b.st``: one record in, nothing called."""
    return _uniform_candidate(b.st, select_from)


@numba.njit(cache=True, inline="always")
def _uniform_candidate(st, select_from):
    """A uniform random candidate, by one learner uniform (advancing ``live.upos``); :data:`NO_ARM` if
    none. Over all of ``X`` (Adaptive Uniform) the ``k``-th candidate is arm ``k``: no scan (the same
    arm, ``O(1)`` instead of two passes over ``X``)."""
    in_uncertain, in_feasible = st.sets.in_uncertain, st.sets.in_feasible
    n = in_uncertain.shape[0]
    everyone = select_from == FROM_ALL
    m = n
    if not everyone:
        m = 0
        for i in range(n):
            if is_candidate(i, select_from, in_uncertain, in_feasible):
                m += 1
    live = st.live[0]
    u = st.uniforms[live.upos]
    live.upos += 1
    k = int(u * m)
    if k >= m:
        k = m - 1
    if everyone:
        return k if k >= 0 else NO_ARM
    for i in range(n):
        if is_candidate(i, select_from, in_uncertain, in_feasible):
            if k == 0:
                return i
            k -= 1
    return NO_ARM


def lookahead(ridge, st, best):
    """``argmin_a ||y||^2_{(A + a a^T)^{-1}}`` over all arms for the target ``y = x_best``, the lowest
    index on ties (``ridge`` is ``st.ridge``: its class picks the numerics when compiled).

    ``||y||^2_{(A + a a^T)^{-1}} = ||y||^2 - (y^T A^{-1} a)^2 / (1 + ||a||^2)`` with ``g_k = y^T A^{-1}
    x_k``: row ``best`` of ``G = X A^{-1} X^T`` (Gram numerics), or ``X (A^{-1} y)`` (primal: ``A^{-1}``
    kept; diagonal: ``A`` diagonal).
    """
    return _lookahead_entry(ridge, st, best)


@numba.njit(cache=True, inline="always")
def _lookahead_gram(ridge, st, best):
    return _lookahead_gram_pick(st, best)


@numba.njit(cache=True, inline="always")
def _lookahead_gram_pick(st, best):
    """:func:`_lookahead_pick` on row ``best`` of ``G`` (Gram numerics), read from ``st.ridge`` (inlined
    into :func:`lookahead_of`, which calls nothing)."""
    gram, sq_widths = st.ridge.gram, st.ridge.sq_widths
    target = sq_widths[best]
    pick = 0
    pick_val = np.inf
    for k in range(sq_widths.shape[0]):
        g = gram[best, k]
        val = target - g * g / (1.0 + sq_widths[k])
        if val < pick_val:
            pick = k
            pick_val = val
    return pick


@numba.njit(cache=True, inline="always")
def _lookahead_solve(ridge, st, best):
    """``g = X (A^{-1} y)`` into ``st.work_g`` (``A^{-1} y`` into ``st.work_v``), then the pick."""
    numerics, work_g = st.const.numerics, st.work_g
    d = ridge.arms.shape[1]
    arms, arms_t, a_inv, work_v = ridge.arms, ridge.arms_t, ridge.a_inv, st.work_v
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
    transposed_matvec(arms_t, work_v, work_g)  # g = X v
    return _lookahead_pick(work_g, ridge.sq_widths, best)


def _lookahead_runtime(ridge, st, best):
    if st.const.numerics == GRAM:
        return _lookahead_gram(ridge, st, best)
    return _lookahead_solve(ridge, st, best)


@overload(lookahead, inline="always")
def _overload_lookahead(ridge, st, best):
    def gram(ridge, st, best):
        return _lookahead_gram(ridge, st, best)

    def solve(ridge, st, best):
        return _lookahead_solve(ridge, st, best)

    return numerics_impl(ridge, (solve, gram, solve), _lookahead_runtime)


@numba.njit(cache=True)
def _lookahead_entry(ridge, st, best):
    return lookahead(ridge, st, best)


@numba.njit(cache=True)
def lookahead_of(b, best):
    """:func:`lookahead` on the state ``b.st``: one record in, nothing called (Gram numerics)."""
    st = b.st
    return lookahead(st.ridge, st, best)


@numba.njit(cache=True)
def _lookahead_pick(g, sq_widths, best):
    """``argmin_k ||y||^2 - g_k^2 / (1 + ||x_k||^2)`` for ``y = x_best``, the lowest index on ties."""
    target = sq_widths[best]
    pick = 0
    pick_val = np.inf
    for k in range(sq_widths.shape[0]):
        val = target - g[k] * g[k] / (1.0 + sq_widths[k])
        if val < pick_val:
            pick = k
            pick_val = val
    return pick


@numba.njit(cache=True, inline="always")
def select_arm(b):
    """Arm to pull next (Algorithm 2, line 4, and the rules of Table D.2) for the state ``b.st``, into
    ``b.chosen[0]``; ``O(n d + d^2)`` with primal numerics (look-ahead from ``A^{-1}``), ``O(n)`` with
    Gram numerics (a row of ``G``).

    Consumes one learner uniform (advancing ``live.upos``) exactly when the pick is uniform random.
    Ties go to the lowest index. Each branch reads only the arrays it needs (see :func:`effective_rule`);
    the scans are functions of ``b`` (one reference count in the caller: that of ``b``).
    """
    selection, select_from = effective_rule(b.st.const, b.st.sets.live[0].best_arm == NO_ARM)
    if selection == UNIFORM:
        arm = uniform_candidate_of(b, select_from)
    else:
        # y = argmax over the candidates of the reward (Max Rew) or of ||x||^2_{A^{-1}} (line 4)
        arm = best_candidate_of(b, selection == MAX_REWARD, select_from)
        if selection == LOOKAHEAD and select_from != FROM_ALL:
            # (Over all of X the look-ahead picks the target itself: (y^T A^{-1} a)^2 / (1 + ||a||^2) <=
            # ||y||^2 ||a||^2 / (1 + ||a||^2) <= ||y||^4 / (1 + ||y||^2) by Cauchy-Schwarz and
            # ||a|| <= ||y|| (norms in A^{-1}), with equality at a = y; so it is not computed there.)
            arm = lookahead_of(b, arm)  # the one-step look-ahead of G-ACOL
    b.chosen[0] = arm


@numba.njit(cache=True, inline="always")
def current_width(const, t, dim):
    """``beta_t``: Proposition 3 with ``t`` samples, or the tuned constant."""
    if const.tuned:
        return const.tuned_width
    return adaptive_width_inline(
        float(t), float(dim), const.delta, const.reg, const.noise_bound, const.arm_norm_bound,
        const.param_norm_bound,
    )  # fmt: skip


@numba.njit(cache=True, inline="always")
def certify(st, t):
    """Bounds ``l_t, u_t = x^T phi_hat -+ beta_t ||x||_{A^{-1}}`` of every arm of ``U`` after sample
    ``t`` (line 7), then the update of ``F``, ``r``, ``U`` (line 8,
    :func:`~safebandits.algorithms.pure_exploration._cbai.cbai_update`)."""
    bounds_and_sets(current_width(st.const, t, st.ridge.arms.shape[1]), st)


@numba.njit(cache=True, inline="always")
def bounds_and_sets(beta, st):
    """``l, u = x^T phi_hat -+ beta ||x||_{A^{-1}}`` (line 7; read for the arms of ``U``) into
    ``st.lower`` and ``st.upper``, then the update of ``F``, ``r``, ``U`` (``cbai_update_step`` on
    ``st.sets``, ``st.lower``, ``st.upper``): one record in, nothing called (one call per sample instead
    of two; the counts of the arrays it binds are pruned); the same operations in the same order."""
    sq_widths, preds, lower, upper = st.ridge.sq_widths, st.ridge.preds, st.lower, st.upper
    # Every arm, without a branch: the loop vectorises (the square roots four at a time; only the bounds
    # of U are read). ``beta sqrt(0) = 0``: the bits of ``h = beta sqrt(s) if s > 0 else 0``.
    for i in range(sq_widths.shape[0]):
        s = sq_widths[i]
        h = beta * math.sqrt(s if s > 0.0 else 0.0)
        lower[i] = preds[i] - h
        upper[i] = preds[i] + h
    cbai_update_step(st.sets, st.lower, st.upper)


@numba.njit(cache=True, inline="always")
def refresh_due(const, t):
    """Whether the ridge arrays are recomputed exactly (against rounding) after sample ``t``."""
    return const.refresh_every > 0 and t % const.refresh_every == 0


@numba.njit(cache=True, inline="always")
def observe(st, arm, y):
    """Line 6: ``A <- A + x x^T`` and ``phi_hat`` with observation ``y`` of ``arm`` (the numerics' step
    inlined), then ``t <- t + 1``; the new ``t``."""
    live = st.live[0]
    arm_state_step(st.const.numerics, st.ridge, arm, y)
    live.t += 1
    return live.t


@numba.njit(cache=True, inline="always")
def tell_sample(st, arm, y):
    """Add observation ``y`` of ``arm`` (Algorithm 2, lines 5-8). The compiled per-sample path runs these
    steps split by whether a refresh follows (``g_acol.gacol_update``, :func:`tell_refreshing`)."""
    t = observe(st, arm, y)  # line 6
    const = st.const
    if refresh_due(const, t):  # exact recompute against rounding
        arm_state_refresh(const.numerics, st.ridge, const.reg)
    certify(st, t)  # lines 7-8


@numba.njit(cache=True)
def tell_refreshing(st, arm, y):
    """:func:`tell_sample` of a sample after which the ridge arrays are recomputed, compiled apart: the
    compiled per-sample path (:func:`~safebandits.algorithms.pure_exploration.g_acol.gacol_update`)
    then calls nothing on the other samples. Its steps are compiled functions of their own (the same
    operations; not a second inlined copy of the per-sample code: a shorter cold compile)."""
    const, live = st.const, st.live[0]
    arm_state_update(const.numerics, st.ridge, arm, y)  # line 6
    live.t += 1
    arm_state_refresh(const.numerics, st.ridge, const.reg)  # exact recompute against rounding
    certify_apart(st, live.t)  # lines 7-8


@numba.njit(cache=True)
def certify_apart(st, t):
    """:func:`certify`, compiled as a function of its own."""
    certify(st, t)
