"""Safe-LUCB (Amani, Alizadeh & Thrampoulidis, NeurIPS 2019, Algorithm 1).

Two phases (spec ``safe_lucb.md`` section 2.2):

1. **Pure exploration** for ``T'`` rounds: i.i.d. actions from the conservative set
   ``D^w = {x in D0 : ||B x|| <= c / S}`` (eq. 3), safe for every ``||mu|| <= S``. Sampler ``"rejection"``:
   uniform on ``D^w`` (finite sets: a uniform arm of ``D^w``; convex bodies: uniform in the ellipsoid
   ``{||B x|| <= c/S}``, rejected outside ``D0``), ``lambda_- = lambda_min(E[x x^T])`` exact (arms) or by
   Monte Carlo; sampler ``"shell"``: Remark 1, ``x = eps B^{-1} z`` with ``z`` uniform on the sphere,
   ``lambda_- = eps^2 / (d ||B||^2)``.
2. **Safe exploration-exploitation** for ``t > T'``: ridge estimate ``mu_hat_t`` and ``A_t`` from *all* past
   rounds, confidence ellipsoid ``C_t`` (eq. 6) of radius ``beta_t`` (eq. 7), estimated safe set
   ``D_t^s = {x in D0 : mu_hat^T B x + beta ||B x||_{A^{-1}} <= c}`` (eq. 8) and the optimistic action
   ``x_t = argmin_{x in D_t^s} mu_hat^T x - beta ||x||_{A^{-1}}`` (line 10, eq. 9).

``T'`` (config ``t_prime``): ``"t_delta"`` -- ``T_Delta`` of Lemma 2 (eq. 13, gap known); ``"t0"`` -- the
literal reading ``T_0 = (||B|| L beta_T T)^{2/3} v t_delta`` of Theorem 3; ``"t0-numerical"`` -- the
minimiser over ``[t_delta, T]`` of bound (15); ``"none"`` -- no exploration (Figure 1b); an integer.
``t_delta = (8 L^2 / lambda_-) log(d / delta)`` (Lemma 1).

Optimistic step. Finite sets: exact (vectorised over the arms). Convex bodies (``convex_solver``):

* ``"radial"`` (default, ours): the objective ``f(x) = mu_hat^T x - beta ||x||_{A^{-1}}`` and the
  safety gauge ``g(x) = mu_hat^T B x + beta ||B x||_{A^{-1}}`` are positively homogeneous, so
  ``min_{D_t^s} f = min(0, min_{||u|| = 1} rho(u) f(u))`` with ``rho(u) = min(rho_D0(u), c / g(u))`` the
  radial function of ``D_t^s`` (exact reduction). ``d = 2``: a grid of ``n_directions`` angles refined by
  golden-section search around the best one; ``d > 2``: a fixed set of directions (approximate).
* ``"discretise"``: spec 2.6 option 2, the finite routine on a polar grid of ``D0`` (approximate).
* ``"boundary-grid"``: spec 2.6 option 1, ``n_directions`` points ``v`` of ``partial C_t``, for each the
  convex programme ``min_{x in D_t^s} v^T x`` (a second-order-cone constraint) by SLSQP; slow (tests).

The finite-set rounds run in compiled kernels; :meth:`SafeLUCB.simulate` plays a block in one compiled
loop with the same trajectory as ask / tell. Deviations: see ``docs/decisions/safe_lucb.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from typing import Any, ClassVar, Literal, NamedTuple, get_args

import numba
import numpy as np

from safebandits._numba import bind_kernel, by_reference
from safebandits._validation import (
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.algorithms._driver import make_driver
from safebandits.algorithms.base import BaseLearner, CompiledRounds, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.estimators.confidence import adaptive_width_inline, adaptive_width_scalar
from safebandits.estimators.linalg import smallest_eigenvalue
from safebandits.estimators.ridge import (
    ArmRidge,
    ArmRidgeArrays,
    OnlineRidge,
    arm_ridge_refresh,
    arm_ridge_step,
    arm_ridge_update,
)
from safebandits.exceptions import CannotStartError, ConfigError, Fix, ProtocolError
from safebandits.problems.safe_linear import (
    RadialProblem,
    boundary_grid_step,
    directions_grid,
    discrete_step,
    radial_step,
)
from safebandits.records import ArmEstimates, Certificate, EstimateSnapshot, PlayedBlock, interval_estimates
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "EXPLORE_BUFFER_EMPTY",
    "NO_ARM",
    "SAFE_LUCB_LIVE",
    "ArmRidgeArrays",
    "SafeLUCB",
    "SafeLUCBBaseConfig",
    "SafeLUCBConfig",
    "SafeLUCBConstants",
    "SafeLUCBRun",
    "SafeLUCBState",
    "bound15",
    "exploration_lengths",
    "gap_lcb",
    "safe_lucb_rounds",
    "safe_lucb_select",
    "safe_lucb_update",
    "select_arm",
    "tell_arm",
]

#: Exploration draws per refill of the learner's buffer.
EXPLORE_BLOCK = 1024
#: The named rules for ``T'`` (``SafeLUCBConfig.t_prime`` also takes an integer).
TRule = Literal["t_delta", "t0", "t0-numerical", "none"]
T_RULES: tuple[str, ...] = get_args(TRule)
#: ``gap_lcb`` modes (GSLUCB's ``gap_lcb`` option).
GAP_VALID, GAP_PLUGIN = 0, 1
#: :func:`select_arm`'s answer when the exploration buffer ran out: nothing selected (refill, call again).
EXPLORE_BUFFER_EMPTY = -2
#: No arm: :func:`optimistic_safe_arm`'s answer when ``D_t^s`` is empty.
NO_ARM = -1


class SafeLUCBConstants(NamedTuple):
    """Fixed settings of one Safe-LUCB / GSLUCB run (read by the compiled kernels)."""

    c: float  #: safety threshold ``c``
    delta: float  #: confidence level of ``beta_t``
    reg: float  #: ridge regulariser ``lambda``
    noise_bound: float  #: ``R``
    arm_norm_bound: float  #: ``L``
    param_norm_bound: float  #: ``S``
    k_t: float  #: ``K_T = 8 L^2 ||B||^2 beta_T^2 / lambda_-`` (eq. 13's numerator)
    offset: float  #: ``2 lambda / lambda_-`` (eq. 13)
    t_delta: float  #: ``t_delta`` of Lemma 1
    t_cap: int  #: cap on the exploration length (the resolved ``T'`` of the rule)
    n_arms: int  #: ``K`` (rows ``K..2K-1`` of the ridge are the vectors ``B x``)
    refresh_every: int  #: exact ridge recompute every this many rounds (0: never)
    logdet_width: bool  #: ``width="logdet"`` (Abbasi-Yadkori's form) rather than eq. (7)
    adaptive: bool  #: GSLUCB: ``T'_t`` follows the gap LCB (Algorithm 2, lines 5-8)
    gap_mode: int  #: :data:`GAP_VALID` or :data:`GAP_PLUGIN`


#: The scalars of a run that change: rounds ``t``, the current exploration length ``t_prime``, the position
#: in the exploration buffer, whether still exploring, ``T'`` used, fallback rounds (``D_t^s`` empty),
#: ``log det(A / lambda)``, the last gap LCB, ``lambda_min(A)`` and ``beta`` at the end of exploration,
#: the draws in the exploration buffer (``drawn``: it is empty when ``pos >= drawn``), and whether the
#: exact refresh fell due with the last sample (``refresh_pending``: the learner runs it from Python,
#: :func:`refresh_then_gap`). One numpy record, written in place by the kernels and by the learner.
SAFE_LUCB_LIVE = np.dtype(
    [("t", np.int64), ("t_prime", np.int64), ("pos", np.int64), ("exploring", np.bool_),
     ("t_used", np.int64), ("fallback", np.int64), ("logdet", np.float64), ("gap", np.float64),
     ("lmin", np.float64), ("beta_snap", np.float64), ("drawn", np.int64), ("refresh_pending", np.bool_)]
)  # fmt: skip


class SafeLUCBState(NamedTuple):
    """Everything the compiled Safe-LUCB kernels (finite decision sets) read and write, by name.

    ``ridge``: the ridge over the arms and the rows ``B x`` (:class:`ArmRidgeArrays`); ``dw_arms`` the
    arms of ``D^w``; ``explore_buf`` the exploration draws (read at ``live.pos``; the first ``live.drawn``
    are valid); ``snap_theta`` / ``snap_ainv`` ``mu_hat`` and ``A^{-1}`` at the end of exploration;
    ``const`` the fixed scalars (:class:`SafeLUCBConstants`); ``live`` a one-element array of dtype
    :data:`SAFE_LUCB_LIVE` whose record ``live[0]`` the kernels read and write.
    """

    ridge: ArmRidgeArrays
    dw_arms: np.ndarray
    explore_buf: np.ndarray
    snap_theta: np.ndarray
    snap_ainv: np.ndarray
    const: SafeLUCBConstants
    live: np.ndarray


#: What to change when the finite decision set's conservative part D^w cannot start Safe-LUCB.
_CONVEX_HINT = (
    "convex decision set (DecisionSet kind 'ball' or 'polytope': the origin is interior, so D^w contains "
    "a ball around it and spans R^d)"
)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeLUCBBaseConfig(LearnerConfig):
    """Fields shared by Safe-LUCB and GSLUCB (see :class:`SafeLUCBConfig`)."""

    sampler: Literal["rejection", "shell"] = "rejection"
    delta: float = 0.01
    reg: float = 1.0
    width: Literal["paper", "logdet"] = "paper"
    t0_coefficient: float = 2.0
    convex_solver: Literal["radial", "discretise", "boundary-grid"] = "radial"
    n_directions: int = 720
    n_radii: int = 32
    lambda_mc_samples: int = 200_000
    refresh_every: int = 1000

    def _check_common(self) -> None:
        owner = type(self).__name__
        check_literal_fields(self, owner=owner)
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_positive(self.reg, "reg", owner=owner)
        check_positive(self.t0_coefficient, "t0_coefficient", owner=owner)
        check_int(self.n_directions, "n_directions", low=8, owner=owner)
        check_int(self.n_radii, "n_radii", low=1, owner=owner)
        check_int(self.lambda_mc_samples, "lambda_mc_samples", low=1000, owner=owner)
        check_int(self.refresh_every, "refresh_every", low=0, owner=owner)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeLUCBConfig(SafeLUCBBaseConfig):
    """Configuration of :class:`SafeLUCB`.

    Parameters
    ----------
    t_prime : {"t_delta", "t0", "t0-numerical", "none"} or int >= 0, default "t_delta"
        Length ``T'`` of the pure-exploration phase (module docstring); capped at the horizon.
    sampler : {"rejection", "shell"}, default "rejection"
        Exploration distribution on ``D^w``: uniform (rejection) or Remark 1's shell (convex bodies,
        invertible ``B``).
    delta : float in (0, 1), default 0.01
        Confidence level of ``beta_t`` and Lemma 1.
    reg : float > 0, default 1.0
        Ridge regulariser ``lambda``.
    width : {"paper", "logdet"}, default "paper"
        ``beta_t`` of eq. (7), ``R sqrt(d log((1 + (t-1) L^2 / lambda) / delta)) + sqrt(lambda) S``
        (:func:`~safebandits.estimators.confidence.adaptive_width_scalar`), or the log-det form of
        Abbasi-Yadkori et al., Thm. 2,
        ``R sqrt(2 log(det(A_t)^{1/2} lambda^{-d/2} / delta)) + sqrt(lambda) S``.
        ``beta_T`` inside ``T_Delta`` and ``T_0`` is always the paper's form.
    t0_coefficient : float > 0, default 2.0
        ``kappa`` of the third term of bound (15) for ``"t0-numerical"`` (2 as printed).
    convex_solver : {"radial", "discretise", "boundary-grid"}, default "radial"
        Optimistic step on convex bodies (module docstring).
    n_directions : int >= 8, default 720
        Directions of the radial grid, of the polar grid, or points of ``partial C_t``.
    n_radii : int >= 1, default 32
        Radii per direction of the ``"discretise"`` polar grid.
    lambda_mc_samples : int, default 200000
        Monte Carlo samples for ``lambda_-`` of the rejection sampler on convex bodies (fixed seed 0).
    refresh_every : int >= 0, default 1000
        Exact recompute of ``A^{-1}`` every this many rounds (0: never).
    """

    t_prime: TRule | int = "t_delta"

    def __post_init__(self) -> None:
        self._check_common()
        if isinstance(self.t_prime, str):
            check_choice(self.t_prime, "t_prime", TRule, owner=type(self).__name__)
        else:
            check_int(self.t_prime, "t_prime", low=0, owner=type(self).__name__)


# --------------------------------------------------------------------------------------------------
# exploration lengths
# --------------------------------------------------------------------------------------------------
def bound15(t_prime, horizon, dim, beta_t, arm_norm, lambda_minus, reg, norm_b, kappa=2.0):
    """Right-hand side of bound (15) (Theorem 3) at ``T'`` (vectorised); the log is clipped at 0."""
    tp = np.asarray(t_prime, dtype=np.float64)
    den = lambda_minus * tp + 2.0 * reg
    log_term = np.maximum(np.log(2.0 * horizon * arm_norm**2 / (dim * den)), 0.0)
    second = 2.0 * beta_t * np.sqrt(2.0 * dim * np.maximum(horizon - tp, 0.0) * log_term)
    third = kappa * norm_b * arm_norm * beta_t * np.maximum(horizon - tp, 0.0) / np.sqrt(den)
    return 2.0 * tp + second + third


def exploration_lengths(
    *, horizon, dim, delta, reg, noise_bound, arm_norm, param_norm, norm_b, lambda_minus, gap=None, kappa=2.0
) -> dict[str, float]:
    """``t_delta`` (Lemma 1), ``T_Delta`` (eq. 13), ``T_0`` (literal) and the argmin of bound (15).

    ``beta_T`` is eq. (7) at ``t = T`` (``T - 1`` samples). Values are real numbers (not rounded); ``inf``
    where undefined (``lambda_- <= 0``, or ``Delta <= 0`` for ``T_Delta``). A fresh dict on each call;
    the values are memoised by the arguments (a pure function: every replicate of a setting asks for
    the same, and the argmin of (15) evaluates the bound on up to 4,000 points).
    """
    args = (horizon, dim, delta, reg, noise_bound, arm_norm, param_norm, norm_b, lambda_minus, gap, kappa)
    try:
        return dict(_exploration_lengths(*args))
    except TypeError:  # (an unhashable argument: computed every time)
        return _exploration_lengths.__wrapped__(*args)


@functools.lru_cache(maxsize=256)
def _exploration_lengths(
    horizon, dim, delta, reg, noise_bound, arm_norm, param_norm, norm_b, lambda_minus, gap, kappa
) -> dict[str, float]:
    beta_t = float(adaptive_width_scalar(max(horizon - 1.0, 0.0), dim, delta, reg, noise_bound, arm_norm,
                                         param_norm))  # fmt: skip
    out = {"beta_T": beta_t, "lambda_minus": float(lambda_minus)}
    if lambda_minus <= 1e-14:
        return {**out, "t_delta": math.inf, "T_Delta": math.inf, "T0": math.inf, "T0_numerical": math.inf}
    t_delta = 8.0 * arm_norm**2 / lambda_minus * math.log(dim / delta)
    out["t_delta"] = t_delta
    k_t = 8.0 * arm_norm**2 * norm_b**2 * beta_t**2 / lambda_minus
    out["K_T"] = k_t
    if gap is not None and gap > 0:
        out["T_Delta"] = max(k_t / gap**2 - 2.0 * reg / lambda_minus, t_delta)
    else:
        out["T_Delta"] = math.inf
    out["T0"] = max((norm_b * arm_norm * beta_t * horizon) ** (2.0 / 3.0), t_delta)
    lo = max(math.ceil(t_delta), 1)
    if lo >= horizon:
        out["T0_numerical"] = float(horizon)
    else:
        grid = np.unique(np.round(np.geomspace(lo, horizon, 4000)))
        vals = bound15(grid, horizon, dim, beta_t, arm_norm, lambda_minus, reg, norm_b, kappa)
        k = int(np.argmin(vals))
        fine = np.arange(grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)] + 1)
        fv = bound15(fine, horizon, dim, beta_t, arm_norm, lambda_minus, reg, norm_b, kappa)
        out["T0_numerical"] = float(fine[int(np.argmin(fv))])
    return out


# --------------------------------------------------------------------------------------------------
# compiled kernels: finite decision sets
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def current_beta(t, dim, const, logdet):
    """``beta_t`` of the confidence set ``C_t`` (Algorithm 1, line 8) of the next round after ``t``
    samples: eq. (7) or the log-det form (``logdet`` is ``log det(A / lambda)``). Inlined into its
    compiled callers (eq. (7) through :func:`~safebandits.estimators.confidence.adaptive_width_inline`):
    no call on the per-sample path."""
    if const.logdet_width:
        return (
            const.noise_bound * math.sqrt(logdet + 2.0 * math.log(1.0 / const.delta))
            + math.sqrt(const.reg) * const.param_norm_bound
        )
    return adaptive_width_inline(
        float(t), float(dim), const.delta, const.reg, const.noise_bound, const.arm_norm_bound,
        const.param_norm_bound,
    )  # fmt: skip


@numba.njit(cache=True, inline="always")
def _loss_and_safety(preds, sq_widths, n_arms):
    """The ridge's rows by name: ``(mu_hat^T x, ||x||^2_{A^{-1}}, mu_hat^T B x, ||B x||^2_{A^{-1}})`` of
    every arm ``x`` (views of rows ``0..K-1`` and ``K..2K-1``)."""
    return preds[:n_arms], sq_widths[:n_arms], preds[n_arms : 2 * n_arms], sq_widths[n_arms : 2 * n_arms]


@numba.njit(cache=True)
def gap_lcb(preds, sq_widths, n_arms, beta, c, mode):
    """Lower confidence bound ``Delta_t`` on the safety gap (GSLUCB, Algorithm 2, line 5; spec 2.5).

    Rows ``0..K-1`` of ``preds`` / ``sq_widths`` are the arms, rows ``K..2K-1`` the vectors ``B x``
    (read through the named views of :func:`_loss_and_safety`). ``mode`` 0 (valid): ``c - max_{x in P}
    UCB_s(x)`` over the plausibly safe and plausibly optimal arms ``P`` (``<= Delta`` when ``mu in
    C_t``); 1 (plug-in): ``c - UCB_s(x_hat)``, ``x_hat`` the estimated safe optimum.
    ``-inf`` when the set is empty.
    """
    loss, loss_sq, safety, safety_sq = _loss_and_safety(preds, sq_widths, n_arms)
    if mode == GAP_PLUGIN:
        best = NO_ARM
        best_v = np.inf
        for i in range(n_arms):
            if safety[i] <= c and loss[i] < best_v:
                best_v = loss[i]
                best = i
        if best == NO_ARM:
            return -np.inf
        return c - (safety[best] + beta * math.sqrt(max(safety_sq[best], 0.0)))
    u_star = np.inf
    for i in range(n_arms):
        ws = beta * math.sqrt(max(safety_sq[i], 0.0))
        if safety[i] + ws <= c:
            u = loss[i] + beta * math.sqrt(max(loss_sq[i], 0.0))
            if u < u_star:
                u_star = u
    worst = -np.inf
    found = False
    for i in range(n_arms):
        ws = beta * math.sqrt(max(safety_sq[i], 0.0))
        if safety[i] - ws <= c and loss[i] - beta * math.sqrt(max(loss_sq[i], 0.0)) <= u_star:
            found = True
            if safety[i] + ws > worst:
                worst = safety[i] + ws
    return c - worst if found else -np.inf


@numba.njit(cache=True)
def select_arm(st):
    """Arm of the next round. Pure exploration (Algorithm 1, lines 2-3; GSLUCB's Algorithm 2, lines 3-4)
    while ``t + 1 <= min(T', cap)``: a random arm of ``D^w`` from the exploration buffer, or
    :data:`EXPLORE_BUFFER_EMPTY` when it ran out (refill and call again). Then lines 7-10: ``mu_hat_t``
    (line 7, kept by :func:`tell_arm`), ``beta_t`` of ``C_t`` (line 8), the arm of ``D_t^s`` (line 9) with
    the lowest optimistic loss (line 10; a ``D^w`` arm if ``D_t^s`` is empty). Snapshots ``theta``,
    ``A^{-1}``, ``beta`` and ``lambda_min(A)`` when the exploration phase ends."""
    live, const = st.live[0], st.const
    t = live.t
    if live.exploring:
        if t + 1 <= min(live.t_prime, const.t_cap):
            pos = live.pos
            if pos >= live.drawn:
                return EXPLORE_BUFFER_EMPTY
            live.pos = pos + 1
            return st.explore_buf[pos]
        end_exploration(st, t)
    return optimistic_round(st)


@numba.njit(cache=True, inline="always")
def optimistic_round(st):
    """Algorithm 1, lines 7-10 after the exploration phase (:func:`select_arm`): ``beta_t`` (line 8),
    the arm of ``D_t^s`` (line 9) with the lowest optimistic loss (line 10; a ``D^w`` arm if ``D_t^s``
    is empty). Inlined: it calls nothing."""
    live, const = st.live[0], st.const
    beta = current_beta(live.t, st.ridge.theta.shape[0], const, live.logdet)
    best, best_v = optimistic_safe_arm(st.ridge, const.n_arms, beta, const.c)
    if best == NO_ARM:  # D_t^s empty: the best arm of D^w
        live.fallback += 1
        best = optimistic_arm_of(st.ridge, st.dw_arms, beta, best, best_v)
    return best


@numba.njit(cache=True)
def end_exploration(st, t):
    """The exploration phase ends after ``t`` samples: snapshots of ``theta``, ``A^{-1}``, ``beta`` and
    ``lambda_min(A)``."""
    live, const = st.live[0], st.const
    a_inv, theta, snap_theta, snap_ainv = st.ridge.a_inv, st.ridge.theta, st.snap_theta, st.snap_ainv
    d = theta.shape[0]
    live.exploring = False
    live.t_used = t
    for i in range(d):
        snap_theta[i] = theta[i]
        for j in range(d):
            snap_ainv[i, j] = a_inv[i, j]
    live.lmin = 1.0 / np.linalg.eigvalsh(snap_ainv)[-1]
    live.beta_snap = current_beta(t, d, const, live.logdet)


@numba.njit(cache=True, inline="always")
def optimistic_safe_arm(ridge, n_arms, beta, c):
    """``(arm, value)``: the arm of ``D_t^s`` (pessimistically safe, Algorithm 1, line 9 / eq. 8) with the
    lowest optimistic loss (line 10 / eq. 9); ``(NO_ARM, inf)`` if ``D_t^s`` is empty."""
    loss, loss_sq, safety, safety_sq = _loss_and_safety(ridge.preds, ridge.sq_widths, n_arms)
    best = NO_ARM
    best_v = np.inf
    for i in range(n_arms):
        if safety[i] + beta * math.sqrt(max(safety_sq[i], 0.0)) <= c:  # x in D_t^s (eq. 8)
            s = loss[i] - beta * math.sqrt(max(loss_sq[i], 0.0))
            if s < best_v:
                best_v = s
                best = i
    return best, best_v


@numba.njit(cache=True, inline="always")
def optimistic_arm_of(ridge, arms, beta, best, best_v):
    """The arm of ``arms`` with the lowest optimistic loss below ``best_v`` (else ``best``)."""
    preds, sq_widths = ridge.preds, ridge.sq_widths
    for i in arms:
        s = preds[i] - beta * math.sqrt(max(sq_widths[i], 0.0))
        if s < best_v:
            best_v = s
            best = i
    return best


@numba.njit(cache=True)
def tell_arm(st, arm, loss):
    """Add the loss of ``arm`` observed at Algorithm 1, line 3 or 11: the ridge of line 7 (``A_t``,
    ``mu_hat_t``) by a rank-one update of the arm and ``B`` rows; for GSLUCB in its exploration phase,
    ``Delta_t`` (Algorithm 2, line 5) and ``T'_t`` (lines 6-8, :func:`gslucb_step`). When the exact
    refresh falls due (every ``refresh_every`` rounds) it sets ``live.refresh_pending`` and stops there:
    the caller runs :func:`refresh_then_gap` (the refresh, then GSLUCB's step) before the next round.
    The refresh is compiled apart, when a run first reaches one (its tree, a Cholesky inverse among
    it, was most of a second of every cold compile)."""
    r, const, live = st.ridge, st.const, st.live[0]
    if const.logdet_width:
        live.logdet += math.log(1.0 + max(r.sq_widths[arm], 0.0))
    arm_ridge_update(r, arm, loss)  # (compiled apart: :func:`tell_sample` inlines the same step)
    live.t += 1
    if refresh_due(const, live.t):
        live.refresh_pending = True
        return
    gslucb_step(st)


@numba.njit(cache=True, inline="always")
def gslucb_step(st):
    """GSLUCB in its exploration phase after a sample: ``Delta_t`` (Algorithm 2, line 5) and ``T'_t``
    (lines 6-8); nothing for Safe-LUCB or after the exploration phase."""
    r, const, live = st.ridge, st.const, st.live[0]
    if const.adaptive and live.exploring:
        beta = current_beta(live.t, r.theta.shape[0], const, live.logdet)
        gap = gap_lcb(r.preds, r.sq_widths, const.n_arms, beta, const.c, const.gap_mode)
        live.gap = gap
        if gap > 0.0:  # T'_t = T_{Delta_t} (eq. 13)
            tp = max(const.k_t / (gap * gap) - const.offset, const.t_delta)
            live.t_prime = math.ceil(min(tp, 1e15))
        else:
            live.t_prime = const.t_cap


@numba.njit(cache=True)
def refresh_then_gap(st):
    """The rest of :func:`tell_arm` when the exact refresh fell due (``live.refresh_pending``): the
    exact recompute of the ridge from the counts and sums, then :func:`gslucb_step`. Called from Python
    (:meth:`SafeLUCB._refresh`), compiled when a run first reaches a refresh."""
    r, const, live = st.ridge, st.const, st.live[0]
    arm_ridge_refresh(r, const.reg)
    live.refresh_pending = False
    gslucb_step(st)


@numba.njit(cache=True, inline="always")
def tell_sample(st, arm, loss):
    """The part of :func:`tell_arm` every sample runs (Algorithm 1, line 7), the same operations inlined
    into :func:`safe_lucb_update` (:func:`tell_arm` calls the compiled step instead: one inlined copy of
    the ridge step, a shorter cold compile): the log-det width's
    ``log det(A / lambda)``, the ridge's rank-one update
    (:func:`~safebandits.estimators.ridge.arm_ridge_step`, inlined) and ``t``. Calls nothing."""
    r, const, live = st.ridge, st.const, st.live[0]
    if const.logdet_width:
        live.logdet += math.log(1.0 + max(r.sq_widths[arm], 0.0))
    arm_ridge_step(r, arm, loss)
    live.t += 1


@numba.njit(cache=True, inline="always")
def refresh_due(const, t):
    """Whether the ridge is refreshed exactly after ``t`` samples (every ``refresh_every``)."""
    return const.refresh_every > 0 and t % const.refresh_every == 0


@numba.njit(cache=True)
def select_arm_entry(st):
    """:func:`select_arm` called from Python: the records passed on by reference
    (:func:`~safebandits._numba.by_reference`), as the shared driver passes them, so that the kernel is
    compiled once for both paths."""
    return select_arm(by_reference(st))


@numba.njit(cache=True)
def tell_arm_entry(st, arm, loss):
    """:func:`tell_arm` called from Python: the records passed on by reference
    (:func:`~safebandits._numba.by_reference`), as the shared driver passes them, so that the kernel is
    compiled once for both paths. Returns ``live.refresh_pending`` (the caller refreshes)."""
    tell_arm(by_reference(st), arm, loss)
    return st.live[0].refresh_pending


class SafeLUCBRun(NamedTuple):
    """A block of rounds on the shared driver: the learner's state and the arm of each round (``arms``)."""

    st: SafeLUCBState
    arms: np.ndarray


@numba.njit(cache=True, error_model="numpy")
def safe_lucb_select(run, j):
    """Round ``j``'s arm (:func:`select_arm`: Algorithm 1, lines 3 or 7-10) into ``run.arms[j]``;
    ``False`` (nothing played) when the exploration buffer must be refilled first.

    A function of its own: the driver passes it its block without a reference count. In the exploration
    phase it calls :func:`exploring_select`; after it, it runs :func:`optimistic_round` here and calls
    nothing, so numba prunes the reference counts of that path but two (the block and its state; three
    more when ``D_t^s`` is empty). ``error_model="numpy"``: no division raises, so no exit skips a
    decrement; none divides by zero (``delta``, ``lambda > 0``). ``False`` too when the exact refresh
    fell due with the last sample (:func:`tell_arm`): the learner refreshes (``_sim_refill``)."""
    if run.st.live[0].refresh_pending:
        return False
    if run.st.live[0].exploring:
        return exploring_select(run, j)
    st = run.st  # (bound after the branch: its reference count is pruned)
    run.arms[j] = optimistic_round(st)
    return True


@numba.njit(cache=True)
def exploring_select(run, j):
    """:func:`safe_lucb_select` in the exploration phase (:func:`select_arm`), compiled apart: ``run``
    is not read after the call, so the caller's other path keeps no reference count."""
    arm = select_arm(run.st)
    if arm == EXPLORE_BUFFER_EMPTY:
        return False
    run.arms[j] = arm
    return True


@numba.njit(cache=True, error_model="numpy")
def safe_lucb_update(run, j, y):
    """:func:`tell_arm` with round ``j``'s loss (Algorithm 1, line 3 or 11): the observation ``y[0]`` is
    the negated loss.

    A function of its own as :func:`safe_lucb_select`: a sample followed by an exact refresh, or one of
    GSLUCB's exploration phase (``Delta_t``, ``T'_t``: Algorithm 2, lines 5-8), calls :func:`tell_arm`;
    the others run :func:`tell_sample` here and call nothing (``error_model="numpy"``: no division
    raises; none divides by zero: ``c = 1 + x^T A^{-1} x >= 1``, ``refresh_every > 0`` where taken)."""
    arm, loss = run.arms[j], -y[0]
    const, live = run.st.const, run.st.live[0]  # (the state's numbers, before any branch)
    if refresh_due(const, live.t + 1) or (const.adaptive and live.exploring):
        tell_arm(run.st, arm, loss)
    else:
        st = run.st
        tell_sample(st, arm, loss)


#: The shared driver (:func:`~safebandits.algorithms._driver.make_driver`) over Safe-LUCB's kernels on
#: finite decision sets: ``safe_lucb_rounds(run, env, variates, (start, stop, mode)) -> j`` on a
#: :class:`SafeLUCBRun` and the environment's compiled feedback (the driver plays ``run.arms[j]``; its
#: observation ``y`` is the negated loss), the first row not played (refill, call again).
safe_lucb_rounds = make_driver("safe_lucb_rounds", safe_lucb_select, safe_lucb_update, __name__, plays="arms")


# --------------------------------------------------------------------------------------------------
# learner
# --------------------------------------------------------------------------------------------------
def _setup(ds: Any, b_mat: FloatArray, bound: float) -> tuple[float, Any]:
    """``(||B||_2, (D^w, lambda_-, rank of D^w, ridge rows [X; X B^T]))`` on a decision set with matrix
    ``B`` and radius ``c/S`` of ``D^w = {x : ||B x|| <= c/S}`` (the second part ``None`` on convex bodies):
    functions of the immutable set, ``B`` and ``c/S`` only, so computed once and kept on the set (a
    tuning loop builds many learners on one instance)."""
    cache = getattr(ds, "_cache", None)
    if cache is None:
        cache = {}  # (a decision set of another type: computed every time)
    key = ("safe-lucb", b_mat.tobytes(), b_mat.shape, bound)
    hit = cache.get(key)
    if hit is None:
        norm_b = float(np.linalg.norm(b_mat, 2))
        finite = None
        if ds.is_finite:
            arms = ds.arms
            bx = arms @ b_mat.T
            dw = np.flatnonzero(np.linalg.norm(bx, axis=1) <= bound * (1 + 1e-12))
            lam_minus, rank = math.nan, 0
            if dw.size:
                xw = arms[dw]
                lam_minus = float(np.linalg.eigvalsh(xw.T @ xw / xw.shape[0])[0])
                rank = int(np.linalg.matrix_rank(xw))
            rows = np.vstack([arms, bx])  # the ridge's rows: the arms, then the vectors B x
            dw.flags.writeable = rows.flags.writeable = False
            finite = (dw, lam_minus, rank, rows)
        hit = cache[key] = (norm_b, finite)
    return hit


_DESCRIPTION = (
    "Safe-LUCB: pure exploration on D^w for T' rounds, then optimistic-pessimistic play over the estimated "
    "safe set (Amani et al., Algorithm 1)."
)


@register_algorithm(
    "safe-lucb",
    task="regret",
    description=_DESCRIPTION,
    info=("safe-linear", "safe-linear-arms"),
    guarantee="round",
    assumptions=("linear", "param-norm", "noise", "safe-action"),
)
class SafeLUCB(BaseLearner):
    """Safe-LUCB (Amani, Alizadeh & Thrampoulidis 2019, Algorithm 1): linear bandit with loss ``mu^T x``
    and the safety constraint ``mu^T B x <= c`` held every round with probability ``>= 1 - delta``.

    Parameters
    ----------
    config : SafeLUCBConfig
    info : SafeLinearInfo
        ``D0``, ``B``, ``c``, ``R``, ``S``, ``L``, horizon and (for ``t_prime="t_delta"`` only) the gap.
    rng : numpy.random.Generator
        Exploration draws (blocks of :data:`EXPLORE_BLOCK`).

    Notes
    -----
    Glossary: ``A_t`` -> :meth:`estimated_safe_set` ``["a"]``; ``mu_hat_t`` -> ``["theta"]``; ``beta_t`` ->
    ``["beta"]``; ``T'``, ``t_delta``, ``T_Delta``, ``T_0``, ``lambda_-`` -> :attr:`lengths` and
    :meth:`diagnostics`. The learner observes only the loss (``-Observation.reward``).

    Guarantees (valid ``R, S, L``): phase 1 is safe deterministically, phase 2 with probability
    ``>= 1 - delta``; regret ``O~(sqrt T)`` with ``T' = T_Delta`` (Thm. 2), ``O~(T^{2/3})`` with ``T_0``
    (Thm. 3). Deviations (docs/decisions/safe_lucb.md): finite sets (App. C not available) use ``D^w`` =
    its arms with ``||B x|| <= c/S`` and fall back to the best such arm when ``D_t^s`` is empty; convex
    optimistic step by the radial reduction.
    """

    config_cls = SafeLUCBConfig
    name = "safe-lucb"
    setting: ClassVar[str] = "round"
    adaptive: ClassVar[bool] = False

    def __init__(self, config: SafeLUCBBaseConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        owner = type(self).__name__
        ds = getattr(info, "decision_set", None)
        if ds is None or not hasattr(info, "b_mat"):
            raise ConfigError(f"{owner} needs a SafeLinearInfo (decision set, B, c, bounds, horizon).")
        c = config
        self._ds, d = ds, ds.dim
        self._b = np.ascontiguousarray(info.b_mat, dtype=np.float64)
        self._c, self._horizon = float(info.threshold), int(info.horizon)
        r, s, big_l = float(info.noise_bound), float(info.param_norm_bound), float(info.arm_norm_bound)
        self._finite = ds.is_finite
        self._bound = self._c / s
        norm_b, dw_setup = _setup(ds, self._b, self._bound)
        if self._finite:
            if c.sampler == "shell":
                raise ConfigError(
                    f"{owner}: the shell sampler (Remark 1) needs a convex decision set; on finite arms use "
                    "sampler='rejection' (uniform on D^w)."
                )
            arms = ds.arms
            dw, lam_minus, self._dw_rank, self._rows = dw_setup
            self._dw = dw.copy()
            if self._dw.size == 0:
                smallest = float(np.min(np.linalg.norm(arms @ self._b.T, axis=1)))
                reason = (
                    f"no arm lies in the conservative set D^w = {{x : ||B x|| <= c/S}} = {{||B x|| <= "
                    f"{self._bound:.4g}}} (c = {self._c:g}, S = {s:g}), the actions known to be safe before "
                    f"any data, which it explores first (the smallest ||B x|| of the {arms.shape[0]} arms "
                    f"is {smallest:.4g})"
                )
                raise CannotStartError.build(
                    owner,
                    reason,
                    self._span_fixes(arms, np.zeros((0, d))),
                    notes=self._dw_notes(),
                )
        else:
            if self.adaptive:
                raise ConfigError(
                    f"{owner} supports finite decision sets only (its gap LCB enumerates arms): use "
                    "Safe-LUCB on convex decision sets, or give GSLUCB a finite set of arms."
                )
            if np.linalg.cond(self._b) > 1e12:
                raise ConfigError(
                    f"{owner} needs an invertible B on convex decision sets (its exploration sampler maps "
                    "the ball ||B x|| <= c/S back through B^-1): give an invertible B, or a finite set "
                    "of arms (DecisionSet kind 'arms')."
                )
            self._b_inv_t = np.linalg.inv(self._b).T
            self._eps = ds.shell_radius(self._b, self._bound) if c.sampler == "shell" else self._bound
            if c.sampler == "shell":
                lam_minus = self._eps**2 / (d * norm_b**2)
            else:
                xs = self._draw_convex(np.random.default_rng(0), c.lambda_mc_samples)
                lam_minus = float(np.linalg.eigvalsh(xs.T @ xs / xs.shape[0])[0])
        gap = None if self.adaptive else info.safety_gap
        self.lengths = exploration_lengths(
            horizon=self._horizon, dim=d, delta=c.delta, reg=c.reg, noise_bound=r, arm_norm=big_l,
            param_norm=s, norm_b=norm_b, lambda_minus=lam_minus, gap=gap, kappa=c.t0_coefficient,
        )  # fmt: skip
        t_prime, cap = self._resolve_t_prime()
        ln = self.lengths
        self._const = SafeLUCBConstants(
            c=self._c, delta=float(c.delta), reg=float(c.reg), noise_bound=r, arm_norm_bound=big_l,
            param_norm_bound=s, k_t=float(ln.get("K_T", np.inf)), offset=2 * c.reg / max(lam_minus, 1e-300),
            t_delta=float(ln["t_delta"]), t_cap=cap, n_arms=ds.arms.shape[0] if self._finite else 0,
            refresh_every=c.refresh_every, logdet_width=c.width == "logdet", adaptive=self.adaptive,
            gap_mode=GAP_PLUGIN if getattr(c, "gap_lcb", "valid") == "plugin" else GAP_VALID,
        )  # fmt: skip
        # the kernels read its record [0]: t, t_prime, pos, exploring, t_used, fallback, logdet, gap, lmin,
        # beta_snap, drawn (nothing drawn yet), refresh_pending
        nan = math.nan
        self._live_block = np.array(
            [(0, t_prime, 0, True, -1, 0, 0.0, nan, nan, nan, 0, False)], dtype=SAFE_LUCB_LIVE
        )
        SafeLUCB._make_views(self)
        self._snap_theta, self._snap_ainv = np.zeros(d), np.zeros((d, d))
        self._undo = (0, 0)
        if self._finite:
            self._init_finite()
        else:
            self._init_convex()

    # views of the live record kept beside it: a copy or a pickle leaves them out and makes them again
    # (Rebinding)
    _views = ("live", "_pos_at", "_fallback_at")

    def _make_views(self) -> None:
        block = self._live_block
        #: The changing scalars (a record of dtype :data:`SAFE_LUCB_LIVE`), shared with :attr:`state`.
        self.live = block[0]  # a view: writes go through
        # one-element views of two fields read on every ask (faster to index than the record)
        self._pos_at, self._fallback_at = block["pos"], block["fallback"]

    # -- set-up -------------------------------------------------------------------------------------
    def _dw_notes(self) -> list[str]:
        """Changes that may let it start but that only the user can judge valid."""
        notes = ["a smaller param_norm_bound S, if a smaller bound on ||mu|| is valid (D^w grows as c/S)"]
        if not self.adaptive:
            notes.append(f"Safe-LUCB on a {_CONVEX_HINT}")
        return notes

    def _span_fixes(self, arms: FloatArray, dw_rows: FloatArray) -> list[Fix]:
        """The fix "add scaled-down copies of arms inside D^w until D^w spans R^d", if the arms span R^d.

        Each added action is an arm ``x`` scaled by ``0.99 c / (S ||B x||)`` (inside ``D^w``), chosen
        greedily among the arms that raise the rank of the actions of ``D^w``.
        """
        d = arms.shape[1]
        basis = [row for row in dw_rows]
        rank = int(np.linalg.matrix_rank(np.asarray(basis))) if basis else 0
        norms = np.linalg.norm(arms @ self._b.T, axis=1)
        added = []
        for i in np.argsort(norms, kind="stable"):
            if rank == d:
                break
            if norms[i] <= 0.0:
                continue
            candidate = arms[i] * (0.99 * self._bound / norms[i])
            new_rank = int(np.linalg.matrix_rank(np.asarray([*basis, candidate])))
            if new_rank > rank:
                basis.append(candidate)
                added.append(candidate)
                rank = new_rank
        if rank < d or not added:
            return []
        rows = np.asarray(added)
        shown = json.dumps((np.round(rows, 6) + 0.0).tolist())
        return [
            Fix(
                "add_actions",
                "arms",
                rows,
                f"add the {len(added)} action(s) {shown} (scaled-down copies 0.99 c / (S ||B x||) x of arms "
                "that complete the span of D^w), which lie inside D^w",
                detail="copies of your arms moved towards the safe arm until they lie in D^w, the set "
                "known safe before any data; with them D^w spans every direction",
            )
        ]

    def _resolve_t_prime(self) -> tuple[int, int]:
        c, ln, horizon = self.config, self.lengths, self._horizon
        rule = c.t0_rule if self.adaptive else c.t_prime
        if isinstance(rule, str) and rule != "none" and not math.isfinite(ln["t_delta"]):
            d = self._ds.dim
            n_dw, rank = int(getattr(self, "_dw", np.zeros(0)).size), getattr(self, "_dw_rank", "?")
            option = "t0_rule" if self.adaptive else "t_prime"
            reason = (
                f"lambda_- = 0, the {n_dw} action(s) of the conservative set D^w = {{x : ||B x|| <= c/S}} = "
                f"{{||B x|| <= {self._bound:.4g}}} (known safe before any data) span a space of dimension "
                f"{rank} < d = {d}, so exploring them cannot estimate mu in every direction and the "
                f"exploration length {option}={rule!r} (T_Delta / T_0, Lemma 1 / Thm. 3) is infinite "
                "(arms with ||B x|| > c/S, e.g. unit-sphere arms with B = I and c < S, are not in D^w)"
            )
            fixes = self._span_fixes(self._ds.arms, self._ds.arms[self._dw]) if self._finite else []
            notes = self._dw_notes()
            if not self.adaptive:
                notes.append(
                    "t_prime=<int> or 'none' (a fixed exploration length, outside the paper's guarantee)"
                )
            raise CannotStartError.build(type(self).__name__, reason, fixes, notes=notes)
        if rule == "none":
            value = 0.0
        elif rule == "t_delta":
            if not math.isfinite(ln["T_Delta"]):
                raise CannotStartError.build(
                    type(self).__name__,
                    "t_prime='t_delta' needs a known positive safety gap Delta = c - mu^T B x* "
                    f"(info.safety_gap > 0; got {self.info.safety_gap!r})",
                    [
                        Fix("option", "t_prime", "t0", "t_prime='t0' (Theorem 3's length; no gap needed)"),
                        Fix("learner", "learner", "gslucb", "GSLUCB, which learns the gap"),
                    ],
                    notes=["the problem's safety_gap, if you know a valid one"],
                )
            value = ln["T_Delta"]
        elif rule == "t0":
            value = ln["T0"]
        elif rule == "t0-numerical":
            value = ln["T0_numerical"]
        else:
            value = float(rule)
        t_prime = int(min(math.ceil(value), horizon))
        return t_prime, t_prime

    def _init_finite(self) -> None:
        # (the rows copied: the kernels' arrays are writable; reg checked by the config)
        self._ridge = ArmRidge(self._rows.copy(), self.config.reg, refresh_every=0, numerics="primal",
                               check_input=False)  # fmt: skip
        self._explore_buf = np.zeros(EXPLORE_BLOCK, dtype=np.int64)  # (valid below live.drawn)
        ridge = self._ridge.arrays
        #: The typed state the compiled kernels act on in place (finite decision sets; never rebound).
        self.state = SafeLUCBState(
            ridge, self._dw, self._explore_buf, self._snap_theta, self._snap_ainv, self._const,
            self._live_block,
        )  # fmt: skip
        self._select_kernel: Any = None  # bound on first use (simulate runs its own compiled loop)
        self._tell_kernel: Any = None
        self._refresh_kernel: Any = None  # (refresh_then_gap, bound when a run first reaches a refresh)
        # The first exploration draws, now, and no more than the exploration can use (T' capped at the
        # horizon): the generator serves only these draws, and numpy draws bounded integers one after
        # the other from its stream, so blocks of any sizes read the same numbers in the same order
        # (tests/unit/algorithms/test_safe_lucb.py). A short run draws only what it plays, and its
        # first compiled call does not return at once to ask for them.
        first = min(EXPLORE_BLOCK, self._const.t_cap)
        if first > 0:
            self._refill(first)

    def _init_convex(self) -> None:
        c, d = self.config, self._ds.dim
        self._ridge = OnlineRidge(d, c.reg, refresh_every=c.refresh_every)
        self._explore_pts = np.zeros((EXPLORE_BLOCK, d))
        self._geom = self._ds.kernel_args()
        self._dirs = directions_grid(d, c.n_directions)
        self._rho0 = self._ds.radial(self._dirs)
        self._radial = RadialProblem(self._geom, self._dirs, self._rho0, self._b, self._c)
        if c.convex_solver == "discretise":
            frac = np.arange(1, c.n_radii + 1) / c.n_radii
            pts = (self._rho0[:, None, None] * frac[None, :, None]) * self._dirs[:, None, :]
            self._grid = np.ascontiguousarray(pts.reshape(-1, d) * (1.0 - 1e-12))
        self._point = np.zeros(d)

    def _draw_convex(self, rng: np.random.Generator, n: int) -> FloatArray:
        """``n`` draws of the exploration distribution on ``D^w`` (convex bodies)."""
        d = self._ds.dim
        out = np.empty((n, d))
        filled = 0
        while filled < n:
            m = max(64, 2 * (n - filled))
            z = rng.standard_normal((m, d))
            z /= np.linalg.norm(z, axis=1, keepdims=True)
            if self.config.sampler == "shell":
                x = self._eps * z @ self._b_inv_t
            else:
                x = (self._bound * rng.random(m) ** (1.0 / d))[:, None] * z @ self._b_inv_t
                x = x[self._ds.contains(x, tol=0.0)]
            take = min(x.shape[0], n - filled)
            out[filled : filled + take] = x[:take]
            filled += take
        return out

    def _refill(self, size: int = EXPLORE_BLOCK) -> None:
        """Draw the next ``size`` exploration actions (finite sets; convex bodies always a whole block)."""
        if self._finite:
            np.take(self._dw, self.rng.integers(0, self._dw.size, size), out=self._explore_buf[:size])
        else:
            size = EXPLORE_BLOCK
            self._explore_pts[:] = self._draw_convex(self.rng, size)
        self.live["pos"], self.live["drawn"] = 0, size
        self._undo = (0, self._undo[1])  # a cancelled ask keeps the fresh block

    # -- state -----------------------------------------------------------------------------------
    @property
    def beta(self) -> float:
        """``beta`` of the next round."""
        live = self.live
        return float(current_beta(int(live["t"]), self._ds.dim, self._const, float(live["logdet"])))

    @property
    def exploring(self) -> bool:
        return bool(self.live["exploring"])

    def _gram(self) -> FloatArray:
        """``A_t`` (a new array, or a view of one)."""
        a = self._ridge.a
        return a if not self._finite else a[: self._ds.dim, : self._ds.dim]

    def _theta_ainv(self) -> tuple[FloatArray, FloatArray]:
        if self._finite:
            return self._ridge.theta_state, self._ridge.a_inv_state
        return self._ridge.theta_hat, self._ridge.a_inv

    def estimated_safe_set(self) -> dict[str, Any]:
        """Current ``D_t^s`` (read-only copies): ``theta`` (``mu_hat``), ``a`` (``A_t``), ``a_inv``, ``beta``,
        ``b_mat``, ``threshold``; ``x in D_t^s`` iff ``x in D0`` and
        :func:`~safebandits.problems.safe_linear.estimated_safety_ucb` ``<= threshold``."""
        theta, a_inv = self._theta_ainv()
        return {"theta": theta.copy(), "a": np.array(self._gram()), "a_inv": a_inv.copy(), "beta": self.beta,
                "b_mat": self._b.copy(), "threshold": self._c}  # fmt: skip

    def arm_estimates(self) -> ArmEstimates | None:
        """Finite decision sets: per arm the loss ``x^T mu_hat`` and the constraint value ``(B x)^T mu_hat``
        -+ ``beta ||.||_{A_t^{-1}}`` (the confidence set ``C_t``; the upper end of the constraint is eq. 8's
        ``D_t^s`` test against ``c``). ``None`` on a ball or polytope (no arms)."""
        if not self._finite:
            return None
        est = self.estimated_safe_set()
        arms = np.asarray(self._ds.arms, dtype=np.float64)
        theta, a_inv, beta = est["theta"], est["a_inv"], est["beta"]
        bx = arms @ self._b.T
        values = np.column_stack([arms @ theta, bx @ theta])
        norms = [np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", v, a_inv, v), 0.0)) for v in (arms, bx)]
        how = "ridge estimate mu_hat -+ beta ||.||_{A_t^-1} (C_t); in D_t^s when the upper end <= c"
        names = ["loss x^T mu", "constraint (Bx)^T mu"]
        radius = beta * np.column_stack(norms)
        return interval_estimates(names, values, radius, [None, self._c], interval=how)

    def diagnostics(self) -> dict[str, Any]:
        """``T'`` used, ``t_delta``, ``T_Delta``, ``T_0``, ``lambda_-``, ``lambda_min(A_{T'+1})`` against
        Lemma 1's ``lambda + lambda_- T' / 2``, fallback rounds, and the estimates at ``T'+1`` and now."""
        live, c = self.live, self.config
        ln = self.lengths
        finished = not live["exploring"]
        t_prime = int(live["t_used"]) if finished else int(live["t"])
        theta, a_now = self._theta_ainv()[0], self._gram()
        if finished:
            lmin = float(live["lmin"])
            est_tp = EstimateSnapshot(self._snap_theta, live["beta_snap"], a_inv=self._snap_ainv)
        else:
            lmin, est_tp = smallest_eigenvalue(a_now), None
        bound = c.reg + ln["lambda_minus"] * t_prime / 2.0
        rule = ("gslucb-" + c.t0_rule) if self.adaptive else str(c.t_prime)
        out = {
            "t_prime_rule": rule,
            "t_prime": t_prime,
            "exploration_finished": bool(finished),
            # not "t_delta": result columns are case-insensitive (SQLite) and "T_Delta" exists
            "lemma1_t_delta": float(ln["t_delta"]),
            **{k: float(ln[k]) for k in ("T_Delta", "T0", "T0_numerical", "beta_T", "lambda_minus")},
            "lambda_min_gram": lmin,
            "lemma1_bound": bound,
            "lemma1_holds": bool(lmin >= bound),
            "lemma1_applicable": bool(t_prime >= ln["t_delta"]),
            "fallback_rounds": int(live["fallback"]),
            "estimate_tprime": est_tp,
            "estimate_final": EstimateSnapshot(theta, self.beta, a=a_now),  # (copies)
        }
        if self.adaptive:
            out["gap_lcb_last"] = float(live["gap"])
        return out

    # -- protocol --------------------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        self._undo = (int(self._pos_at[0]), int(self._fallback_at[0]))
        if self._finite:
            kernel = self._select_kernel
            if kernel is None:
                kernel = self._select_kernel = bind_kernel(select_arm_entry, (self.state,))
            arm = kernel(self.state)
            if arm == EXPLORE_BUFFER_EMPTY:
                self._refill()
                arm = kernel(self.state)
            return Decision(arm=int(arm))
        return Decision(point=self._next_point().copy())

    def _certificate(self, decision: Decision) -> Certificate:
        """The action's certified upper bound on ``mu^T B x`` (threshold ``c``): in the exploration phase,
        and when ``D_t^s`` was empty (the fallback to ``D^w``), ``S ||B x||``, the largest value over
        ``||mu|| <= S`` (``x in D^w`` iff it is at most ``c``); otherwise eq. (8)'s ``mu_hat^T B x + beta
        ||B x||_{A^{-1}}`` with the ``mu_hat``, ``A`` and ``beta`` the choice was made with."""
        live = self.live
        x = self._ds.arms[decision.arm] if decision.point is None else decision.point
        bx = self._b @ np.asarray(x, dtype=np.float64)
        t, threshold = self.n_samples + 1, np.array([self._c])
        fell_back = self._finite and int(live["fallback"]) > self._undo[1]
        if bool(live["exploring"]) or fell_back:
            worst = float(self._const.param_norm_bound * np.linalg.norm(bx))
            basis = "D^w: S ||B x|| <= c" + (" (D_t^s empty: fallback)" if fell_back else " (exploration)")
            return Certificate(kind="upper-bound", round=t, bound=np.array([worst]), threshold=threshold,
                               basis=basis)  # fmt: skip
        if self._finite:  # (the ridge's rows K..2K-1 are the vectors B x: what the kernel read)
            row = self._ds.arms.shape[0] + int(decision.arm)
            pred, sq = float(self._ridge.preds[row]), float(self._ridge.sq_widths[row])
        else:
            theta, a_inv = self._theta_ainv()
            pred, sq = float(theta @ bx), float(bx @ a_inv @ bx)
        ucb = pred + self.beta * math.sqrt(max(sq, 0.0))
        return Certificate(kind="upper-bound", round=t, bound=np.array([ucb]), threshold=threshold,
                           basis="D_t^s: mu_hat^T B x + beta ||B x||_{A^-1} <= c (eq. 8)")  # fmt: skip

    def cancel(self) -> None:
        super().cancel()
        self.live["pos"], self.live["fallback"] = self._undo

    def _tell(self, decision: Decision, observation: Any) -> None:
        if not isinstance(observation, Observation) or observation.reward is None:
            raise ProtocolError(f"{type(self).__name__} must be told an Observation with the (negated) loss.")
        loss = -float(observation.reward)
        if self._finite:
            kernel = self._tell_kernel
            if kernel is None:
                kernel = self._tell_kernel = bind_kernel(tell_arm_entry, (self.state, 0, 0.0))
            if kernel(self.state, int(decision.arm), loss):
                self._refresh()
        else:
            self._observe_point(np.asarray(decision.point, dtype=np.float64), loss)

    # -- convex bodies ---------------------------------------------------------------------------
    def _next_point(self) -> FloatArray:
        live = self.live
        t = int(live["t"])
        if live["exploring"]:
            if t + 1 <= min(live["t_prime"], self._const.t_cap):
                if live["pos"] >= live["drawn"]:
                    self._refill()
                live["pos"] += 1
                return self._explore_pts[live["pos"] - 1]
            live["exploring"], live["t_used"] = False, t
            theta, a_inv = self._theta_ainv()
            self._snap_theta[:], self._snap_ainv[:] = theta, a_inv
            live["lmin"] = smallest_eigenvalue(self._ridge.a)
            live["beta_snap"] = self.beta
        theta, a_inv = self._theta_ainv()
        theta = np.ascontiguousarray(theta)
        beta, solver = self.beta, self.config.convex_solver
        if solver == "radial":
            radial_step(self._radial, theta, a_inv, beta, True, self._point)
        elif solver == "discretise":
            discrete_step(self._grid, theta, a_inv, self._b, beta, self._c, self._point)
        else:
            n_v = self.config.n_directions
            self._point[:] = boundary_grid_step(self._ds, theta, a_inv, self._b, beta, self._c, n_v)
        return self._point

    def _observe_point(self, x: FloatArray, loss: float) -> None:
        if self._const.logdet_width:
            self.live["logdet"] += math.log(1.0 + float(x @ self._ridge.a_inv @ x))
        self._ridge.update(x, loss)
        self.live["t"] += 1

    # -- simulation: the hooks of BaseLearner.simulate's one loop over the shared driver -----------
    def _sim_plays(self) -> str:
        return "arms" if self._finite else "points"

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        return (self._ds.arms.shape[0] if self._finite else self._ds.dim, 1)  # one output: the loss

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        """Finite sets: the shared driver (:data:`safe_lucb_rounds`); convex bodies: a Python loop over
        the same per-round functions, with the sampler's observations (``-y``, the loss)."""
        if self._finite:
            return CompiledRounds(
                safe_lucb_rounds, SafeLUCBRun(self.state, np.empty(rows, dtype=np.int64)), 0
            )
        points = np.empty((rows, self._ds.dim))
        for j in range(rows):
            x = self._next_point().copy()
            self._observe_point(x, -float(sampler.sample(x, j)[0]))
            points[j] = x
        return CompiledRounds(None, points, rows)

    def _refresh(self) -> None:
        """The exact refresh that fell due with the last sample, then GSLUCB's step (:func:`tell_arm`)."""
        kernel = self._refresh_kernel
        if kernel is None:
            kernel = self._refresh_kernel = bind_kernel(refresh_then_gap, (self.state,))
        kernel(self.state)

    def _sim_refill(self, resumed: bool) -> None:
        if self._finite and self.live["refresh_pending"]:  # (the driver stopped for the exact refresh)
            self._refresh()
        elif resumed:  # (the driver stopped: the exploration buffer ran out)
            self._refill()

    def _sim_result(self, rounds: Any, env: Any, n: int) -> PlayedBlock:
        if self._finite and self.live["refresh_pending"]:  # (due with the block's last sample)
            self._refresh()
        return PlayedBlock(self._ds.arms[rounds.run.arms] if self._finite else rounds.run)
