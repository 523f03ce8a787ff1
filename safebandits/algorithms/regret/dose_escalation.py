"""Dose escalation with a certified safe set (issue 45, items 2 and 4): a finite-dose design that gives a
patient only a dose whose toxicity is certified below the limit.

The structure is the one dose trials assume, declared with the problem
(:class:`~safebandits.problems.dose.DoseInfo`): doses ``0 < 1 < ... < K-1``, a declared largest toxicity
increase ``m_j >= c_{j+1} - c_j`` per step, optionally toxicity non-decreasing in the dose, and a dose
``s`` known to be below the limit ``tau``. Each dose's own outcomes give an anytime-valid interval
``[l_i, u_i]`` (:mod:`safebandits.estimators.bounded`: all of them hold at every patient at once with
probability ``1 - delta``), intersected over time. On that event, with ``D(i, j) = m_i + ... + m_{j-1}``:

* ``c_j <= U_j = min( min_{i <= j} u_i + D(i, j),  min_{i >= j} u_i )`` -- the step bound carries every
  lower dose's upper bound up (no monotonicity needed: ``c_j - c_i <= D(i, j)``); monotonicity adds the
  upper bounds of the higher doses;
* ``c_j >= L_j = max( max_{i >= j} l_i - D(j, i),  max_{i <= j} l_i )`` -- the mirror image (the second
  term with monotonicity only).

A dose is certified once ``U_j <= tau`` (or declared: ``s``, and every dose below it when toxicity is
monotone); the certified set only grows (the intervals are intersected). The design:

* **cohorts**: ``cohort_size`` patients get one dose before the next decision;
* each cohort gets the highest certified dose (``choose="highest"``; ``"efficacy"``: the certified dose
  with the highest upper confidence bound on efficacy), at most one dose above the highest dose given so
  far unless ``skip_doses``;
* **early stop**: when the data certify the lowest dose above the limit (``L_0 > tau``), no dose is
  safe and the declaration of ``s`` is contradicted: ``stopped`` is set, no maximum tolerated dose is
  recommended, and (in a simulation, which plays every round) the remaining patients get the lowest
  certified dose;
* **the maximum tolerated dose** (:meth:`recommend`, ``anytime=True``): the highest certified dose. With
  probability ``1 - delta`` (the same event) its toxicity is below the limit, and every dose with
  ``L_j > tau`` is above it: the true MTD lies between the recommended dose and the first such dose.

Known safe toxicity: a declared ``safe_cost`` is the safe dose's toxicity mean as the problem states it
(``safe_cost="known"``, the default: ``u_s = l_s = c_s``); ``"estimate"`` ignores it. Derivation, sources
and numbers: ``docs/decisions/bounds.md`` ("Dose escalation with a declared step bound").
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_int, check_interval, check_literal_fields
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.estimators.bounded import (
    BOUND_SOURCES,
    lower_bound,
    mixture_lower_scalar,
    mixture_upper_scalar,
    samples_until_below,
    upper_bound,
)
from safebandits.exceptions import ConfigError
from safebandits.records import ArmEstimates, Certificate
from safebandits.types import Decision, Observation, Recommendation

__all__ = ["DoseEscalation", "DoseEscalationConfig"]

#: Round-off of the comparisons with the limit.
TOL = 1e-12


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class DoseEscalationConfig(LearnerConfig):
    """Configuration of :class:`DoseEscalation`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Probability that any interval of any dose fails at any patient (both sides together).
    bound : {"beta-mixture", "clopper-pearson", "kl", "sub-gaussian"}, default "beta-mixture"
        The per-dose interval (:mod:`safebandits.estimators.bounded`). ``"beta-mixture"`` (the tightest
        anytime bound at trial sizes: ``docs/decisions/bounds.md``) covers both sides with ``delta``
        split over the doses only; the others hold at a fixed count and take ``delta / 2`` per side split
        over doses and patients (``delta / (2 K T)``). ``"clopper-pearson"``: Bernoulli outcomes only.
    cohort_size : int >= 1, default 3
        Patients per decision.
    choose : {"highest", "efficacy"}, default "highest"
        The certified dose each cohort gets: the highest, or the one with the highest efficacy upper bound.
    skip_doses : bool, default False
        Allow escalating more than one dose above the highest dose given so far.
    safe_cost : {"known", "estimate"}, default "known"
        Use a declared ``safe_cost`` as the safe dose's toxicity (``"known"``) or estimate it.
    horizon : int >= 1 or None, default None
        ``T`` of the fixed-count bounds' union (default: the problem's horizon); a dose's interval is not
        updated past ``T`` of its patients (the union covers no more).
    """

    delta: float = 0.05
    bound: Literal["beta-mixture", "clopper-pearson", "kl", "sub-gaussian"] = "beta-mixture"
    cohort_size: int = 3
    choose: Literal["highest", "efficacy"] = "highest"
    skip_doses: bool = False
    safe_cost: Literal["known", "estimate"] = "known"
    horizon: int | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        check_interval(self.delta, "delta", low=0.0, high=1.0, owner=owner)
        check_literal_fields(self, owner=owner)
        check_int(self.cohort_size, "cohort_size", low=1, owner=owner)
        if not isinstance(self.skip_doses, bool):
            raise ConfigError(
                f"The 'skip_doses' parameter of {owner} must be true or false. Got {self.skip_doses!r}."
            )
        if self.horizon is not None:
            check_int(self.horizon, "horizon", low=1, owner=owner)


@register_algorithm(
    "dose-escalation",
    task="regret",
    description="Dose escalation with a certified safe set: a dose is given only when its toxicity is "
    "certified below the limit from the lower doses' anytime-valid bounds plus the declared step bound.",
    info="dose",
    guarantee="round",
    assumptions=("max-increase", "monotone-cost", "outcomes-in-unit", "safe-action"),
)
class DoseEscalation(BaseLearner):
    """Dose escalation with a certified safe set (module docstring).

    Parameters
    ----------
    config : DoseEscalationConfig
    info : DoseInfo
    rng : numpy.random.Generator
        Unused (the design is deterministic given the outcomes).
    """

    config_cls = DoseEscalationConfig
    name = "dose-escalation"
    setting = "round"

    def __init__(self, config: DoseEscalationConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        c = config
        k = info.n_actions
        self.n_doses = k
        self.tau = float(info.threshold)
        self.range = tuple(float(v) for v in info.outcome_range)
        if c.bound == "clopper-pearson" and info.noise_kind != "bernoulli":
            raise ConfigError(
                f"The 'bound' option 'clopper-pearson' of DoseEscalation is for Bernoulli outcomes; this "
                f"problem's feedback is {info.noise_kind!r}. Use bound='beta-mixture' or 'kl'."
            )
        self.horizon = int(c.horizon if c.horizon is not None else info.horizon)
        #: ``D[i, j]``: the declared largest toxicity rise from dose ``i`` to dose ``j > i``.
        self.rise = info.step_sums()
        self._at_or_below = np.triu(np.ones((k, k), dtype=bool))
        self.monotone = bool(info.monotone)
        self.safe_dose = int(info.safe_action)
        self.known_cost = info.safe_cost if c.safe_cost == "known" else None
        lo, hi = self.range
        self.counts = np.zeros(k)
        self.tox_sums = np.zeros(k)
        self.eff_sums = np.zeros(k)
        #: Each dose's own interval on its toxicity, intersected over time (data only).
        self.data_lower = np.full(k, lo)
        self.data_upper = np.full(k, hi)
        #: Doses declared below the limit: the safe dose, and the doses below it if toxicity is monotone.
        self.declared = np.zeros(k, dtype=bool)
        self.declared[: self.safe_dose + 1 if self.monotone else 0] = True
        self.declared[self.safe_dose] = True
        #: ``S_t``: the doses certified below the limit (grows only).
        self.safe = self.declared.copy()
        self.lower = np.full(k, lo)
        self.upper = np.full(k, hi)
        self.stopped = False
        self.stopped_at: int | None = None
        self.highest_given = -1
        self._dose = self.safe_dose
        self._left = 0
        self._combine()

    # -- bounds --------------------------------------------------------------------------------------
    @staticmethod
    def bound_statement(config: DoseEscalationConfig, info: Any) -> str:
        """The bound the design runs with, its source and its guarantee (read by
        :func:`~safebandits.algorithms.compatibility.guarantee_statement` and ``learners --for``)."""
        how = (
            "the default, the tightest anytime bound at trial sizes"
            if config.bound == "beta-mixture"
            else ("your choice")
        )
        return (
            f"toxicity bound {config.bound!r} ({how}): {BOUND_SOURCES[config.bound]}; every patient's dose "
            "within the limit with probability 1 - delta (docs/decisions/bounds.md)."
        )

    def _side_delta(self) -> float:
        """The ``delta`` of one side (the mixture's set covers both sides at once)."""
        d = float(self.config.delta)
        return d if self.config.bound == "beta-mixture" else d / 2.0

    def _interval(self, i: int) -> tuple[float, float]:
        """Dose ``i``'s anytime interval from its own outcomes (:func:`upper_bound` and
        :func:`lower_bound`; the mixture's compiled ends directly, the same numbers, a test checks)."""
        if self.config.bound == "beta-mixture":
            lo, hi = self.range
            n = float(self.counts[i])
            total = min(max((self.tox_sums[i] - lo * n) / (hi - lo), 0.0), n)
            level = math.log(self.n_doses / float(self.config.delta))
            return (
                lo + (hi - lo) * mixture_lower_scalar(total, n, level),
                lo + (hi - lo) * mixture_upper_scalar(total, n, level),
            )
        kw = {"n_actions": self.n_doses, "scale": self.range, "horizon": self.horizon}
        b, d = self.config.bound, self._side_delta()
        s, n = self.tox_sums[i], self.counts[i]
        return float(lower_bound(b, s, n, d, **kw)), float(upper_bound(b, s, n, d, **kw))

    def _combine(self) -> None:
        """``U_j``, ``L_j`` from every dose's interval and the declared structure (module docstring)."""
        lo, up = self.data_lower.copy(), self.data_upper.copy()
        if self.known_cost is not None:
            lo[self.safe_dose] = up[self.safe_dose] = float(self.known_cost)
        below = self._at_or_below  # (row i, column j: i <= j)
        u = np.where(below, up[:, None] + self.rise, np.inf).min(axis=0)  # min_{i <= j} u_i + D(i, j)
        low = np.where(below, lo[None, :] - self.rise, -np.inf).max(axis=1)  # max_{i >= j} l_i - D(j, i)
        if self.monotone:
            u = np.minimum(u, np.minimum.accumulate(up[::-1])[::-1])  # min_{i >= j} u_i
            low = np.maximum(low, np.maximum.accumulate(lo))  # max_{i <= j} l_i
        np.minimum(self.upper, u, out=self.upper)
        np.maximum(self.lower, low, out=self.lower)
        self.safe |= self.upper <= self.tau + TOL
        if not self.stopped and self.lower[0] > self.tau + TOL:
            self.stopped, self.stopped_at = True, self.n_samples

    # -- protocol ------------------------------------------------------------------------------------
    def _next_dose(self) -> int:
        certified = np.flatnonzero(self.safe)
        if self.stopped:
            return int(certified[0])
        # (a certified dose whose own data put it above the limit contradicts the declaration: not given)
        kept = certified[self.data_lower[certified] <= self.tau + TOL]
        certified = kept if kept.size else certified[:1]
        if not self.config.skip_doses:
            certified = certified[certified <= max(self.highest_given + 1, self.safe_dose)]
        if self.config.choose == "efficacy" and certified.size > 1:
            kw: dict[str, Any] = {"n_actions": self.n_doses, "scale": self.range, "horizon": self.horizon}
            ucb = upper_bound("kl", self.eff_sums[certified], self.counts[certified], self.config.delta, **kw)
            best = np.flatnonzero(np.asarray(ucb) >= np.max(ucb) - TOL)
            return int(certified[best[-1]])
        return int(certified[-1])

    def _ask(self, context: Any) -> Decision:
        if self._left <= 0 or self.stopped or self.data_lower[self._dose] > self.tau + TOL:
            self._dose = self._next_dose()
            self._left = int(self.config.cohort_size)
        return Decision(arm=self._dose)

    def _tell(self, decision: Decision, observation: Observation) -> None:  # type: ignore[override]
        i = int(decision.arm)  # type: ignore[arg-type]
        self.counts[i] += 1
        self.tox_sums[i] += float(observation.constraints[0])  # type: ignore[index]
        self.eff_sums[i] += float(observation.reward)  # type: ignore[arg-type]
        self.highest_given = max(self.highest_given, i)
        self._left -= 1
        if self.config.bound != "beta-mixture" and self.counts[i] > self.horizon:
            return  # (the union covers counts up to T only: past it, the intersected interval stands)
        lo, up = self._interval(i)
        self.data_lower[i] = max(self.data_lower[i], lo)
        self.data_upper[i] = min(self.data_upper[i], up)
        self._combine()

    def _certificate(self, decision: Decision) -> Certificate:
        basis = "S_t: doses with U_j <= tau (lower doses' anytime bounds plus the declared step), or declared"
        if self.stopped:
            basis += "; trial stopped: the data certify the lowest dose above the limit"
        return Certificate(kind="safe-set", round=self.n_samples + 1, safe_arms=self.safe.copy(), basis=basis)

    # -- answers and views ---------------------------------------------------------------------------
    def mtd(self) -> int | None:
        """The recommended maximum tolerated dose: the highest certified dose (``None`` once stopped)."""
        return None if self.stopped else int(np.flatnonzero(self.safe)[-1])

    def _recommend(self, final: bool) -> Recommendation:
        above = np.flatnonzero(self.lower > self.tau + TOL)
        mtd = self.mtd()
        return Recommendation(
            arm=mtd,
            n_samples=self.n_samples,
            final=final,
            info={
                "certified_below_limit": np.flatnonzero(self.safe).tolist(),
                "certified_above_limit": above.tolist(),
                "stopped": self.stopped,
                "guarantee": (
                    f"with probability >= {1 - self.config.delta:g}: the recommended dose's toxicity is at "
                    "most the limit, and every dose certified above the limit is above the true MTD "
                    "(under the declared step bound and monotonicity)"
                ),
            },
        )

    def arm_estimates(self) -> ArmEstimates:
        n = np.maximum(self.counts, 1.0)
        seen = self.counts > 0
        lo, hi = self.range
        eff = np.where(seen, self.eff_sums / n, np.nan)
        kw: dict[str, Any] = {"n_actions": self.n_doses, "scale": self.range, "horizon": self.horizon}
        e_up = np.where(seen, upper_bound("kl", self.eff_sums, self.counts, self.config.delta, **kw), hi)
        e_lo = np.where(seen, lower_bound("kl", self.eff_sums, self.counts, self.config.delta, **kw), lo)
        tox = np.where(seen, self.tox_sums / n, np.nan)
        return ArmEstimates(
            quantities=("reward", "cost 1"),
            estimate=np.column_stack([eff, tox]),
            lower=np.column_stack([e_lo, self.lower]),
            upper=np.column_stack([e_up, self.upper]),
            thresholds=(None, self.tau),
            unit="arm",
            interval=f"toxicity: {self.config.bound} per dose, combined by the declared step bound",
        )

    def assumption_contradictions(self) -> list[str]:
        """Where the doses' own intervals (data only; all hold at once w.p. ``1 - delta``) contradict the
        declared structure: a rise between two doses above the declared steps, a fall where toxicity is
        declared monotone, the safe dose (or its declared toxicity) outside its interval."""
        lo, up, rise = self.data_lower.copy(), self.data_upper.copy(), self.rise
        s, c0 = self.safe_dose, self.info.safe_cost
        out = []
        if c0 is not None and not lo[s] - TOL <= c0 <= up[s] + TOL:
            out.append(
                f"the declared safe_cost {c0:g} lies outside dose {s}'s interval [{lo[s]:.3g}, {up[s]:.3g}]"
            )
        if self.known_cost is not None:  # (the declared value stands for the safe dose in the checks below)
            lo[s] = up[s] = float(self.known_cost)
        gap = lo[None, :] - up[:, None] - rise  # (row i, column j > i: l_j - u_i - D(i, j))
        gap = np.where(np.triu(np.ones_like(gap, dtype=bool), 1), gap, -np.inf)
        if np.max(gap) > TOL:
            i, j = (int(v) for v in np.unravel_index(int(np.argmax(gap)), gap.shape))
            out.append(
                f"dose {j}'s toxicity is at least {lo[j]:.3g} and dose {i}'s at most {up[i]:.3g}: a rise "
                f"above the declared max_increase (total {rise[i, j]:.3g} from dose {i} to {j})"
            )
        fall = up[None, :] - lo[:, None]  # (row i, column j > i: u_j - l_i < 0 contradicts monotone)
        fall = np.where(np.triu(np.ones_like(fall, dtype=bool), 1), fall, np.inf)
        if self.monotone and np.min(fall) < -TOL:
            i, j = (int(v) for v in np.unravel_index(int(np.argmin(fall)), fall.shape))
            out.append(
                f"dose {j}'s toxicity is at most {up[j]:.3g} and dose {i}'s at least {lo[i]:.3g}: a fall, "
                "but monotone_cost = true"
            )
        if self.data_lower[s] > self.tau + TOL:
            out.append(
                f"the declared safe dose {s}'s toxicity is at least {self.data_lower[s]:.3g} > the limit "
                f"{self.tau:g}"
            )
        return out

    def patients_before_escalation(self, rate: float | None = None) -> tuple[float, str]:
        """Patients on the safe dose before the next dose can be certified from its data, at the empirical
        toxicity ``rate`` (default: the declared safe cost, else the lowest possible rate: a lower bound),
        rounded up to whole cohorts (``inf``: never), and the sentence that says how."""
        s, k = self.safe_dose, self.n_doses
        if s + 1 >= k:
            return math.inf, "the safe dose is the highest dose: there is nothing to escalate to"
        step = float(self.rise[s, s + 1])
        target = self.tau - step
        if self.known_cost is not None:
            ok = self.known_cost + step <= self.tau + TOL
            why = (
                f"the declared safe_cost {self.known_cost:g} plus the step {step:g} is "
                f"{'within' if ok else 'above'} the limit {self.tau:g}"
            )
            return (0.0 if ok else math.inf), why + (
                ": the next dose is certified before any patient"
                if ok
                else ": the safe dose's data cannot certify the next dose"
            )
        lo, hi = self.range
        p = self.info.safe_cost if rate is None else rate
        lowest = p is None
        p = lo if p is None else float(p)
        kw: dict[str, Any] = {"n_actions": k}
        if self.config.bound != "beta-mixture":
            kw["horizon"] = self.horizon
        unit = (target - lo) / (hi - lo)
        n = None
        if unit > 0:
            n = samples_until_below(self.config.bound, (p - lo) / (hi - lo), unit, self._side_delta(), **kw)
        why = (
            f"the next dose is certified once the safe dose's {self.config.bound} upper bound (delta = "
            f"{self.config.delta:g}, {k} doses) is at most the limit {self.tau:g} minus the step {step:g} = "
            f"{target:.3g}, at an observed toxicity rate of {p:g}"
            + (" (the lowest possible: a lower bound)" if lowest else "")
        )
        if n is None:
            return math.inf, why + ": never"
        cs = int(self.config.cohort_size)
        whole = math.ceil(n / cs) * cs
        return float(whole), why + f": {n:,} patients ({whole:,} in cohorts of {cs})"

    def diagnostics(self) -> dict[str, Any]:
        return {
            "certified": np.flatnonzero(self.safe).tolist(),
            "stopped": self.stopped,
            "stopped_at": self.stopped_at,
            "highest_given": self.highest_given,
        }
