"""Can a learner that starts from a known safe action learn within the horizon? (issue 40, part 3)

A learner that certifies actions from a known safe one (``x0``) plays ``x0`` until its confidence widths
let it certify another action. "Can start" (:func:`~safebandits.algorithms.compatibility.start_check`)
then does not mean "can learn": on a problem whose limit is small against the noise, the widths stay
above the slack ``tau - c0`` for the whole horizon and the learner plays ``x0`` in every round.

:func:`leave_estimate` builds the learner exactly as a run builds it (its view, its options, a fixed seed;
nothing is played) and reads the widths off the learner's *own* objects -- its warm start
(:class:`~safebandits.algorithms.regret.warm_start.SafeValueWarmStart`, whose :meth:`width` it calls) and
its estimator (:class:`~safebandits.estimators.stagewise.StagewiseEstimator`, whose radius at round 0 it
reads) -- so that no width formula is written twice. The answer is a **lower bound** on the rounds it
plays ``x0`` before any other action could be played, in the best case: observations exactly equal to
their means and those means as favourable as the declared bounds allow (the safe action's cost as low,
its reward as low as the feedback and ``||mu|| <= S`` permit). The derivation per learner is in
``docs/decisions/learning.md``:

* **unknown safe cost or reward** (LC-LUCB, Safe-LTS, OPLB, OPB without ``safe_cost`` and
  ``safe_reward``): Algorithm 5's warm start plays ``x0`` until its width ``w(t)`` is at most both the
  estimated safety gap ``min_i (tau_i - c0_hat_i)`` and ``1 - r0_hat``; ``c0_hat >= c_low`` and ``r0_hat
  >= r_low`` at best, so it needs at least the first ``t`` with ``w(t) <= min(min_i tau_i - c_low,
  1 - r_low)``; if that exceeds the warm start's cap (the horizon), it never certifies and plays ``x0``
  for the whole run;
* **per-round learners on a finite point set** (LC-LUCB, Safe-LTS with ``action_set = "points"``, full
  estimator): a point ``x_i`` is a candidate only if ``V~c(x_i) <= tau``. After ``n`` plays of ``x0``
  alone, ``V~c(x_i) >= min(0, a_i c_low s(n), a_i tau s(n)) + alpha_c beta_0 ||x_i||_{Sigma_n^-1}`` with
  ``a_i = <x_i, x0> / ||x0||^2``, ``s(n) = n ||x0||^2 / (lambda + n ||x0||^2)``, ``Sigma_n = lambda I + n
  x0 x0^T`` and ``beta_0`` the radius of round 0 (radii only grow): the first ``n`` at which that reaches
  ``tau`` for some point is the bound (``inf`` if none: it never leaves ``x0``); the larger of it and
  the warm start's holds;
* after that, OPB and OPLB (which mix ``x0`` with other actions) and LC-LUCB on segments (``"star"``)
  can leave at once: the bound adds nothing.

* **dose escalation** (the ``"dose"`` view): the next dose is certified from the safe dose's data once
  its anytime upper bound is at most the limit minus the declared step; the patients that takes at the
  declared safe cost's rate (or, unknown, at the lowest rate: a lower bound), in whole cohorts
  (:meth:`~safebandits.algorithms.regret.dose_escalation.DoseEscalation.patients_before_escalation`).

* **safe-seed kernel learners** (SGP-UCB, StageOpt, SafeOpt on a finite domain with a one-point seed):
  the constraint's GP after ``n`` plays of the seed, its observations at best ``-G``: SGP-UCB certifies a
  point once its upper bound is at most 0 (after its ``T'`` rounds of phase 1), StageOpt and SafeOpt
  grow their set once ``u(x0) + L d(x0, x) <= 0`` (:func:`_kernel_estimate`).

Other learners (Safe-LUCB and GSLUCB, which leave ``x0`` from the first round; CKB; kernel learners on a
box or with a larger seed) get no estimate (``None``): see the decisions page.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.algorithms._catalogue import get_algorithm
from safebandits.algorithms.regret.warm_start import SafeValueWarmStart
from safebandits.estimators.bounded import upper_bound
from safebandits.exceptions import ConfigError, DefaultToleranceWarning

__all__ = ["LeaveEstimate", "leave_estimate"]

#: Largest number of rounds searched (a bound beyond it is reported as this many or more).
_FAR = 10**15

#: The views whose learners are estimated (a known safe action ``x0``, or a one-point safe seed).
_ESTIMATED = ("stagewise", "k-armed", "kernel", "dose")

#: Bounds of the mean of one outcome, per feedback kind of the stage-wise views.
_MEAN_RANGE = {"bernoulli": (0.0, 1.0), "binary": (-1.0, 1.0)}


@dataclass(frozen=True, slots=True)
class LeaveEstimate:
    """How many rounds learner ``name`` plays the safe action, at best, before it can play another one.

    Attributes
    ----------
    name : str
    rounds : float
        Lower bound on the rounds it plays only the safe action (``math.inf``: it never leaves it, whatever
        the horizon). Its first other action is in round ``rounds + 1`` or later.
    horizon : int
    reason : str
        How the bound was found, with the problem's numbers.
    fixes : tuple of str
        What would let it learn within the horizon (empty when it can).
    """

    name: str
    rounds: float
    horizon: int
    reason: str
    fixes: tuple[str, ...] = ()

    @property
    def can_learn(self) -> bool:
        """It may leave the safe action before the horizon (``rounds < horizon``)."""
        return self.rounds < self.horizon

    def describe(self) -> str:
        """One sentence: the rounds it needs and the horizon."""
        need = "never leaves it" if math.isinf(self.rounds) else f"needs >= {int(self.rounds):,} rounds"
        return f"{need} (horizon {self.horizon:,}): {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        """Plain form (fit records, reports): ``rounds`` is ``None`` for never."""
        return {
            "learner": self.name,
            "rounds_before_leaving_safe": None if math.isinf(self.rounds) else int(self.rounds),
            "horizon": self.horizon,
            "can_learn": self.can_learn,
            "reason": self.reason,
            "fixes": list(self.fixes),
        }


def leave_estimate(
    problem: Any, name: str, options: Mapping[str, Any] | None = None, *, horizon: int | None = None
) -> LeaveEstimate | None:
    """Lower bound on the rounds learner ``name`` plays the safe action of ``problem`` before it could play
    another action (module docstring), or ``None`` when it does not start from a known safe action, cannot
    start, or is not of a kind estimated here.

    Parameters
    ----------
    problem : Problem, SimulatedProblem or problem information
    name : str
        Registered learner name.
    options : mapping, optional
        The learner's options (default: its defaults).
    horizon : int, optional
        The horizon (default: the declaration's).
    """
    if getattr(get_algorithm(name), "guarantee", "") not in ("round", "expectation"):
        return None  # (a baseline, or a soft constraint: nothing to certify before leaving x0)
    learner = _build(problem, name, options, horizon)
    if learner is None:
        return None
    info = getattr(learner, "info", None)
    ws = getattr(learner, "warm_start", None)
    if callable(getattr(learner, "patients_before_escalation", None)):
        return _dose_estimate(learner, name)
    if info is not None and getattr(info, "safe_seed", None) is not None:
        return _kernel_estimate(learner, name, info)
    if info is None or getattr(info, "safe_action", None) is None:
        return None
    h = int(info.horizon)
    warm, warm_text, warm_fixes = (0.0, "", [])
    if isinstance(ws, SafeValueWarmStart):
        warm, warm_text, warm_fixes = _warm_start_bound(ws, info)
    after, after_text, after_fixes = _points_bound(learner, info)
    if math.isinf(after):
        rounds, reason, fixes = math.inf, after_text, after_fixes
    else:
        rounds, reason, fixes = warm, warm_text, warm_fixes
        if isinstance(ws, SafeValueWarmStart) and ws.max_rounds < h <= warm:
            rounds = math.inf  # (a cap below the horizon ends it uncertified: x0 for ever)
        elif after > warm:  # (the plays of x0 count for both: the larger bound holds)
            longer = f"a longer horizon (more than {int(after):,} rounds)"
            rounds, reason, fixes = after, after_text, [longer, *after_fixes]
        if not reason:
            reason = "it may leave the safe action from the first round (no warm start)"
    if rounds < h:
        fixes = []
    return LeaveEstimate(name, rounds, h, reason, tuple(fixes))


def _build(problem: Any, name: str, options: Mapping[str, Any] | None, horizon: int | None) -> Any:
    """The learner as a run builds it (``None`` if it refuses to start)."""
    from safebandits.algorithms._kinds import check_info, kind_for, kinds_of, view_for
    from safebandits.problems.declare import Problem, SimulatedProblem, info_kind

    entry = get_algorithm(name)
    if getattr(entry, "task", "") != "regret" or entry.privileged:
        return None
    try:
        if isinstance(problem, (Problem, SimulatedProblem)):
            if kind_for(problem, name) not in _ESTIMATED:
                return None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DefaultToleranceWarning)
                info = view_for(problem, name, horizon=horizon)
        else:
            if info_kind(problem) not in _ESTIMATED:
                return None
            check_info(name, kinds_of(entry), problem)
            info = problem
        cfg = entry.config(**dict(options or {}))
        return entry.cls(cfg, info, np.random.default_rng(0))
    except (ConfigError, TypeError):
        return None


def _mean_low(info: Any) -> float:
    """Smallest mean one outcome of the safe action can have by the declared bounds: the feedback's range
    (Bernoulli ``[0, 1]``, binary ``[-1, 1]``) and ``|<x0, mu>| <= S ||x0||``."""
    x0 = np.asarray(info.safe_action, dtype=np.float64)
    low = -float(info.param_norm_bound) * float(np.linalg.norm(x0))
    kind_low = _MEAN_RANGE.get(str(getattr(info, "noise_kind", "")), (-math.inf, math.inf))[0]
    return max(low, kind_low)


def _first_below(width: Any, target: float) -> int:
    """The first ``t >= 1`` with ``width(t) <= target`` (``width`` non-increasing; ``_FAR`` if none)."""
    if width(_FAR) > target:
        return _FAR
    lo, hi = 0, 1
    while width(hi) > target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if width(mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


def _warm_start_bound(ws: SafeValueWarmStart, info: Any) -> tuple[float, str, list[str]]:
    """Rounds Algorithm 5's warm start needs at best, the sentence that says so and the fixes."""
    low = _mean_low(info)
    tau = np.asarray(ws.tau, dtype=np.float64)
    gap_c = float(tau.min()) - low
    gap_r = 1.0 - low
    target = min(gap_c, gap_r)
    need = _first_below(ws.width, target) if target > 0.0 else _FAR
    kind = str(getattr(info, "noise_kind", ""))
    why_low = (
        f"the safe action's mean cost is at least {low:g} ({kind} outcomes)"
        if kind in _MEAN_RANGE and low == _MEAN_RANGE[kind][0]
        else f"the safe action's mean cost is at least -S ||x0|| = {low:g}"
    )
    reason = (
        f"without a known safe cost and reward it first plays the safe action until Algorithm 5's width "
        f"3 R sqrt(2 log((m+1) T / delta) / t) (R = {ws.noise_bound:g}, delta = {ws.delta:g}, T = "
        f"{ws.horizon:,}) is at most the safety gap threshold - c0 <= {gap_c:.3g} ({why_low}) and 1 - r0 "
        f"<= {gap_r:.3g}: {'never' if need >= _FAR else f'{need:,} rounds'} at best"
    )
    fixes = []
    longer = _horizon_needed(ws, target)
    if longer is not None:
        fixes.append(f"a longer horizon (>= {longer:,} rounds)")
    fixes.append("a known safe cost and reward (safe_cost and safe_reward in [problem]): no warm start")
    if kind not in _MEAN_RANGE:
        r_ok = target / 3.0 / math.sqrt(2.0 * math.log((tau.size + 1) * ws.horizon / ws.delta) / ws.horizon)
        fixes.append(f"tighter bounds: a noise bound R <= {r_ok:.3g} (now {ws.noise_bound:g}) if valid")
    else:
        fixes.append(f"a larger delta (now {ws.delta:g}; it enters only as log(1/delta))")
    return float(need), reason, fixes


def _horizon_needed(ws: SafeValueWarmStart, target: float) -> int | None:
    """The smallest horizon ``T`` whose warm start (its width grows with ``log T``) certifies the gaps
    before round ``T`` (``None`` if none below ``_FAR``)."""

    def need(h: int) -> int:
        other = SafeValueWarmStart(_Point(ws), ws.delta, h, noise_bound=ws.noise_bound, max_rounds=h)
        return _first_below(other.width, target)

    if need(_FAR) >= _FAR:
        return None
    lo, hi = 1, 2
    while need(hi) >= hi:
        lo, hi = hi, hi * 2
        if hi > _FAR:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if need(mid) >= mid:
            lo = mid
        else:
            hi = mid
    return hi


@dataclass(frozen=True, slots=True)
class _Point:
    """The safe action and thresholds of a warm start (to build another with a different horizon)."""

    ws: SafeValueWarmStart

    @property
    def safe_action(self) -> Any:
        return self.ws.ask_point()

    @property
    def threshold(self) -> Any:
        return self.ws.tau


def _points_bound(learner: Any, info: Any) -> tuple[float, str, list[str]]:
    """Per-round learners on a finite point set (full estimator): the fewest plays ``n`` of ``x0`` after
    which some point's pessimistic cost could be within every threshold (``inf``: never; 0 when the case
    does not apply), the sentence and the fixes.

    After ``n`` plays of ``x0`` alone, ``Sigma = lambda I + n x0 x0^T``: a point ``x = a x0 + P x`` has
    ``||x||^2_{Sigma^-1} = ||P x||^2 / lambda + a^2 ||x0||^2 / (lambda + n ||x0||^2)`` and cost estimate
    ``c0 a s(n)``, ``s(n) = n ||x0||^2 / (lambda + n ||x0||^2)``, ``c0`` in ``[c_low, tau]``; the radius is
    at least its round-0 value. Both bounds fall with ``n``: the first ``n`` where the lower bound of
    ``V~c`` reaches ``tau`` for some point is a lower bound on the rounds before it could leave ``x0``.
    """
    est = getattr(learner, "estimator", None)
    if (
        est is None
        or getattr(learner, "setting", "") != "round"
        or getattr(info, "action_set", "") != "points"
        or not getattr(est, "full", False)
    ):
        return 0.0, "", []
    x0 = np.asarray(info.safe_action, dtype=np.float64)
    norm2 = float(x0 @ x0)
    if norm2 == 0.0:
        return 0.0, "", []  # (x0 = 0: the start-up check handles it)
    arms = np.asarray(info.arms, dtype=np.float64)
    others = [i for i in range(arms.shape[0]) if not np.allclose(arms[i], x0)]
    if not others:
        return 0.0, "", []
    pts = arms[others]
    tau = np.asarray(est.tau, dtype=np.float64)
    a = pts @ x0 / norm2
    perp2 = np.sum((pts - np.outer(a, x0)) ** 2, axis=1)
    reg = float(est.state.const.reg)
    alpha_c = getattr(learner.config, "alpha_c", None)
    alpha_c = 1.0 if alpha_c is None else float(alpha_c)
    beta0 = float(est.betas[1])
    low = _mean_low(info)

    def excess(n: float) -> float:
        """Smallest (over points) largest (over constraints) lower bound of ``V~c - tau`` after ``n``."""
        s = n * norm2 / (reg + n * norm2) if math.isfinite(n) else 1.0
        tail = 0.0 if not math.isfinite(n) else a**2 * norm2 / (reg + n * norm2)
        lin = np.minimum(0.0, np.minimum(np.outer(a * low * s, np.ones_like(tau)), np.outer(a * s, tau)))
        width = alpha_c * beta0 * np.sqrt(perp2 / reg + tail)
        return float((lin + width[:, None] - tau[None, :]).max(axis=1).min())

    never = excess(math.inf)
    if never > 0.0:
        reason = (
            "on action_set='points' a point is a candidate only once its pessimistic cost is within the "
            f"threshold; while only the safe action is played, every point's width stays at least alpha_c "
            f"beta_0 ||P x|| / sqrt(lambda) (beta_0 = {beta0:.3g}, lambda = {reg:g}; P: the part off x0), "
            f"so every point's pessimistic cost stays above the threshold by {never:.3g} or more whatever "
            "the rounds: it plays the safe action for the whole horizon"
        )
        fixes = [
            "action_set='star' (segments [x0, x_i], explored safely)",
            f"tighter bounds: a smaller param_norm_bound (now {float(info.param_norm_bound):g}; it sets "
            "beta_0 >= sqrt(lambda) S) if valid",
        ]
        return math.inf, reason, fixes
    need = _first_below(lambda n: excess(float(n)), 0.0) if excess(0.0) > 0.0 else 0
    reason = (
        f"on action_set='points' no point's pessimistic cost can be within the threshold before the safe "
        f"action has been played {need:,} times (its width and its estimate, from the plays of x0 alone, "
        f"at best; beta_0 = {beta0:.3g}, lambda = {reg:g})"
    )
    fixes = ["action_set='star' (segments [x0, x_i], explored safely)"]
    return float(need), reason, fixes


def _kernel_estimate(learner: Any, name: str, info: Any) -> LeaveEstimate | None:
    """Safe-seed kernel learners on a finite domain with a one-point seed ``x0`` (SGP-UCB, StageOpt,
    SafeOpt; ``None`` otherwise).

    After ``n`` plays of ``x0`` the constraint's GP (noise variance ``lambda~``, prior mean 0) has, at a
    point ``x``, mean ``k(x, x0) n y / (lambda~ + n k00)`` (``y`` the mean observation, at best ``-G``,
    ``G = constraint_bound``) and variance ``k(x, x) - n k(x, x0)^2 / (lambda~ + n k00)``; its radius is at
    least ``beta~_1`` (the information gain only grows). SGP-UCB certifies ``x`` once ``mu~ + beta~
    sigma~ <= 0`` and first plays the seed for ``T'`` rounds; StageOpt and SafeOpt grow their set from
    ``x0`` once ``u(x0) + L d(x0, x) <= 0``. The first ``n`` at which that is possible at best is the bound.
    """
    from safebandits.estimators.gp import kernel_column, kernel_diagonal

    seed = tuple(getattr(info, "safe_seed", ()))
    if getattr(learner, "box", None) is not None or len(seed) != 1 or not hasattr(learner, "betas"):
        return None
    x0 = int(seed[0])
    kern = info.constraint_kernel
    col = np.asarray(kernel_column(kern, x0), dtype=np.float64)
    diag = np.asarray(kernel_diagonal(kern), dtype=np.float64)
    k00 = float(diag[x0])
    others = np.arange(diag.shape[0]) != x0
    if k00 <= 0.0 or not others.any():
        return None
    lam = float(learner.applied_config().get("gp_noise", 1.0))
    lam_g = float(learner.applied_config().get("constraint_gp_noise", lam) or lam)
    beta0 = float(learner.betas(1)[1])
    big_g = float(info.constraint_bound)
    h = int(learner.horizon)
    if hasattr(learner, "lipschitz") and hasattr(learner, "_distance_row"):
        dist = getattr(learner, "distance", None)
        row = dist[x0] if dist is not None else learner._distance_row(x0)
        d_min = float(np.asarray(row, dtype=np.float64)[others].min())
        lip = float(learner.lipschitz)

        def excess(n: float) -> float:  # u(x0) + L d_min at best, after n plays of x0
            if not math.isfinite(n):
                return -big_g + lip * d_min
            var = k00 - n * k00**2 / (lam_g + n * k00)
            return -big_g * n * k00 / (lam_g + n * k00) + beta0 * math.sqrt(max(var, 0.0)) + lip * d_min

        rule = (
            f"its safe set grows from the seed once u(x0) + L d(x0, x) <= 0 (L = {lip:.3g}, nearest point "
            f"at d = {d_min:.3g}); at best u(x0) falls to -G = {-big_g:g} as the seed's width shrinks"
        )
        first = 0
    else:
        kx = col[others]
        kxx = diag[others]

        def excess(n: float) -> float:  # min over points of mu~ + beta~ sigma~ at best, after n plays
            if not math.isfinite(n):
                var = kxx - kx**2 / k00
                mean = -big_g * np.abs(kx) / k00
            else:
                var = kxx - n * kx**2 / (lam_g + n * k00)
                mean = -big_g * np.abs(kx) * n / (lam_g + n * k00)
            return float((mean + beta0 * np.sqrt(np.maximum(var, 0.0))).min())

        first = int(getattr(learner, "exploration_rounds", 0))
        rule = (
            f"it certifies a point once mu~ + beta~ sigma~ <= 0 there (beta~ >= {beta0:.3g}, lambda~ = "
            f"{lam_g:.3g}; the GP learns other points only through the kernel's correlation with the seed)"
        )
    never = excess(math.inf)
    fixes: list[str] = []
    if never > 0.0:
        rounds = math.inf
        reason = f"{rule}: that never holds, whatever the rounds, so it plays the seed for the whole horizon"
        fixes = [
            "tighter bounds (a smaller constraint_bound or noise bound, if valid)",
            "a larger safe seed (safe_seed: more points known safe)",
        ]
    else:
        need = _first_below(lambda n: excess(float(n)), 0.0) if excess(0.0) > 0.0 else 0
        rounds = float(max(need, first))
        reason = f"{rule}: at best after {need:,} plays of the seed"
        if first > need:
            reason += f"; it first plays the seed for T' = {first:,} rounds (phase 1)"
        fixes = [f"a longer horizon (more than {int(rounds):,} rounds)", "a larger safe seed (safe_seed)"]
    if rounds < h:
        fixes = []
    return LeaveEstimate(name, rounds, h, reason, tuple(fixes))


def _dose_estimate(learner: Any, name: str) -> LeaveEstimate:
    """The dose-escalation learner's patients before its first escalation (its own method), and the
    largest first step a declaration could state for it to escalate within the horizon."""
    rounds, reason = learner.patients_before_escalation()
    h = int(learner.horizon)
    fixes: list[str] = []
    if rounds >= h:
        s = learner.safe_dose
        if s + 1 < learner.n_doses:
            lo = learner.range[0]
            rate = learner.info.safe_cost if learner.info.safe_cost is not None else lo
            kw: dict[str, Any] = {"n_actions": learner.n_doses, "scale": learner.range}
            if learner.config.bound != "beta-mixture":
                kw["horizon"] = h
            up = float(upper_bound(learner.config.bound, rate * h, h, learner._side_delta(), **kw))
            step = learner.tau - up
            if step > 0:
                fixes.append(
                    f"a declared max_increase for the step from dose {s} of at most {step:.3g} (now "
                    f"{float(learner.rise[s, s + 1]):g}), if a clinician would state it"
                )
        fixes.append(
            f"a longer horizon (more than {int(rounds):,} patients)" if math.isfinite(rounds) else ""
        )
        fixes = [f for f in fixes if f]
    return LeaveEstimate(name, rounds, h, reason, tuple(fixes))
