"""The structure dose trials assume (issue 45, item 2): toxicity non-decreasing in the dose and a declared
largest increase per dose step, and the ``"dose"`` view a dose-escalation learner reads.

A :class:`~safebandits.problems.declare_covariate.CovariateProblem` with one covariate (the dose) in
increasing order declares it with ``monotone_cost = true`` and ``max_increase`` (one value for every
step, or one per step: ``max_increase[j]`` bounds ``c_{j+1} - c_j``, doses ``j`` and ``j + 1`` in the
covariates' order). Both are assumptions of the per-patient guarantee: a truth that breaks them is named
by :func:`structure_violations` (``safebandits run`` refuses it, or runs it and flags every run), and data
that contradict them raise the watcher's flag (the learner's ``assumption_contradictions``).

:class:`DoseInfo` is what the learner is told (never the truth): the doses, the limit, the safe dose and
its known toxicity when declared, the steps, whether toxicity is monotone, the outcome range, the horizon.
The certification rule and its derivation: ``docs/decisions/bounds.md`` ("Dose escalation with a
declared step bound").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits._validation import check_int, check_interval
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "DoseInfo",
    "check_doses",
    "check_max_increase",
    "checked_structure",
    "dose_info",
    "step_values",
    "structure_violations",
]

#: Feedback kinds whose outcomes are bounded, with their range (the dose view needs one).
OUTCOME_RANGES = {"bernoulli": (0.0, 1.0), "binary": (-1.0, 1.0)}


def check_max_increase(value: Any, n_doses: int, span: float, owner: str) -> tuple[float, ...]:
    """``max_increase`` as one positive value per dose step (``n_doses - 1`` of them): a number (every
    step) or a list of one per step, each in ``(0, span]`` (``span``: the width of the outcome range)."""
    steps = n_doses - 1
    raw = value if isinstance(value, (list, tuple, np.ndarray)) else [value] * max(steps, 1)
    if len(raw) != max(steps, 1):
        raise ConfigError(
            f"The 'max_increase' parameter of {owner} must be one number, or one per dose step ({steps} for "
            f"{n_doses} doses). Got {len(raw)} values instead."
        )
    out = []
    for j, v in enumerate(raw):
        name = "max_increase" if not isinstance(value, (list, tuple, np.ndarray)) else f"max_increase[{j}]"
        out.append(check_interval(v, name, low=0.0, high=span, closed="right", owner=owner))
    return tuple(out[:steps])


def check_doses(covariates: FloatArray, owner: str) -> None:
    """The dose structure needs one covariate per action (the dose), strictly increasing."""
    if covariates.shape[1] != 1:
        raise ConfigError(
            f"The 'max_increase' and 'monotone_cost' parameters of {owner} need one covariate per action "
            f"(the dose); got {covariates.shape[1]} per action."
        )
    d = covariates[:, 0]
    if d.size > 1 and not np.all(np.diff(d) > 0):
        raise ConfigError(
            f"The 'covariates' parameter of {owner} must list the doses in increasing order when "
            f"'max_increase' or 'monotone_cost' is declared (dose steps are read in that order). Got "
            f"{d.tolist()} instead."
        )


def checked_structure(
    monotone: Any, max_increase: Any, covariates: FloatArray, mean_range: tuple[float, float]
) -> tuple[bool, Any]:
    """A covariate declaration's ``monotone_cost`` and ``max_increase`` checked: ``(monotone, steps)``,
    ``steps`` one number when every step has the same bound, else a list (as the user would write it)."""
    owner = "CovariateProblem"
    if not isinstance(monotone, (bool, np.bool_)):
        raise ConfigError(
            f"The 'monotone_cost' parameter of {owner} must be true or false. Got {monotone!r}."
        )
    if max_increase is None and not monotone:
        return False, None
    check_doses(covariates, owner)
    if max_increase is None:
        return bool(monotone), None
    steps = step_values(max_increase, covariates.shape[0], mean_range)
    return bool(monotone), (steps[0] if len(set(steps)) == 1 else list(steps))


def step_values(max_increase: Any, n_doses: int, mean_range: tuple[float, float]) -> tuple[float, ...] | None:
    """``max_increase`` as one value per step (``None`` when not declared)."""
    if max_increase is None:
        return None
    return check_max_increase(max_increase, n_doses, mean_range[1] - mean_range[0], "CovariateProblem")


def dose_info(problem: Any, horizon: int) -> DoseInfo:
    """The ``"dose"`` view of a :class:`~safebandits.problems.declare_covariate.CovariateProblem`."""
    return DoseInfo(
        doses=problem.covariates[:, 0],
        threshold=float(problem.threshold),
        safe_action=problem.safe_action,
        max_increase=problem.steps,
        monotone=problem.monotone_cost,
        safe_cost=problem.safe_cost,
        safe_reward=problem.safe_reward,
        outcome_range=problem._mean_range(),
        noise_kind=problem.feedback.kind,
        horizon=horizon,
    )


def structure_violations(cost: Any, monotone: bool, steps: tuple[float, ...] | None) -> list[str]:
    """Where the toxicity means ``cost`` (in dose order) break the declared structure, in words."""
    c = np.asarray(cost, dtype=np.float64)
    diff = np.diff(c)
    out = []
    if monotone and np.any(diff < -1e-12):
        j = int(np.flatnonzero(diff < -1e-12)[0])
        out.append(
            f"the simulated toxicity falls from {c[j]:.4g} at dose {j} to {c[j + 1]:.4g} at dose {j + 1}, "
            "but monotone_cost = true declares it non-decreasing in the dose: the dose-escalation learner's "
            "per-patient safety does not hold for this truth"
        )
    if steps is not None:
        over = np.flatnonzero(diff > np.asarray(steps) * (1 + 1e-9) + 1e-12)
        if over.size:
            j = int(over[0])
            out.append(
                f"the simulated toxicity rises by {diff[j]:.4g} from dose {j} to dose {j + 1} > max_increase "
                f"{steps[j]:g} for that step: the dose-escalation learner's per-patient safety does not hold "
                "for this truth"
            )
    return out


@dataclass(frozen=True, kw_only=True)
class DoseInfo:
    """What a dose-escalation learner is told: ordered doses, a toxicity limit, a safe dose and the
    declared structure (never the truth).

    Attributes
    ----------
    doses : ndarray of shape (K,)
        The doses, increasing.
    threshold : float
        The limit on the mean toxicity.
    safe_action : int
        The dose known to be below the limit (every lower dose is too, when toxicity is monotone).
    safe_cost, safe_reward : float or None
        The safe dose's known toxicity and efficacy means, when declared.
    max_increase : tuple of float
        ``m_j >= c_{j+1} - c_j`` for each step ``j`` (``K - 1`` values).
    monotone : bool
        Toxicity non-decreasing in the dose.
    outcome_range : (float, float)
        The range of one outcome (``(0, 1)`` for Bernoulli feedback).
    noise_kind : str
        ``"bernoulli"`` or ``"binary"``.
    horizon : int
        Patients ``T``.
    """

    doses: FloatArray
    threshold: float
    safe_action: int
    max_increase: tuple[float, ...]
    monotone: bool = False
    safe_cost: float | None = None
    safe_reward: float | None = None
    outcome_range: tuple[float, float] = (0.0, 1.0)
    noise_kind: str = "bernoulli"
    horizon: int = 10_000

    def __post_init__(self) -> None:
        owner = "DoseInfo"
        doses = np.array(self.doses, dtype=np.float64).reshape(-1)
        doses.setflags(write=False)
        object.__setattr__(self, "doses", doses)
        k = doses.size
        if k < 1 or not np.all(np.isfinite(doses)) or (k > 1 and not np.all(np.diff(doses) > 0)):
            raise ConfigError(f"The 'doses' of {owner} must be finite and increasing. Got {doses.tolist()}.")
        lo, hi = (float(v) for v in self.outcome_range)
        object.__setattr__(self, "outcome_range", (lo, hi))
        check_interval(self.threshold, "threshold", low=lo, high=hi, owner=owner)
        check_int(self.safe_action, "safe_action", low=0, high=k - 1, owner=owner)
        steps = tuple(float(v) for v in self.max_increase)
        if len(steps) != k - 1 or not all(0.0 < v <= hi - lo for v in steps):
            raise ConfigError(
                f"The 'max_increase' of {owner} must be {k - 1} values in (0, {hi - lo:g}]. Got {steps}."
            )
        object.__setattr__(self, "max_increase", steps)
        if self.safe_cost is not None and not lo <= self.safe_cost < self.threshold:
            raise ConfigError(
                f"The 'safe_cost' of {owner} must be in [{lo:g}, threshold {self.threshold:g}). Got "
                f"{self.safe_cost!r}."
            )
        check_int(self.horizon, "horizon", low=1, owner=owner)

    @property
    def n_actions(self) -> int:
        return int(self.doses.size)

    @property
    def n_constraints(self) -> int:
        return 1

    def step_sums(self) -> FloatArray:
        """``D[i, j] = m_i + ... + m_{j-1}`` for ``i < j`` (0 on and below the diagonal): the declared
        largest rise of toxicity from dose ``i`` to dose ``j``."""
        cum = np.concatenate([[0.0], np.cumsum(self.max_increase)])
        return np.maximum(cum[None, :] - cum[:, None], 0.0)

    def describe(self) -> str:
        steps = set(self.max_increase)
        told = f"{self.max_increase[0]:g} every step" if len(steps) == 1 else f"{list(self.max_increase)}"
        mono = "non-decreasing" if self.monotone else "not declared monotone"
        return f"{self.n_actions} doses, limit {self.threshold:g}, toxicity {mono}, max increase {told}"


def dose_view_reason(covariates: FloatArray, feedback_kind: str, max_increase: Any) -> str | None:
    """Why a covariate declaration has no ``"dose"`` view (``None``: it has one)."""
    if max_increase is None:
        return (
            "the dose-escalation learner needs the structure dose trials assume: declare max_increase (the "
            "largest toxicity increase per dose step) and monotone_cost = true"
        )
    if feedback_kind not in OUTCOME_RANGES:
        return "the dose-escalation learner's bounds need bounded outcomes (feedback 'bernoulli' or 'binary')"
    if covariates.shape[1] != 1 or math.isnan(float(covariates[0, 0])):
        return "the dose view needs one covariate per action (the dose)"
    return None
