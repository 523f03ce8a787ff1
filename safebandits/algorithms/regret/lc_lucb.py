"""LC-LUCB (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 1) and the machinery it shares with Safe-LTS.

Per round (spec ``stagewise.md`` Sec. 2.2): with the estimators of
:mod:`safebandits.estimators.stagewise`,

* pessimistic feasible set ``A~f_t = {x in A_t : V~c_i(x) <= tau_i for all i}`` (eqs. 6-7, 23);
* play ``X_t = argmax_{x in A~f_t} V~r(x)`` (eqs. 8-9).

For a finite star-convex set ``A_t = union_i [x0, x_i]`` (Def. 13, ``action_set="star"``) the pessimistic
cost is affine along each ray, so the largest feasible point of ray ``i`` is ``x0 + a_i (x_i - x0)`` with
``a_i = min(1, min_j (tau_j - c0_j) / (V~c_j(x_i) - c0_j))`` over the constraints with ``V~c_j(x_i) >
tau_j`` (Lemma 14 in closed form); ``V~r`` is convex, so its maximum over the feasible part of the ray
is at ``x0`` or at that point, and ``X_t`` is the best of ``x0`` and the scaled vertices. For a finite
point set (``"points"``) the candidates are ``x0`` and the vertices with ``V~c <= tau``; the K-armed
``"simplex"`` is rejected (Remark 7: the per-round setting is unsolvable there).

Radii (``radii``): ``"theory"`` -- Thm. 10 widths with ``alpha_c = 1`` and
``alpha_r = 1 + 2 (1 - r0) / min_i (tau_i - c0_i)`` (Thm. 19, 24); ``"code"`` -- the authors' code
(spec 2.8): log-det radius with ``R = 2``, ``delta_t = 1 / (1 + t)``, the reward's noise part times
``1 / min(1, tau)``, ``S`` as told, ``alpha_r = alpha_c = 1``. ``alpha_r`` / ``alpha_c`` override either.

Unknown ``r0`` / ``c0`` (``info.safe_reward`` or ``info.safe_cost`` is ``None``; Remark 12, App. F.1):
the learner first plays ``x0`` under :class:`~safebandits.algorithms.regret.warm_start.SafeValueWarmStart`
(Algorithm 5), feeding every observation to its estimators. When ``c0`` is unknown, costs are then
estimated in all ``d`` directions (full estimator); when only ``r0`` is unknown the cost estimator stays
projected on the known ``c0``. ``alpha_c = 1``, ``alpha_r = 1 + 6 Delta_r_hat / Delta_c_hat`` (from the
warm start's estimated gaps, even where ``c0`` is known); ``x0`` stays a candidate even when it is not
pessimistically feasible.

The per-round work is two compiled kernels (:func:`select_action`,
:func:`~safebandits.estimators.stagewise.stagewise_update_table`); :meth:`StagewiseLinearLearner.simulate`
runs them on the shared compiled driver (:data:`lc_lucb_rounds`, :data:`safe_lts_rounds`: the kernels
:func:`lc_lucb_select` / :func:`safe_lts_select` and :func:`stagewise_update` on a
:class:`StagewiseBlock`) with the same trajectory as ask / tell. On LC-LUCB's
ask / tell path ``tell`` runs both in one compiled call (:func:`tell_then_select`: the update, then the
next round's selection) and the next ``ask`` returns that prepared decision; an ``ask`` with a context,
after ``cancel``, or after a change through the estimator's methods selects afresh, as before.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar, Literal, NamedTuple

import numba
import numpy as np

from safebandits._numba import bind_kernel, by_reference
from safebandits._validation import (
    check_array,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.algorithms._driver import make_driver
from safebandits.algorithms.assumptions import check_unit_means
from safebandits.algorithms.base import BaseLearner, CompiledRounds, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.warm_start import SafeValueWarmStart, alpha_from_estimates
from safebandits.estimators.stagewise import (
    BISECTION_STEPS,
    StagewiseEstimator,
    StagewiseState,
    VertexTable,
    confidence_radii,
    refresh_due,
    stagewise_refresh,
    stagewise_update_table,
    vertex_table,
)
from safebandits.exceptions import CannotStartError, ConfigError, Fix, ProtocolError
from safebandits.problems.stagewise import StagewiseInfo, checked_stagewise_info
from safebandits.records import ArmEstimates, Certificate, PlayedBlock, interval_estimates
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "LCLUCB",
    "NO_SAFE_ROW",
    "REFRESH_FIRST",
    "RNG_POSITIONS",
    "SAFE_ACTION",
    "LCLUCBConfig",
    "PackedRound",
    "RoundChoice",
    "StagewiseBlock",
    "StagewiseLinearLearner",
    "StagewiseRun",
    "ThompsonWork",
    "lc_lucb_rounds",
    "lc_lucb_select",
    "packed_reference",
    "safe_lts_rounds",
    "safe_lts_select",
    "select_action",
    "stagewise_block",
    "stagewise_update",
    "tell_then_select",
    "ts_sample",
]

#: Learner random numbers (Thompson normals, policy uniforms) drawn per refill.
RNG_BLOCK = 1024
_F64 = np.dtype(np.float64)
#: Positions in the learner's buffers of Thompson normals and policy uniforms (one numpy record, written in
#: place by the compiled loops and by ask / cancel).
RNG_POSITIONS = np.dtype([("normals", np.int64), ("uniforms", np.int64)])
#: :func:`tell_then_select`'s vertex index when the exact refresh fell due with the update: nothing was
#: selected (the caller refreshes, and the next ``ask`` selects).
REFRESH_FIRST = -2
#: The vertex index of ``x0``: :func:`select_action`'s answer when ``x0`` is chosen (row 0 of the vertex
#: table; vertex ``i`` is row ``i + 1``), and OPLB's ``sample_policy``'s.
SAFE_ACTION = -1
#: ``RoundChoice.safe_row`` (and OPLB's ``PolicySearch.safe_row``) when no vertex is ``x0``.
NO_SAFE_ROW = -1


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class StagewiseLinearConfig(LearnerConfig):
    """The fields every stage-wise linear learner shares (LC-LUCB, OPLB, Safe-LTS).

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Error probability (theory radii: ``delta / (1 + m)`` per confidence set; the warm start, if any,
        uses ``delta`` too).
    reg : float > 0, default 1.0
        Ridge regulariser ``lambda`` (the paper's value; the authors' code uses 0.1).
    radii : {"theory", "code"}, default "theory"
        See the module docstring.
    alpha_r, alpha_c : float > 0 or None, default None
        Radius scalings of eq. (5); ``None``: from ``radii`` (and the warm start).
    refresh_every : int >= 0, default 1000
        Exact Cholesky recompute of the inverses every this many rounds (0: never).
    safe_value_ucb : {"ucb", "known"}, default "ucb"
        Value of the candidate ``x0``: its generic UCB ``V~r(x0)`` (spec 2.2) or the known ``r0``
        (``r0_hat`` after a warm start).
    """

    delta: float = 0.05
    reg: float = 1.0
    radii: Literal["theory", "code"] = "theory"
    alpha_r: float | None = None
    alpha_c: float | None = None
    refresh_every: int = 1000
    safe_value_ucb: Literal["ucb", "known"] = "ucb"

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_positive(self.reg, "reg", owner=owner)
        check_literal_fields(self, owner=owner)
        if self.alpha_r is not None:
            check_positive(self.alpha_r, "alpha_r", owner=owner)
        if self.alpha_c is not None:
            check_positive(self.alpha_c, "alpha_c", owner=owner)
        check_int(self.refresh_every, "refresh_every", low=0, owner=owner)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class LCLUCBConfig(StagewiseLinearConfig):
    """Configuration of :class:`LCLUCB`: the fields of :class:`StagewiseLinearConfig`, nothing more."""


# --------------------------------------------------------------------------------------------------
# typed records of the compiled kernels
# --------------------------------------------------------------------------------------------------
class RoundChoice(NamedTuple):
    """How a round's action is chosen (:func:`select_action`)."""

    star: bool  #: star-convex set (scaled vertices) rather than a finite point set
    safe_row: int  #: row of ``x0`` among the vertices (:data:`NO_SAFE_ROW`: none), skipped as a vertex
    safe_value: float  #: value of the candidate ``x0`` when ``known_safe_value``
    known_safe_value: bool  #: ``x0``'s value is ``safe_value`` (else its UCB, or ``<x0, theta~>``)
    use_ts: bool  #: Safe-LTS's Thompson index ``<x, theta~>`` rather than LC-LUCB's UCB
    ts_scale: float  #: ``sqrt(inflation)`` of the Thompson sample (Safe-LTS)


class ThompsonWork(NamedTuple):
    """Safe-LTS's buffers in the compiled loop: its normals (``normals``, read at
    ``positions[0].normals``; ``positions`` one element of dtype :data:`RNG_POSITIONS`) and the Cholesky
    work matrix ``low`` (the sample goes to :attr:`PackedRound.theta_ts`)."""

    normals: np.ndarray
    positions: np.ndarray
    low: np.ndarray


class PackedRound(NamedTuple):
    """A learner's records for its compiled calls: the estimator's state ``est``, the live vertex table
    ``tbl``, the output of :func:`select_action` (``point``), the Thompson sample ``theta_ts`` (unused by
    LC-LUCB) and the observed ``costs`` of :func:`stagewise_update`. The shared driver reads it in a
    :class:`StagewiseRun`; the ask / tell path passes it by reference (:func:`packed_reference`), one
    object for numba to unbox."""

    est: StagewiseState
    tbl: VertexTable
    point: np.ndarray
    theta_ts: np.ndarray
    costs: np.ndarray


# --------------------------------------------------------------------------------------------------
# compiled kernels
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def ts_sample(est, eta, scale, low, out):
    """``out = theta_hat + scale * kr * L eta`` with ``L L^T = Sigma^{-1}`` (in-place Cholesky in ``low``)
    and ``kr = alpha_r beta_r``: a draw of ``N(theta_hat, scale^2 kr^2 Sigma^{-1})`` (Safe-LTS's index;
    the papers give no algorithm box for Safe-LTS: spec ``stagewise.md`` Sec. 2.8 and 3)."""
    sinv, theta = est.sigma_inv, est.theta
    d = theta.shape[0]
    for j in range(d):
        s = sinv[j, j]
        for k in range(j):
            s -= low[j, k] * low[j, k]
        if s <= 0.0:
            for i in range(j, d):
                low[i, j] = 0.0
            continue
        ljj = math.sqrt(s)
        low[j, j] = ljj
        for i in range(j + 1, d):
            s2 = sinv[i, j]
            for k in range(j):
                s2 -= low[i, k] * low[j, k]
            low[i, j] = s2 / ljj
    kr, _ = confidence_radii(est)
    f = scale * kr
    for i in range(d):
        s = 0.0
        for k in range(i + 1):
            s += low[i, k] * eta[k]
        out[i] = theta[i] + f * s


@numba.njit(cache=True)
def select_action(est, tbl, choice, theta_ts, out_point):
    """Algorithm 1, lines 3-4 (``choice.use_ts`` False) or Safe-LTS's choice (True: index ``<x, theta_ts>``),
    ``O(n m)`` from the vertex table ``tbl`` (row 0 ``x0``, row ``i + 1`` vertex ``i``; see
    :func:`~safebandits.estimators.stagewise.vertex_table`): line 3's pessimistic feasible set
    ``A~f_t`` (eqs. 6-7) along each ray, line 4's ``X_t = argmax_{x in A~f_t} V~r(x)`` (eqs. 8-9).

    Candidates: ``x0`` (value ``safe_value`` if known, else ``V~r(x0)`` / ``<x0, theta_ts>``) and, per
    vertex ``i != safe_row``, the scaled vertex ``x0 + a_i (x_i - x0)`` (``star``) or the vertex itself if
    pessimistically feasible (points). Ties keep the earlier candidate (``x0`` first). Writes the action
    into ``out_point`` and returns ``(vertex index (SAFE_ACTION for x0), the chosen candidate's value)``: its
    optimistic reward ``V~r(X_t)`` (eq. 9; ``safe_value`` for ``x0`` when given) or, for Safe-LTS, its
    Thompson index.
    """
    kr, kc = confidence_radii(est)  # alpha_r beta_r, alpha_c beta_c (eq. 5)
    return _select_scan(est, tbl, choice, theta_ts, out_point, kr, kc)


@numba.njit(cache=True, inline="always")
def _select_body(est, tbl, choice, theta_ts, out_point, kr, kc):
    """:func:`select_action` with the radii given: the scan over the vertex table (Algorithm 1, line 3:
    each ray's largest pessimistically feasible point; line 4: the best optimistic value) and the
    action."""
    star, safe_row, use_ts = choice.star, choice.safe_row, choice.use_ts
    c0, tau = est.c0, est.tau
    vx = tbl.vx  # (the table's terms read as tbl.<field>[r] where used: no count held across loops)
    d = vx.shape[1]
    m = tau.shape[0]
    affine = not est.const.full or est.const.x0_zero
    s00, r0x = tbl.sxx[0], tbl.rx[0]
    t0 = 0.0
    if use_ts:
        for k in range(d):
            t0 += vx[0, k] * theta_ts[k]
    if choice.known_safe_value:
        best_val = choice.safe_value
    elif use_ts:
        best_val = t0
    else:
        best_val = r0x + kr * math.sqrt(max(s00, 0.0))
    best = 0
    best_a = 0.0
    for r in range(1, vx.shape[0]):
        if r - 1 == safe_row:
            continue
        sxx, s0x = tbl.sxx[r], tbl.s0x[r]
        # largest pessimistically feasible point of the ray [x0, x_i] (eqs. 6-7, Lemma 14): ray_scale's
        # operations written out (a helper with array parameters costs a count per parameter and row)
        if affine:
            a = 1.0
            h = kc * math.sqrt(max(tbl.qc[r], 0.0))
            for i in range(m):
                v = tbl.lin[r, i] + h
                if v > tau[i]:
                    q = (tau[i] - c0[i]) / (v - c0[i])
                    if q < a:
                        a = q
            a = max(a, 0.0)
        else:  # the full estimator: excess at 1, at 0, then bisection (ray_scale's order)
            a = 0.0
            lo, hi = 0.0, 1.0
            for step in range(BISECTION_STEPS + 2):
                pt = 1.0 if step == 0 else (0.0 if step == 1 else 0.5 * (lo + hi))
                q = (1.0 - pt) * (1.0 - pt) * s00 + 2.0 * pt * (1.0 - pt) * s0x + pt * pt * sxx
                h = kc * math.sqrt(max(q, 0.0))
                worst = -np.inf
                for i in range(m):
                    l0 = tbl.lin[0, i]
                    v = l0 + pt * (tbl.lin[r, i] - l0) + h - tau[i]
                    if v > worst:
                        worst = v
                if step == 0:
                    if worst <= 0.0:
                        a = 1.0
                        break
                elif step == 1:
                    if worst > 0.0:
                        a = 0.0
                        break
                elif worst <= 0.0:
                    lo = pt
                else:
                    hi = pt
                a = lo
        if star:
            if a <= 0.0:
                continue
        elif a < 1.0:
            continue
        if use_ts:
            tx = 0.0
            for k in range(d):
                tx += vx[r, k] * theta_ts[k]
            val = t0 + a * (tx - t0)
        else:
            q = (1.0 - a) * (1.0 - a) * s00 + 2.0 * a * (1.0 - a) * s0x + a * a * sxx
            val = r0x + a * (tbl.rx[r] - r0x) + kr * math.sqrt(max(q, 0.0))
        if val > best_val:
            best_val = val
            best = r
            best_a = a
    if best == 0 or best_a == 1.0:
        for k in range(d):
            out_point[k] = vx[best, k]
    else:
        for k in range(d):
            out_point[k] = vx[0, k] + best_a * (vx[best, k] - vx[0, k])
    return best - 1, best_val  # (row 0, x0, is SAFE_ACTION)


@numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # (compiled callers only)
def _select_scan(est, tbl, choice, theta_ts, out_point, kr, kc):
    """:func:`_select_body` as a function that calls nothing (numba's pruning removes the counts of
    the arrays it binds)."""
    return _select_body(est, tbl, choice, theta_ts, out_point, kr, kc)


class StagewiseRun(NamedTuple):
    """A block of rounds on the shared driver: the learner's :class:`PackedRound` (by reference,
    :func:`packed_reference`), its
    :class:`RoundChoice`, Safe-LTS's :class:`ThompsonWork` (LC-LUCB: an empty one, never read), and
    the outputs ``points`` (n, d) and ``values`` (n,) (see :func:`select_action`)."""

    packed: PackedRound
    choice: RoundChoice
    thompson: ThompsonWork
    points: np.ndarray
    values: np.ndarray


class StagewiseBlock(NamedTuple):
    """What the kernels of a block read, taken out of a :class:`StagewiseRun` once per block
    (:func:`stagewise_block`): the estimator's and the table's views, the choice, the Thompson sample
    and work, the observed costs and the outputs."""

    est: StagewiseState
    tbl: VertexTable
    choice: RoundChoice
    theta_ts: np.ndarray
    thompson: ThompsonWork
    costs: np.ndarray
    points: np.ndarray
    values: np.ndarray


@numba.njit(cache=True, inline="always")
def stagewise_block(run):
    """The :class:`StagewiseBlock` of ``run`` (the learner's records)."""
    packed = run.packed
    est, tbl, theta_ts, costs = packed.est, packed.tbl, packed.theta_ts, packed.costs
    return StagewiseBlock(est, tbl, run.choice, theta_ts, run.thompson, costs, run.points, run.values)


@numba.njit(cache=True, inline="always")
def lc_lucb_select(b, j):
    """Algorithm 1, lines 3-4: round ``j``'s action ``X_t`` into ``b.points[j]`` (its value ``V~r(X_t)``
    into ``b.values[j]``; the driver plays it, line 5); ``False`` (nothing played) when the exact refresh
    is due: the caller refreshes."""
    if refresh_due(b.est):
        return False
    kr, kc = confidence_radii(b.est)  # (select_action's parts: a call level fewer)
    _, b.values[j] = _select_scan(b.est, b.tbl, b.choice, b.theta_ts, b.points[j], kr, kc)
    return True


@numba.njit(cache=True, inline="always")
def safe_lts_select(b, j):
    """Safe-LTS (no algorithm box in the papers: spec ``stagewise.md`` Sec. 3): a Thompson sample from the
    next normal of ``b.thompson`` (``False``, nothing played, when they ran out or the exact refresh is
    due: the caller refills or refreshes), then LC-LUCB's Algorithm 1, lines 3-4 with the sample's index
    ``<x, theta~>`` in place of ``V~r``."""
    if refresh_due(b.est):
        return False
    th = b.thompson
    pos = th.positions[0]
    if pos.normals >= th.normals.shape[0]:
        return False
    ts_sample(b.est, th.normals[pos.normals], b.choice.ts_scale, th.low, b.theta_ts)
    pos.normals += 1
    _, b.values[j] = select_action(b.est, b.tbl, b.choice, b.theta_ts, b.points[j])
    return True


@numba.njit(cache=True, inline="always")
def stagewise_update(b, j, y):
    """Round ``j``'s observation ``y = (R_t, C_t)`` (Algorithm 1, line 5; reward, then the costs) into
    the estimates of eq. (4) that the next round's line 3 uses (OPLB: Algorithm 2, line 3) and the vertex
    table."""
    costs = b.costs
    for k in range(costs.shape[0]):
        costs[k] = y[1 + k]
    stagewise_update_table(b.est, b.tbl, b.points[j], y[0], costs)


#: The shared driver (:func:`~safebandits.algorithms._driver.make_driver`) over LC-LUCB's kernels and
#: over Safe-LTS's: ``driver(run, env, variates, (start, stop, mode)) -> j``, the first row not played (a
#: :class:`StagewiseRun`; Safe-LTS stops early when its normals run out: refill, call again).
lc_lucb_rounds = make_driver(
    "lc_lucb_rounds", lc_lucb_select, stagewise_update, __name__, plays="points", prepare=stagewise_block
)
safe_lts_rounds = make_driver(
    "safe_lts_rounds", safe_lts_select, stagewise_update, __name__, plays="points", prepare=stagewise_block
)


@numba.njit(cache=True)
def tell_then_select(packed, choice, x, reward, costs, tell):
    """Add the round ``(x, reward, costs)`` (:func:`stagewise_update_table`: Algorithm 1, line 5's
    observation into eq. (4)'s estimates) and choose the next round's action (:func:`select_action`,
    lines 3-4) in one call: the ask / tell path's
    one compiled call per round (LC-LUCB). Returns :func:`select_action`'s ``(vertex index, value)``;
    the action is in ``packed.point``. ``packed`` is the learner's :class:`PackedRound` by reference
    (:func:`packed_reference`), so that a call from Python unboxes one object instead of thirty arrays;
    the two kernels it calls are those of :data:`lc_lucb_rounds`, so both paths run the same compiled
    code. ``tell`` False: the selection alone (``x``, ``reward``, ``costs`` unread), the ask path's
    (one entry kernel for both: issue 43, cold compile)."""
    est, tbl = packed.est, packed.tbl
    if tell and stagewise_update_table(est, tbl, x, reward, costs):
        return REFRESH_FIRST, math.nan  # (the caller refreshes; the next ask selects)
    return select_action(est, tbl, choice, packed.theta_ts, packed.point)


@numba.njit(cache=True)
def packed_reference(packed):
    """The :class:`PackedRound` ``packed`` by reference (:func:`~safebandits._numba.by_reference`), as
    Python holds it: a :class:`~safebandits._numba.StructProxy` of the same arrays, for
    :func:`tell_then_select`."""
    return by_reference(packed)


@numba.njit(cache=True)
def ts_sample_entry(est, eta, scale, low, out):
    """:func:`ts_sample` called from Python: the records passed on by reference
    (:func:`~safebandits._numba.by_reference`), as the shared driver passes them, so that the kernel is
    compiled once for both paths."""
    return ts_sample(by_reference(est), eta, scale, low, out)


@numba.njit(cache=True)
def stagewise_update_table_entry(est, tbl, x, reward, costs):
    """:func:`stagewise_update_table` called from Python: the records passed on by reference
    (:func:`~safebandits._numba.by_reference`), as the shared driver passes them, so that the kernel is
    compiled once for both paths."""
    return stagewise_update_table(by_reference(est), by_reference(tbl), x, reward, costs)


# --------------------------------------------------------------------------------------------------
# shared learner machinery
# --------------------------------------------------------------------------------------------------
def stagewise_fields(
    info: StagewiseInfo,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray | None, int]:
    """``(arms, x0, tau, c0, safe_row)`` of a checked :class:`~safebandits.problems.stagewise.StagewiseInfo`
    (:func:`~safebandits.problems.stagewise.checked_stagewise_info`; ``c0``: the known safe cost, or
    ``None``; ``safe_row`` :data:`NO_SAFE_ROW` when no arm is ``x0``, else ``x0`` is that row, as the
    environment plays it)."""
    arms, x0 = info.arms, info.safe_action
    safe_row = NO_SAFE_ROW if info.safe_arm is None else info.safe_arm
    if safe_row != NO_SAFE_ROW:
        x0 = arms[safe_row].copy()
    return arms, x0, info.threshold, info.safe_cost, safe_row


#: ``tuple.__new__``: builds a :class:`~safebandits.types.Decision` from its four fields without the
#: NamedTuple's Python-level ``__new__`` (the ask / tell hot path).
_new_decision = tuple.__new__


class StagewiseLinearLearner(BaseLearner):
    """Base of LC-LUCB, Safe-LTS and OPLB: estimators, radii, warm start, ask / tell plumbing.

    Subclasses set ``use_ts`` (Thompson index) or ``setting = "expectation"`` (OPLB, which overrides
    ``_ask`` and :meth:`simulate`).
    """

    setting: ClassVar[str] = "round"
    use_ts: ClassVar[bool] = False

    def __init__(self, config: Any, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        owner = type(self).__name__
        self.info = info = checked_stagewise_info(info)  # (a duck-typed info: its checked record)
        check_unit_means(  # (Assumption A4: a declared mean_bound above 1 is refused)
            owner,
            info,
            "its theory radius alpha_r = 1 + 2 (1 - r0) / (tau - c0) and its warm start's "
            "stopping rule read the bound 1, so its guarantee does not apply",
        )
        arms, x0, tau, c0, safe_row = stagewise_fields(info)
        if self.setting == "round" and info.action_set == "simplex":
            raise ConfigError(
                f"{owner} needs a star-convex or finite linear action set, not the K-armed simplex: with "
                "per-round constraints pulling x0 reveals nothing about the other arms (Remark 7), so the "
                "learner would play x0 forever. Use OPB or OPLB (in-expectation constraints)."
            )
        self._arms, self._x0, self._safe_row = arms, x0, safe_row  # tau: self.estimator.tau
        self._star = info.action_set == "star"
        d = arms.shape[1]
        m = tau.shape[0]
        c = config
        self._known = info.safe_reward is not None and info.safe_cost is not None
        self._r0 = float(info.safe_reward) if info.safe_reward is not None else math.nan
        scale = 1.0
        if c.radii == "code":  # the code's 1 / min(1, tau)
            low = min(1.0, float(tau.min()))
            scale = 1.0 / check_positive(low, "min(1, tau) (radii='code' divides by it)", owner=owner)
        self.estimator = StagewiseEstimator(
            x0, tau, c0, reg=c.reg, delta=c.delta, noise_bound=info.noise_bound,
            param_norm_bound=info.param_norm_bound, arm_norm_bound=info.arm_norm_bound, radii=c.radii,
            reward_scale=scale, refresh_every=c.refresh_every, check_input=False,
        )  # fmt: skip
        self.warm_start: SafeValueWarmStart | None = None
        self._x0_only = False
        if self._known:
            self._set_alphas(1.0 - self._r0, float((tau - c0).min()), 2.0)
        else:
            self.warm_start = SafeValueWarmStart(
                info, c.delta, int(info.horizon), noise_bound=info.noise_bound
            )
        est = self.estimator
        # vertex table of the fixed arms, kept current by every update
        self._tbl = est.make_table(arms)
        self._point = np.zeros(d)
        self._theta_ts = np.zeros(d)
        self._low = np.zeros((d, d))
        self._costs = np.zeros(m)
        self._normals = np.zeros((RNG_BLOCK, d) if self.use_ts else (0, d))
        self._uniforms = np.zeros(RNG_BLOCK)
        self._position_block = np.array(
            [(RNG_BLOCK, RNG_BLOCK)], dtype=RNG_POSITIONS
        )  # the kernels read its [0]
        self._drawn_normals = self._drawn_uniforms = 0  # taken by the pending ask (given back by cancel)
        self._ts_scale = 0.0
        self._last_value = math.nan
        self._round_arms: FloatArray = arms
        # the ask / tell path's kernels, bound on first use (simulate runs its own compiled loop)
        self._select_kernel: Any = None
        self._update_kernel: Any = None
        self._ts_kernel: Any = None
        # The ask / tell path of LC-LUCB: tell updates and selects the next action in one compiled call
        # (tell_then_select) and the next ask returns that prepared decision (see _ask).
        self._fuse = self.setting == "round" and not self.use_ts
        self._prepared: tuple[int, float] | None = None
        self._prepared_stamp = -1
        self._packed = PackedRound(est.state, self._tbl, self._point, self._theta_ts, self._costs)
        StagewiseLinearLearner._make_views(self)
        self._fused_kernel: Any = None  # bound on first use
        #: The live table's choice while tell selects the next action (see _next_choice), else None.
        self._fused_choice: RoundChoice | None = self._next_choice()
        if self.setting == "round" and not self._star:
            self._check_points_can_start(owner)

    def _check_points_can_start(self, owner: str) -> None:
        """Refuse a finite point set on which the learner would play ``x0`` for ever.

        On ``"points"`` only pessimistically feasible vertices are candidates (no ray from ``x0``). When
        plays of ``x0`` teach the cost estimator nothing -- ``x0 = 0`` (``x0 x0^T = 0``), or known ``c0``
        (the estimator is projected on ``x0^perp``, where ``x0`` has no component) -- the cost estimate
        and its Gram matrix never change while ``x0`` is played, and the radius ``beta_t`` only grows, so
        a vertex that is not pessimistically feasible in the first round never becomes so: if no vertex
        is, the learner plays ``x0`` every round and learns nothing (Remark 7 / Sec. 4 of the paper: the
        high-probability setting needs star-convex action sets). See docs/decisions/stagewise.md.
        """
        est = self.estimator
        if est.full and not np.all(self._x0 == 0.0):
            return  # plays of x0 teach the cost along x0: the feasible set may grow
        rows = [i for i in range(self._arms.shape[0]) if i != self._safe_row]
        if not rows:
            return
        alpha_c = self.config.alpha_c if self.config.alpha_c is not None else 1.0
        pts = self._arms[rows]
        # V~c with the alpha_c used after a warm start too (the estimator holds 1 until then)
        width = (alpha_c * est.betas[1] - est.radii[1]) * est.perp_norm(pts)[:, None]
        excess = (est.pessimistic_cost(pts) + width - est.tau[None, :]).max(axis=1)
        if np.any(excess <= 0.0):
            return
        zero = "x0 = 0" if np.all(self._x0 == 0.0) else "c0 is known"
        raise CannotStartError.build(
            owner,
            f"with action_set='points' and {zero}, playing x0 teaches it nothing about the costs of the "
            "other points, and none of the points is pessimistically feasible in the first round (every "
            f"point's pessimistic cost exceeds tau by {float(excess.min()):.3g} or more), so it would play "
            "x0 in every round",
            [
                Fix(
                    "problem",
                    "action_set",
                    "star",
                    "action_set='star' (the paper's finite star-convex set, segments [x0, x_i] that it "
                    "explores safely; Def. 13, Remark 7)",
                ),
                Fix(
                    "learner",
                    "learner",
                    "oplb",
                    "OPLB, a learner with constraints in expectation, which may mix x0 with other points",
                ),
            ],
            notes=[
                f"if they are valid, smaller bounds noise_bound = {self.info.noise_bound:g} / "
                f"param_norm_bound = {self.info.param_norm_bound:g} or a larger delta = "
                f"{self.config.delta:g} (they set the first-round radius)"
            ],
        )

    # -- radii -------------------------------------------------------------------------------------
    def _set_alphas(self, gap_r: float, gap_c: float, factor: float) -> None:
        """Theory ``alpha_r = 1 + factor max(gap_r, 0) / gap_c`` (factor 2 known, 6 estimated), or 1."""
        c = self.config
        if c.radii == "theory":
            alpha_r = 1.0 + factor * max(gap_r, 0.0) / gap_c
        else:
            alpha_r = 1.0
        self.estimator.set_alphas(
            c.alpha_r if c.alpha_r is not None else alpha_r, c.alpha_c if c.alpha_c is not None else 1.0
        )

    def _end_warm_start(self) -> None:
        est = self.warm_start.estimates
        if not est.certified or est.delta_r_hat <= 0.0 or est.delta_c_min <= 0.0:
            self._x0_only = True  # gaps never certified: keep playing the safe action
            return
        if self.config.radii == "theory":
            alpha_r, _ = alpha_from_estimates(est.delta_r_hat, est.delta_c_hat)
            self._set_alphas(alpha_r - 1.0, 1.0, 1.0)
        else:
            self._set_alphas(0.0, 1.0, 0.0)
        if math.isnan(self._r0):
            self._r0 = est.r0_hat

    def _applied_options(self) -> dict[str, Any]:
        """The radius scalings in force (``alpha_r, alpha_c``: set from the known or warm-start gaps)."""
        alpha_r, alpha_c = self.estimator.alphas
        return {"alpha_r": alpha_r, "alpha_c": alpha_c}

    @property
    def last_value(self) -> float:
        """Optimistic value of the last decision asked: ``V~r(X_t)`` (eq. 9) of LC-LUCB's action or
        ``V~r(pi_t)`` (eq. 31) of OPLB's policy; NaN in warm-start rounds and for Safe-LTS (whose index
        is a Thompson sample, not an optimistic value)."""
        return self._last_value

    @property
    def in_warm_start(self) -> bool:
        return self._x0_only or (self.warm_start is not None and not self.warm_start.done)

    @property
    def _safe_value(self) -> float:
        return self._r0 if self.config.safe_value_ucb == "known" else math.nan

    def diagnostics(self) -> dict[str, Any]:
        alpha_r, alpha_c = self.estimator.alphas
        out: dict[str, Any] = {"alpha_r": alpha_r, "alpha_c": alpha_c}
        out["radii"] = self.config.radii
        out["beta_r"], out["beta_c"] = self.estimator.betas
        if self.warm_start is not None:
            out["warm_start_rounds"] = self.warm_start.rounds
            if self.warm_start.done:
                out.update({f"warm_{k}": v for k, v in self.warm_start.estimates.as_dict().items()})
        return out

    # -- copies and pickles ------------------------------------------------------------------------
    # Kept beside the state (the cached arguments of the select kernel, the records by reference, the
    # positions' views): a copy or a pickle leaves them out and makes them again (Rebinding).
    _views = ("_args_cache", "_packed_ref_cache", "_normals_at", "_uniforms_at")

    def _make_views(self) -> None:
        self._args_cache = None
        self._packed_ref_cache = None  # (made on first use: packed_reference)
        # one-element views of the two positions for the Python side (faster to index than the record)
        block = self._position_block
        self._normals_at, self._uniforms_at = block["normals"], block["uniforms"]

    # -- per-round pieces --------------------------------------------------------------------------
    def arm_estimates(self) -> ArmEstimates:
        """Per point (the rows of ``info.arms``): ``<x, theta_hat>`` -+ ``alpha_r beta_r ||x||_{Sigma^-1}``
        and each cost ``<x, mu_hat_i>`` -+ ``alpha_c beta_c ||x^{o,perp}||`` (eq. 5; ``x0``'s known cost is
        exact): the optimistic reward and pessimistic costs (eqs. 9, 10) are the interval ends it acts on."""
        est = self.estimator
        points = self._arms
        kr, kc = est.radii
        reward = points @ est.theta_hat
        costs = est.pessimistic_cost(points) - kc * est.perp_norm(points)[:, None]
        radius = np.column_stack([kr * est.reward_norm(points), np.repeat(kc * est.perp_norm(points)[:, None],
                                  costs.shape[1], axis=1)])  # fmt: skip
        m = costs.shape[1]
        names = ["reward", *(["cost"] if m == 1 else [f"cost {i + 1}" for i in range(m)])]
        how = "ridge estimates -+ the scaled radii of eq. (5): optimistic reward (9), pessimistic costs (10)"
        return interval_estimates(names, np.column_stack([reward, costs]), radius, [None, *est.tau.tolist()],
                                  unit="point" if self._star else "arm", interval=how)  # fmt: skip

    def _choice(self, safe_row: int) -> RoundChoice:
        value = self._safe_value
        return RoundChoice(self._star, safe_row, value, not math.isnan(value), self.use_ts, self._ts_scale)

    def _packed_by_reference(self, tbl: VertexTable) -> Any:
        """The round's records by reference (:func:`packed_reference`): the learner's own (kept) for the
        live table, made for a context's table."""
        if tbl is not self._tbl:
            return packed_reference(
                PackedRound(self.estimator.state, tbl, self._point, self._theta_ts, self._costs)
            )
        if self._packed_ref_cache is None:
            self._packed_ref_cache = packed_reference(self._packed)
        return self._packed_ref_cache

    def _select_args(self, tbl: VertexTable, safe_row: int) -> tuple[Any, ...]:
        """:func:`tell_then_select`'s arguments for the selection alone (``tell`` False) on ``tell``."""
        # (kept between rounds while its inputs are the same: built once instead of every ask)
        key = (safe_row, self._r0, self._ts_scale)
        cached = getattr(self, "_args_cache", None)
        if cached is None or cached[0] is not tbl or cached[1] != key:
            packed = self._packed_by_reference(tbl)
            args = (packed, self._choice(safe_row), self._point, 0.0, self._costs, False)
            self._args_cache = cached = (tbl, key, args)
        return cached[2]

    def _bind_select(self) -> None:
        st = self.estimator.state
        self._select_kernel = bind_kernel(tell_then_select, self._select_args(self._tbl, self._safe_row))
        if self.use_ts:
            self._ts_kernel = bind_kernel(
                ts_sample_entry, (st, self._theta_ts, 0.0, self._low, self._theta_ts)
            )

    def _context_arms(self, context: Any) -> tuple[FloatArray, VertexTable, int]:
        """The round's vertices, their table (the live one for ``None``, else computed exactly) and
        the row of ``x0`` among them (:data:`NO_SAFE_ROW`: none)."""
        if context is None:
            return self._arms, self._tbl, self._safe_row
        arms = check_array(context, "context", shape=(None, self._arms.shape[1]), min_rows=1)
        return arms, self.estimator.make_table(arms), NO_SAFE_ROW

    def _refill(self) -> None:
        if self.use_ts and self._normals_at[0] >= self._normals.shape[0]:
            self._normals[:] = self.rng.standard_normal(self._normals.shape)
            self._normals_at[0] = 0
        if self.setting == "expectation" and self._uniforms_at[0] >= self._uniforms.shape[0]:
            self._uniforms[:] = self.rng.random(self._uniforms.shape[0])
            self._uniforms_at[0] = 0

    def cancel(self) -> None:
        """Withdraw the pending decision; the learner random numbers it used are given back, so the
        next ``ask`` returns the same decision."""
        super().cancel()
        self._normals_at[0] -= self._drawn_normals
        self._uniforms_at[0] -= self._drawn_uniforms
        self._drawn_normals = self._drawn_uniforms = 0

    def _x0_decision(self) -> Decision:
        if self._safe_row != NO_SAFE_ROW:
            return Decision(arm=self._safe_row)
        return Decision(point=self._x0.copy())

    def _ask(self, context: Any) -> Decision:
        prepared = self._prepared
        if prepared is not None:  # selected by the last tell for this round (LC-LUCB: no random numbers)
            self._prepared = None
            if context is None and self._prepared_stamp == self.estimator.changes:
                self._round_arms = self._arms
                best, self._last_value = prepared
                if self._star and (best != SAFE_ACTION or self._safe_row == NO_SAFE_ROW):
                    return _new_decision(Decision, (None, None, None, self._point.copy()))
                return self._decision(best)
        self._drawn_normals = self._drawn_uniforms = 0
        self._last_value = math.nan
        if self.in_warm_start:
            return self._x0_decision()
        arms, tbl, safe_row = self._context_arms(context)
        self._round_arms = arms
        self._refill()
        if self._select_kernel is None:
            self._bind_select()
        if self.use_ts:
            eta = self._normals[self._normals_at[0]]
            self._ts_kernel(self.estimator.state, eta, self._ts_scale, self._low, self._theta_ts)
            self._normals_at[0] += 1
            self._drawn_normals = 1
        best, value = self._select_kernel(*self._select_args(tbl, safe_row))
        if not self.use_ts:
            self._last_value = value
        return self._decision(best)

    def _x0_certificate(self) -> Certificate:
        """``x0``, the action known to be safe (``c0 < tau``, Assumption 5): the certified set when a
        learner plays it (warm start, no feasible candidate, or the best one)."""
        mask = None
        if self._safe_row != NO_SAFE_ROW:
            mask = np.zeros(self._arms.shape[0], dtype=bool)
            mask[self._safe_row] = True
        return Certificate(kind="safe-set", round=self.n_samples + 1, safe_arms=mask,
                           safe_points=self._x0[None, :], basis="x0: the known safe action")  # fmt: skip

    def _certificate(self, decision: Decision) -> Certificate:
        """The action's pessimistic costs ``V~c_i(X_t) <= tau_i`` (eqs. 6-7, 10: line 3's ``A~f_t``), with
        the estimates and radii it was chosen with; ``x0`` is certified as the known safe action."""
        x = decision.point
        if x is None:
            x = (self._arms if self.in_warm_start else self._round_arms)[decision.arm]
        x = np.asarray(x, dtype=np.float64)
        if self.in_warm_start or np.array_equal(x, self._x0):
            return self._x0_certificate()
        est = self.estimator
        bound, t = est.pessimistic_cost(x[None, :])[0], self.n_samples + 1
        return Certificate(kind="upper-bound", round=t, bound=bound, threshold=est.tau.copy(),
                           basis="A~f_t: V~c_i(x) <= tau_i (eqs. 6-7)")  # fmt: skip

    def _decision(self, best: int) -> Decision:
        """The decision of :func:`select_action`'s vertex index ``best`` (point in ``self._point``)."""
        if self._star:
            if best == SAFE_ACTION and self._safe_row != NO_SAFE_ROW:
                return Decision(arm=self._safe_row)
            return Decision(None, None, None, self._point.copy())
        return Decision(best) if best != SAFE_ACTION else self._x0_decision()

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError(f"{type(self).__name__} must be told an Observation with reward and costs.")
        costs = observation.constraints
        if (
            type(costs) is not np.ndarray
            or costs.dtype is not _F64
            or costs.ndim != 1
            or not costs.flags.c_contiguous
        ):
            costs = np.ascontiguousarray(np.atleast_1d(costs), dtype=np.float64)
        x = decision.point  # (the pending decision, this learner's own: a float64 C-contiguous copy)
        if x is None:
            x = (self._arms if self.in_warm_start else self._round_arms)[decision.arm]
        choice = self._fused_choice
        if choice is None:
            self._observe(x, float(observation.reward), costs)
            return
        # update, then select the next round's action now: the next ask returns it
        kernel, packed = self._fused_kernel, self._packed_by_reference(self._tbl)
        if kernel is None:
            self._fused_kernel = kernel = bind_kernel(tell_then_select, (packed, choice, x, 0.0, costs, True))
        self._prepared = kernel(packed, choice, x, float(observation.reward), costs, True)
        self._prepared_stamp = self.estimator.changes
        if self._prepared[0] == REFRESH_FIRST:
            self._prepared = None
            self._refresh_if_due()

    def _observe(self, x: FloatArray, reward: float, costs: FloatArray) -> None:
        """Add a round through the two-kernel path (warm start, Safe-LTS, OPLB; see :meth:`_tell`)."""
        ws = self.warm_start
        if ws is not None and not ws.done:
            ws.tell(reward, costs)
            if ws.done:
                self._end_warm_start()
        if self._update_kernel is None:
            args = (self.estimator.state, self._tbl, self._point, 0.0, self._costs)
            self._update_kernel = bind_kernel(stagewise_update_table_entry, args)
        if self._update_kernel(self.estimator.state, self._tbl, x, reward, costs):
            self._refresh_if_due()
        self._fused_choice = self._next_choice()

    def _refresh_if_due(self) -> None:
        """The exact refresh when it fell due with the last update (:func:`stagewise_update_table`): the
        estimator's state, then the live vertex table, exactly. Every path runs it before the next
        selection (compiled loops stop for it), so that outside a compiled call none is pending."""
        est = self.estimator
        if est.refresh_due:
            stagewise_refresh(est.state)
            vertex_table(est.state, self._tbl)

    def _next_choice(self) -> RoundChoice | None:
        """The choice :func:`tell_then_select` selects with at ``tell``, or ``None`` where the next
        ``ask`` selects itself (Safe-LTS, OPLB, warm-start rounds, ``x0`` for ever)."""
        if not self._fuse or self.in_warm_start:
            return None
        return self._choice(self._safe_row)

    # -- simulation: the hooks of BaseLearner.simulate's one loop over the shared driver -----------
    def _sim_plays(self) -> str:
        return "points"

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        return (self._arms.shape[1], 1 + self.estimator.tau.shape[0])  # (d, reward + costs)

    def _warm_rounds(self, sampler: Any, points: FloatArray, j: int, n: int) -> int:
        """Play warm-start rounds on variate rows ``j..`` exactly as ``env.play`` would (the sampler's
        observations of ``x0``)."""
        x = self._x0
        while j < n and self.in_warm_start:
            y = sampler.sample(x, j)
            points[j] = x
            self._observe(x, float(y[0]), np.ascontiguousarray(y[1:]))
            j += 1
        return j

    def _sim_start(self) -> None:
        self._prepared = None

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        """Warm-start rounds with the sampler, then the shared driver (:data:`lc_lucb_rounds` /
        :data:`safe_lts_rounds`); Thompson normals are read from the same buffer as :meth:`ask`."""
        points = np.empty((rows, self._arms.shape[1]))
        values = np.empty(rows)
        values.fill(math.nan)
        j = self._warm_rounds(sampler, points, 0, rows)
        self._round_arms = self._arms
        thompson = ThompsonWork(self._normals, self._position_block, self._low)
        # (the records by reference, as ask / tell holds them: the block's builder then compiles no
        # builders of the state and the table, and both paths share packed_reference's; issue 43)
        packed = self._packed_by_reference(self._tbl)
        run = StagewiseRun(packed, self._choice(self._safe_row), thompson, points, values)
        return CompiledRounds(safe_lts_rounds if self.use_ts else lc_lucb_rounds, run, j)

    def _sim_refill(self, resumed: bool) -> None:
        self._refill()  # (the driver stops for new random numbers and for the exact refresh)
        self._refresh_if_due()

    def _sim_result(self, rounds: Any, env: Any, n: int) -> PlayedBlock:
        points, values = rounds.run.points, rounds.run.values
        if n > 0 and not self.use_ts:
            self._last_value = float(values[-1])
        return PlayedBlock(points, values=None if self.use_ts else values)


@register_algorithm("lc-lucb", task="regret", description="LC-LUCB: optimistic reward over the pessimistic "
                    "feasible set (Pacchiano et al., Algorithm 1).",
                    info="stagewise", guarantee="round",
                    assumptions=("linear", "means-at-most-1", "param-norm", "noise",
                                 "safe-action"))  # fmt: skip
class LCLUCB(StagewiseLinearLearner):
    """LC-LUCB: Linear Constraint Linear UCB (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 1).

    High-probability stage-wise constraints ``<X_t, mu*_i> <= tau_i`` every round. Each round plays the
    maximiser of the optimistic reward (9) over the actions whose pessimistic costs (10) are below the
    thresholds (see the module docstring for star-convex and finite sets).

    Parameters
    ----------
    config : LCLUCBConfig
    info : StagewiseInfo
        Vertices, ``x0``, thresholds, ``r0`` / ``c0`` (or ``None``: warm start), ``R``, ``S``, ``L``,
        horizon. ``ask(context)`` accepts another vertex matrix of shape (n', d) for the round.
    rng : numpy.random.Generator
        Unused (LC-LUCB is deterministic).

    Notes
    -----
    Glossary: ``Sigma_t`` -> ``estimator.sigma``; ``theta_hat`` -> ``estimator.theta_hat``;
    ``mu_hat^{o,perp}`` -> ``estimator.mu_perp_hat``; ``beta_t`` -> ``estimator.betas``; ``V~r``,
    ``V~c`` -> ``estimator.optimistic_reward`` / ``pessimistic_cost``; ``a_i*`` ->
    ``estimator.ray_scaling``.

    Guarantee (Thm. 19 / 24): with theory radii and valid ``R, S, L``, every played action is feasible and
    the regret is ``O~((1 + (1 - r0) / min_i(tau_i - c0_i)) d sqrt(T))`` with probability ``>= 1 - delta``.

    Deviations (docs/decisions/stagewise.md): the line search of Lemma 14 is the closed form above and
    the scaled vertex is ``x0 + a (x_i - x0)`` (the paper's ``a x_i`` assumes ``x0 = 0``); ``x0`` is a
    candidate with its generic UCB; confidence sets at ``delta / (1 + m)``; with unknown ``r0, c0`` the rule
    ``alpha_r = 1 + 6 Delta_r_hat / Delta_c_hat`` and a bisection (the full estimator is not affine along
    rays when ``x0 != 0``; when ``x0`` itself is pessimistically infeasible a ray keeps only its vertex,
    if feasible).
    """

    config_cls = LCLUCBConfig
    name = "lc-lucb"
