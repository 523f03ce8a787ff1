"""Conservative bandits: never fall far behind the system already in production.

Setting (Wu, Shariff, Lattimore & Szepesvari, "Conservative Bandits", ICML 2016; digest in
``docs/papers/conservative_ucb.md``). ``K`` arms, one of them the *default arm* ``0`` (the action
production plays today), rewards ``X_t = mu_{I_t} + noise``. The learner must keep, at every round ``t``
(with high probability),

    sum_{s <= t} mu_{I_s}  >=  (1 - alpha) * t * mu_0,

its cumulative (expected) reward at least ``1 - alpha`` times what the default arm alone would have
earned; ``mu_0`` is known or not (the learner estimates it from the default arm's own pulls).

The constraint's ingredients are kept in one record, :class:`ConservativeConstraint` -- the tolerance
``alpha``, the rounds at which it is verified (every round, or every ``checkpoint`` rounds: the
checkpoint variant of Garcelon et al., AISTATS 2020) and the baseline's reward of each round -- so that a
baseline *policy* (an action per context, Kazerouni et al. 2017) fits the same record later: only the
baseline's per-round means change, not the check.

:class:`ConservativeInfo` is what a conservative learner is told (never the means);
:class:`ConservativeInstance` is the ground truth, built on a K-armed
:class:`~safebandits.problems.stagewise.StagewiseInstance` without costs (the environment, the regret
oracle and the compiled feedback are that instance's), plus the constraint the results record every
round.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._limits import MAX_BUDGET
from safebandits._validation import check_array, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.problems.noise import GaussianNoise, NoiseModel
from safebandits.problems.stagewise import StagewiseInstance
from safebandits.types import FloatArray

__all__ = [
    "ConservativeConstraint",
    "ConservativeInfo",
    "ConservativeInstance",
    "ConservativeTracker",
    "conservative_margins",
]

#: Tolerance of the constraint check under the truth (a margin below ``-TOL`` is a violation).
TOL = 1e-9


@dataclass(frozen=True, slots=True)
class ConservativeConstraint:
    """The conservative constraint as the results check it under the truth.

    Attributes
    ----------
    alpha : float in [0, 1]
        The tolerated fraction of the baseline's reward.
    checkpoint : int >= 1
        The constraint is verified at rounds ``checkpoint, 2 checkpoint, ...`` (1: every round).
    baseline_mean : float
        The baseline's mean reward per round (the default arm's ``mu_0``).
    """

    alpha: float
    checkpoint: int = 1
    baseline_mean: float = 0.0

    def __post_init__(self) -> None:
        owner = "ConservativeConstraint"
        check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        check_int(self.checkpoint, "checkpoint", low=1, owner=owner)
        check_interval(self.baseline_mean, "baseline_mean", owner=owner)


def conservative_margins(
    played_means: FloatArray,
    constraint: ConservativeConstraint,
    *,
    carried: float = 0.0,
    baseline: FloatArray | None = None,
) -> FloatArray:
    """The constraint's margin after each round: ``sum_{s<=t} mu_{I_s} - (1 - alpha) sum_{s<=t} r(b_s)``.

    ``played_means`` (k,) are the true means of the arms played in k consecutive rounds; ``carried`` the
    margin before the first of them; ``baseline`` (k,) the baseline's true mean reward in each of those
    rounds (a baseline policy: an action per context), ``None`` for the constant ``mu_0`` of the record.
    A negative margin at a verified round is a violation.
    """
    means = np.asarray(played_means, dtype=np.float64)
    base = constraint.baseline_mean if baseline is None else np.asarray(baseline, dtype=np.float64)
    step = means - (1.0 - constraint.alpha) * base
    return carried + np.cumsum(step)


class ConservativeTracker:
    """The conservative constraint under the truth, round by round (instances with a ``constraint``
    record, :class:`ConservativeConstraint`; the regret loop feeds it the true means of the arms played):
    the margin ``sum_{s<=t} mu_{I_s} - (1 - alpha) sum_{s<=t} r(b_s)`` after every round, the verified
    rounds (every ``checkpoint``-th) where it is negative (beyond ``TOL``), the first of them, the smallest
    verified margin, and the margin at the curves' grid points."""

    def __init__(self, constraint: Any, grid: np.ndarray) -> None:
        self.constraint, self.grid = constraint, grid
        self.margin, self.violations, self.first, self.min_margin = 0.0, 0, 0, math.inf
        self.curve: list[float] = []

    @classmethod
    def of(cls, instance: Any, grid: np.ndarray) -> ConservativeTracker | None:
        """A tracker for ``instance`` if it has a conservative ``constraint`` record, else ``None``."""
        constraint = getattr(instance, "constraint", None)
        return cls(constraint, grid) if isinstance(constraint, ConservativeConstraint) else None

    def update(self, rewards: np.ndarray, t0: int, baseline: np.ndarray | None = None) -> None:
        """Rounds ``t0 + 1 .. t0 + k`` with true mean rewards ``rewards`` (k,) (and the baseline policy's
        true mean rewards ``baseline`` (k,) in those rounds, where the baseline is a policy)."""
        margins = conservative_margins(rewards, self.constraint, carried=self.margin, baseline=baseline)
        k, tau = margins.shape[0], self.constraint.checkpoint
        first = (-t0 - 1) % tau  # (the index of the first verified round, t0 + 1 + first a multiple of tau)
        checked = margins[first::tau]
        if checked.size:
            bad = np.flatnonzero(checked < -TOL)
            if bad.size and self.violations == 0:
                self.first = t0 + 1 + first + int(bad[0]) * tau
            self.violations += int(bad.size)
            self.min_margin = min(self.min_margin, float(checked.min()))
        lo = int(np.searchsorted(self.grid, t0 + 1, side="left"))  # (the grid: sorted, unique rounds)
        hi = int(np.searchsorted(self.grid, t0 + k, side="right"))
        self.curve.extend(margins[self.grid[lo:hi] - (t0 + 1)].tolist())
        self.margin = float(margins[-1])

    def summary(self) -> dict[str, Any]:
        """The run's record (:attr:`~safebandits.experiments.regret_loop.RegretOutcome.conservative`)."""
        return {
            "violations": self.violations,
            "first_violation": self.first,
            "min_margin": self.min_margin if math.isfinite(self.min_margin) else float("nan"),
            "margin": self.margin,
            "alpha": self.constraint.alpha,
            "checkpoint": self.constraint.checkpoint,
            "curve": np.asarray(self.curve, dtype=np.float64),
        }


def _read_only(a: Any) -> np.ndarray:
    out = np.array(a, dtype=np.float64)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, slots=True)
class ConservativeInfo:
    """What a conservative learner is told (never the means).

    Attributes
    ----------
    n_arms : int >= 2
        Number of arms ``K``, the default arm included.
    alpha : float in [0, 1]
        Tolerance: the cumulative reward must stay at least ``1 - alpha`` times the default arm's.
    default_arm : int, default 0
        The default arm (the action production plays).
    default_mean : float or None, default None
        ``mu_0`` when known (Conservative UCB's known-mean variant), ``None`` when not (it is estimated).
    checkpoint : int >= 1, default 1
        The constraint is verified every ``checkpoint`` rounds (1: every round, the paper's).
    horizon : int, default 10_000
    noise_bound : float > 0, default 1.0
        Sub-Gaussian constant ``R`` of the reward noise (the paper's rewards are 1-sub-Gaussian).
    noise_kind : str, default "gaussian"
    mean_bound : float or None, default 1.0
        Declared bound on the means, ``0 <= mu_i <= mean_bound`` (the lower confidence bounds are clipped
        at 0: the means are taken non-negative).
    """

    n_arms: int
    alpha: float
    default_arm: int = 0
    default_mean: float | None = None
    checkpoint: int = 1
    horizon: int = 10_000
    noise_bound: float = 1.0
    noise_kind: str = "gaussian"
    mean_bound: float | None = 1.0

    def __post_init__(self) -> None:
        owner = "ConservativeInfo"
        k = check_int(self.n_arms, "n_arms", low=2, owner=owner)
        check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        check_int(self.default_arm, "default_arm", low=0, high=k - 1, owner=owner)
        check_int(self.checkpoint, "checkpoint", low=1, owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        if self.mean_bound is not None:
            check_positive(self.mean_bound, "mean_bound", owner=owner)
        if self.default_mean is not None:
            high = math.inf if self.mean_bound is None else float(self.mean_bound)
            mu0 = check_interval(
                self.default_mean, "default_mean", low=0.0, high=high, closed="both", owner=owner
            )
            object.__setattr__(self, "default_mean", mu0)

    @property
    def known_default(self) -> bool:
        return self.default_mean is not None

    @property
    def safe_arm(self) -> int:
        """The default arm (the name the runner's generic loop reads)."""
        return int(self.default_arm)


@dataclass(frozen=True, kw_only=True, slots=True)
class ConservativeInstance:
    """Ground truth of a conservative multi-armed bandit.

    Parameters
    ----------
    means : ndarray of shape (K,)
        True mean rewards, non-negative.
    alpha : float in [0, 1]
    default_arm : int, default 0
    known_default : bool, default True
        Tell learners ``mu_0`` (the known-mean variant) or not.
    checkpoint : int >= 1, default 1
    noise : NoiseModel, default Gaussian with sigma 1 (the paper's)
    horizon : int, default 10_000
    noise_bound : float or None
        ``R`` told to learners (default: the noise's sigma; 1/2 for Bernoulli).
    mean_bound : float or None, default 1.0
    name : str
    """

    means: FloatArray
    alpha: float
    default_arm: int = 0
    known_default: bool = True
    checkpoint: int = 1
    noise: NoiseModel = field(default_factory=GaussianNoise)
    horizon: int = 10_000
    noise_bound: float | None = None
    mean_bound: float | None = 1.0
    name: str = "conservative"
    _base: StagewiseInstance = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "ConservativeInstance"
        means = check_array(self.means, "means", ndim=1, owner=owner)
        k = means.shape[0]
        if k < 2:
            raise ConfigError(f"The 'means' parameter of {owner} must hold at least 2 arms. Got {k} instead.")
        if np.any(means < 0.0):
            raise ConfigError(
                f"The 'means' parameter of {owner} must be non-negative (Conservative UCB clips its lower "
                f"bounds at 0). Got {means.tolist()} instead."
            )
        if self.mean_bound is not None and np.any(means > float(self.mean_bound)):
            raise ConfigError(
                f"The 'means' parameter of {owner} must be at most mean_bound = {self.mean_bound:g}. "
                f"Got {means.tolist()} instead."
            )
        check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        check_int(self.default_arm, "default_arm", low=0, high=k - 1, owner=owner)
        check_int(self.checkpoint, "checkpoint", low=1, owner=owner)
        object.__setattr__(self, "means", _read_only(means))
        eye = np.eye(k)
        base = StagewiseInstance(
            arms=eye, safe_action=eye[self.default_arm], reward_param=means, cost_params=np.zeros((0, k)),
            threshold=np.zeros(0), noise=self.noise, action_set="simplex", horizon=self.horizon,
            name=self.name,
        )  # fmt: skip
        object.__setattr__(self, "_base", base)

    # -- the truth the results read --------------------------------------------------------------
    @property
    def n_arms(self) -> int:
        return int(self.means.shape[0])

    @property
    def default_mean(self) -> float:
        return float(self.means[self.default_arm])

    @property
    def constraint(self) -> ConservativeConstraint:
        """The conservative constraint under the truth (:class:`ConservativeConstraint`)."""
        return ConservativeConstraint(self.alpha, int(self.checkpoint), self.default_mean)

    # the regret loop's names (a K-armed linear instance without costs)
    arms = property(lambda self: self._base.arms)
    safe_action = property(lambda self: self._base.safe_action)
    safe_arm = property(lambda self: int(self.default_arm))
    reward_param = property(lambda self: self._base.reward_param)
    cost_params = property(lambda self: self._base.cost_params)
    threshold = property(lambda self: self._base.threshold)
    optimal_value = property(lambda self: float(np.max(self.means)))
    optimal_policy_value = property(lambda self: float(np.max(self.means)))
    n_constraints = property(lambda self: 0)

    def environment(self, rng: np.random.Generator) -> Any:
        """The simulated environment (the K-armed linear environment: a reward, no costs)."""
        return self._base.environment(rng)

    def public_info(self) -> ConservativeInfo:
        sigma = getattr(self.noise, "sigma", 0.5)
        r = float(self.noise_bound) if self.noise_bound is not None else float(sigma)
        return ConservativeInfo(
            n_arms=self.n_arms, alpha=float(self.alpha), default_arm=int(self.default_arm),
            default_mean=self.default_mean if self.known_default else None, checkpoint=int(self.checkpoint),
            horizon=int(self.horizon), noise_bound=r, noise_kind=self.noise.name.split("(")[0],
            mean_bound=self.mean_bound,
        )  # fmt: skip

    def privileged_info(self) -> ConservativeInfo:
        return self.public_info()

    def with_horizon(self, horizon: int) -> ConservativeInstance:
        return dataclasses.replace(self, horizon=horizon)
