"""The compiled kernels of the contextual conservative learners (:mod:`~safebandits.algorithms.regret.
clucb`: LinUCB, CLUCB with known or estimated baseline rewards; :mod:`~safebandits.algorithms.regret.
clucb2`: CLUCB2 and its checkpoint variant): the typed state, a round's steps (the numbering of the
:mod:`~safebandits.algorithms.regret.clucb` docstring), the ask and tell entry points and the compiled
rounds of a simulation (:func:`lin_block`; docs/decisions/conservative.md, "Kernels and speed" and "The
end-to-end compiled path")."""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from safebandits.estimators.confidence import adaptive_width_inline
from safebandits.estimators.ridge import sherman_morrison_n
from safebandits.problems.noise import observe_code

__all__ = [
    "LIN_LIVE",
    "MAX_UNROLLED",
    "NO_RECORD",
    "ContextBlock",
    "LinConstants",
    "LinState",
    "clucb_choose_entry",
    "lin_add_entry",
    "lin_block",
    "lin_choice",
    "lin_dims",
]

#: The scalars that change during a run: rounds ``t``, ``|S|`` (``n_opt``), the samples in the ridge
#: estimate (``n_fit``: ``|S|``, or ``t`` when every round is learnt from), the banked baseline reward
#: ``sum_{S^c} r_b``, the baseline's total ``sum_{s<=t} r_b``, the last budget ``xi_t``, the last optimistic
#: row ``a'_t``, whether the last choice was a baseline round, and the fallback rounds.
LIN_LIVE = np.dtype(
    [("t", np.int64), ("n_opt", np.int64), ("n_fit", np.int64), ("banked", np.float64),
     ("baseline_total", np.float64), ("budget", np.float64), ("leader", np.int64), ("fell_back", np.int64),
     ("fallbacks", np.int64)]
)  # fmt: skip


class LinConstants(NamedTuple):
    """Fixed settings of one run."""

    alpha: float  #: the tolerance
    delta: float  #: the confidence level of ``C_t``
    reg: float  #: ``lambda`` of ``V_t = lambda I + ...``
    noise_bound: float  #: ``R``
    feature_bound: float  #: ``L``
    param_bound: float  #: ``S``
    dim: float  #: ``d`` (a float: the width's formula)
    conservative: bool  #: CLUCB (steps 3-5); ``False``: LinUCB
    known_rewards: bool  #: the budget books the told ``r_{b_t}``; ``False``: estimated (``z`` holds them)
    learn_all: bool  #: the ridge learns from every round (``False``: the rounds of ``S`` only)
    constrained: bool  #: CLUCB2: the best admissible row (``False``: ``a'_t`` or the baseline)
    checkpoint: int  #: ``tau``: the constraint is needed at rounds ``tau, 2 tau, ...`` (1: every round)
    floor: float  #: ``r_l``, the declared floor of the baseline's mean reward


class LinState(NamedTuple):
    """Everything the kernels read and write: ``inv`` ``V_t^{-1}`` (d, d), ``xy`` ``sum y_s x_s``,
    ``theta`` ``theta_hat_t``, ``z`` the played features the budget sums (``z_{t-1}``), work vectors ``u``,
    ``w`` (d,), ``scores`` the round's optimistic values (K,), the constants and the live record."""

    inv: np.ndarray
    xy: np.ndarray
    theta: np.ndarray
    z: np.ndarray
    u: np.ndarray
    w: np.ndarray
    scores: np.ndarray
    const: LinConstants
    live: np.ndarray


# The kernels below are inlined (``inline="always"``) into the three compiled entry points -- ask
# (:func:`clucb_choose_entry`), tell (:func:`lin_add_entry`) and a simulation's block of rounds
# (:func:`lin_block`): one compiled function each, no compiled call between the steps of a round. Each
# kernel reads the state's arrays into locals and indexes the context's rows in place (no views). ``d``,
# the number of coordinates, is passed down as an integer: ask and tell take it from the context (one
# compiled copy for every ``d``); :func:`lin_block` from ``dims`` (:func:`lin_dims`), a compile-time
# constant of each of its copies for ``d <= MAX_UNROLLED`` (the compiler unrolls the loops over the
# coordinates) and the arrays' ``d`` beyond; and CLUCB2's choice or CLUCB's a constant too
# (:func:`lin_choice`; the other steps are read from ``const`` at run time): two copies per ``d`` a
# process simulates, each compiled when first used (about 2.5 s; cached on disk). The same operations in
# the same order for every ``d`` and every copy (a variant's steps alone as constants, or ``d`` alone, were
# slower: 0.16-0.20 us per round against 0.14-0.15).

#: :func:`lin_block` has a compiled copy of its own for each ``d`` up to this (:func:`lin_dims`).
MAX_UNROLLED = 8


def lin_dims(d: int) -> tuple[int, ...]:
    """``d`` zeros for ``d <= MAX_UNROLLED`` (typed by its length: ``d`` a compile-time constant of the
    copy of :func:`lin_block` it selects), else ``()`` (the generic copy: ``d`` read from the arrays)."""
    return (0,) * d if d <= MAX_UNROLLED else ()


def lin_choice(const: LinConstants) -> tuple[int, ...]:
    """Which choice the learner makes after the optimistic row, as a tuple typed by its length (a
    compile-time constant of the copy of :func:`lin_block` it selects): ``(0, 0)`` CLUCB2's best admissible
    row (``const.constrained``), ``(0,)`` CLUCB's row or the baseline's (LinUCB too)."""
    return (0, 0) if const.constrained else (0,)


@numba.njit(cache=True, inline="always")
def is_constrained(choice, value):
    """``const.constrained`` as :func:`lin_choice` made it a constant of the copy (``value``, read at run
    time, for ``choice = ()``)."""
    return len(choice) == 2 if len(choice) > 0 else value


@numba.njit(cache=True, inline="always")
def lin_beta(st):
    """Step 1: ``beta_t`` with ``n`` the samples in the ridge estimate."""
    c = st.const
    n = float(st.live[0].n_fit)
    return adaptive_width_inline(n, c.dim, c.delta, c.reg, c.noise_bound, c.feature_bound, c.param_bound)


@numba.njit(cache=True, inline="always")
def row_norm(inv, xs, r, d):
    """``||x||_{V^{-1}} = sqrt(x^T V^{-1} x)`` of the row ``x = xs[r]``."""
    s = 0.0
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += inv[i, j] * xs[r, j]
        s += xs[r, i] * acc
    return math.sqrt(max(s, 0.0))


@numba.njit(cache=True, inline="always")
def vec_norm(inv, x, d):
    """``||x||_{V^{-1}}`` of a vector (the operations of :func:`row_norm`)."""
    s = 0.0
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += inv[i, j] * x[j]
        s += x[i] * acc
    return math.sqrt(max(s, 0.0))


@numba.njit(cache=True, inline="always")
def optimistic_row(st, arms, beta, d):
    """Step 2: ``argmax_a <theta_hat, x_a> + beta ||x_a||_{V^{-1}}`` (the lowest row on ties); each row's
    value is kept in ``scores``."""
    inv = st.inv
    theta = st.theta
    scores = st.scores
    best = 0
    best_v = -math.inf
    for a in range(arms.shape[0]):
        v = beta * row_norm(inv, arms, a, d)
        for i in range(d):
            v += theta[i] * arms[a, i]
        scores[a] = v
        if v > best_v:
            best = a
            best_v = v
    return best


@numba.njit(cache=True, inline="always")
def pessimistic_margin(st, arms, a, b, baseline_reward, beta, d):
    """Steps 3-4: ``xi_t(a)``, the smallest margin over ``C_t`` after playing row ``a``. Known baseline
    rewards: ``min_theta <theta, z + x_a> + sum_{S^c} r_b - (1 - alpha) sum_{s<=t} r_b``; unknown: ``min_theta
    <theta, z + x_a - (1 - alpha) x_b>`` (``z`` then sums ``x_a - (1 - alpha) x_b`` over ``S`` and ``alpha
    x_b`` over ``S^c``). ``min_theta <theta, w> = <theta_hat, w> - beta ||w||_{V^{-1}}``."""
    c = st.const
    w = st.w
    z = st.z
    theta = st.theta
    known = c.known_rewards
    keep = 1.0 - c.alpha
    v = 0.0
    for i in range(d):
        w[i] = z[i] + arms[a, i] if known else z[i] + arms[a, i] - keep * arms[b, i]
        v += theta[i] * w[i]
    v = v - beta * vec_norm(st.inv, w, d)
    if not known:
        return v
    live = st.live[0]
    need = keep * (live.baseline_total + baseline_reward)  # (1 - alpha) sum_{s<=t} r_b
    return v + live.banked - need


@numba.njit(cache=True, inline="always")
def checkpoint_slack(st):
    """``alpha r_l (t_k - t)``: what the rounds left before the next checkpoint ``t_k`` (from this round
    ``t``) add to the margin at least, played with the baseline (0 when every round is verified)."""
    c = st.const
    t = st.live[0].t + 1
    tk = ((t + c.checkpoint - 1) // c.checkpoint) * c.checkpoint
    return c.alpha * c.floor * float(tk - t)


@numba.njit(cache=True, inline="always")
def admissible_row(st, arms, b, baseline_reward, beta, d):
    """CLUCB2: the row of largest optimistic value among the admissible ones -- those whose pessimistic
    margin at the next verified round, ``xi_t(a) + alpha r_l (t_k - t)``, is non-negative -- and the
    baseline's row, always admissible (the lowest row on ties); records its budget (NaN: the baseline)."""
    scores = st.scores
    slack = checkpoint_slack(st)
    best = b
    best_v = scores[b]
    budget = math.nan
    for a in range(arms.shape[0]):
        v = scores[a]
        if a == b or v < best_v or (v == best_v and a > best):
            continue
        xi = pessimistic_margin(st, arms, a, b, baseline_reward, beta, d) + slack
        if xi >= 0.0:
            best = a
            best_v = v
            budget = xi
    st.live[0].budget = budget
    return best


@numba.njit(cache=True, inline="always")
def clucb_row(st, arms, j, b, baseline_reward, beta, d):
    """CLUCB's steps 3-5 after the optimistic row ``j``: ``j`` if ``xi_t >= 0``, else the baseline's row
    ``b``; records ``xi_t`` and the baseline round."""
    live = st.live[0]
    xi = pessimistic_margin(st, arms, j, b, baseline_reward, beta, d)
    live.budget = xi
    if xi >= 0.0:
        return j
    live.fell_back = 1
    live.fallbacks += 1
    return b


@numba.njit(cache=True, inline="always")
def clucb2_row(st, arms, j, b, baseline_reward, beta, d):
    """CLUCB2's choice after the optimistic row ``j``: :func:`admissible_row`; records the baseline
    round (a fallback when ``j`` was another row)."""
    live = st.live[0]
    a = admissible_row(st, arms, b, baseline_reward, beta, d)
    if a == b:
        live.fell_back = 1
        live.fallbacks += int(j != b)
    return a


@numba.njit(cache=True, inline="always")
def ridge_add(st, arms, a, reward, d):
    """``(x, y)``, ``x = arms[a]``, into the ridge statistics: ``V^{-1}`` by Sherman-Morrison,
    ``theta_hat = V^{-1} sum y x``."""
    inv = st.inv
    xy = st.xy
    theta = st.theta
    sherman_morrison_n(inv, arms[a], st.u, d)
    for i in range(d):
        xy[i] += reward * arms[a, i]
    for i in range(d):
        acc = 0.0
        for j in range(d):
            acc += inv[i, j] * xy[j]
        theta[i] = acc
    st.live[0].n_fit += 1


@numba.njit(cache=True, inline="always")
def lin_book(st, arms, a, b, baseline_reward, d):
    """The round's outcome apart from the ridge (row ``a`` played, ``b`` the baseline's): a baseline round
    banks ``r_{b_t}`` (or, unknown, adds ``alpha x_b`` to ``z``); a round of ``S`` adds ``x_a`` (unknown:
    ``x_a - (1 - alpha) x_b``) to ``z``."""
    c = st.const
    live = st.live[0]
    z = st.z
    known = c.known_rewards
    live.t += 1
    live.baseline_total += baseline_reward
    if live.fell_back == 1:
        live.banked += baseline_reward
        if not known:
            for i in range(d):
                z[i] += c.alpha * arms[b, i]
        return
    keep = 1.0 - c.alpha
    for i in range(d):
        z[i] += arms[a, i] if known else arms[a, i] - keep * arms[b, i]
    live.n_opt += 1


# A round's steps, in the ask and tell entry points and in lin_block alike (the same calls in the same
# order; written out in each rather than in one inlined function of them: numba copies an inlined
# function's whole body with every call it inlines, and the compile time of each compiled copy grew by a
# quarter). Choosing: beta_t, the optimistic row j (the leader), then CLUCB's or CLUCB2's row (LinUCB:
# j). Learning: lin_book, then the ridge takes (x_a, y) in the rounds of S, or in every round (learn_all;
# the ridge's statistics apart from z and the banked reward: any order between them).


@numba.njit(cache=True)
def clucb_choose_entry(st, arms, baseline, baseline_reward):
    """One round's choice (steps 1-5) called from Python (ask; ``d`` the context's): the row to play;
    records ``xi_t``, ``a'_t`` and the baseline round."""
    c = st.const
    live = st.live[0]
    d = arms.shape[1]
    beta = lin_beta(st)
    j = optimistic_row(st, arms, beta, d)
    live.leader = j
    live.fell_back = 0
    if not c.conservative:
        return j
    if c.constrained:
        return clucb2_row(st, arms, j, baseline, baseline_reward, beta, d)
    return clucb_row(st, arms, j, baseline, baseline_reward, beta, d)


@numba.njit(cache=True)
def lin_add_entry(st, arms, a, b, reward, baseline_reward):
    """The round's outcome called from Python (tell; ``d`` the context's)."""
    d = arms.shape[1]
    lin_book(st, arms, a, b, baseline_reward, d)
    if st.const.learn_all or st.live[0].fell_back == 0:
        ridge_add(st, arms, a, reward, d)


class ContextBlock(NamedTuple):
    """``n`` rounds of a simulation: each round's actions (n, K, d), the baseline's action (n,) and its
    reward (n,), the actions' true means (n, K) and the standard noise variates (n,) -- ``arms`` and
    ``means`` with one row: a fixed action set, every round's -- and the record :func:`lin_block` fills
    (n,) each, or empty: the true means of the played row, of the baseline's and of the best row."""

    arms: np.ndarray
    baselines: np.ndarray
    baseline_rewards: np.ndarray
    means: np.ndarray
    variates: np.ndarray
    played: np.ndarray
    baseline_means: np.ndarray
    best: np.ndarray


@numba.njit(cache=True)
def lin_block(st, block, code, sigma, out, dims, choice):
    """Rounds ``i = 0 .. n - 1`` of a simulation (the compiled path; ``block`` a :class:`ContextBlock`):
    the choice of :func:`clucb_choose_entry` on context ``arms[i]``, the reward ``observe_code(code,
    sigma, means[i, a], variates[i])``, the outcome of :func:`lin_add_entry`; the round's true means into
    the record (a non-empty one). ``dims``: :func:`lin_dims` of ``d``; ``choice``: :func:`lin_choice`."""
    arms = block.arms
    means = block.means
    baselines = block.baselines
    rewards = block.baseline_rewards
    variates = block.variates
    played = block.played
    base = block.baseline_means
    best = block.best
    c = st.const
    live = st.live[0]
    d = len(dims) if len(dims) > 0 else arms.shape[2]
    fixed = arms.shape[0] == 1
    record = played.shape[0] > 0
    for i in range(baselines.shape[0]):
        k = 0 if fixed else i
        x = arms[k]
        b = baselines[i]
        rb = rewards[i]
        beta = lin_beta(st)
        j = optimistic_row(st, x, beta, d)
        live.leader = j
        live.fell_back = 0
        a = j
        if c.conservative:
            if is_constrained(choice, c.constrained):
                a = clucb2_row(st, x, j, b, rb, beta, d)
            else:
                a = clucb_row(st, x, j, b, rb, beta, d)
        out[i] = a
        y = observe_code(code, sigma, means[k, a], variates[i])
        lin_book(st, x, a, b, rb, d)
        if c.learn_all or live.fell_back == 0:
            ridge_add(st, x, a, y, d)
        if record:
            top = means[k, 0]
            for q in range(1, means.shape[1]):
                top = means[k, q] if means[k, q] > top else top
            played[i] = means[k, a]
            base[i] = means[k, b]
            best[i] = top


#: An empty record (:class:`ContextBlock`): the rows played only.
NO_RECORD = np.zeros(0)
