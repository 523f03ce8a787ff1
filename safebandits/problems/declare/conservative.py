"""A conservative multi-armed problem: :class:`ConservativeProblem` (``setting = "conservative"``).

K arms, one of them the default arm production plays today (its mean known or not), and a tolerance
``alpha``: the learner's cumulative reward must stay at least ``1 - alpha`` times the default arm's, at
every round (or every ``checkpoint`` rounds). See :mod:`safebandits.problems.conservative`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._validation import check_array, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.problems.declare.base import Feedback, Problem, SimulatedProblem, _owner_fail

__all__ = ["ConservativeProblem"]

#: Feedback a conservative problem takes (the means are non-negative: binary outcomes in {-1, 1} are out).
_FEEDBACK = {
    "gaussian": "'gaussian'",
    "subgaussian": "'subgaussian'",
    "bernoulli": "'bernoulli' (outcomes in {0, 1})",
}


@dataclass(frozen=True, kw_only=True)
class ConservativeProblem(Problem):
    """K arms with a default arm and a tolerance ``alpha`` (the conservative bandit of Wu et al. 2016).

    Parameters
    ----------
    n_arms : int >= 2
        Number of arms, the default arm included.
    alpha : float in [0, 1]
        The cumulative reward must stay at least ``(1 - alpha)`` times what the default arm alone would
        have earned (``alpha = 0.1``: never lose more than 10% of today's revenue).
    default_arm : int, default 0
        The arm production plays today.
    default_mean : float or None, default None
        Its mean reward when known (``None``: unknown, the learners estimate it).
    checkpoint : int >= 1, default 1
        Verify the constraint every ``checkpoint`` rounds (1: every round).
    feedback : Feedback, str or mapping, default Gaussian with sigma 1
        ``"gaussian"`` / ``"subgaussian"`` (``sigma`` the noise scale) or ``"bernoulli"``.
    horizon : int, default 10_000
    mean_bound : float > 0, default 1.0
        The means lie in ``[0, mean_bound]`` (a Bernoulli problem: 1).
    """

    setting = "conservative"

    n_arms: int
    alpha: float
    default_arm: int = 0
    default_mean: float | None = None
    checkpoint: int = 1
    feedback: Any = field(default_factory=Feedback)
    horizon: int = 10_000
    mean_bound: float = 1.0

    def __post_init__(self) -> None:
        owner = "ConservativeProblem"
        k = check_int(self.n_arms, "n_arms", low=2, high=100_000, owner=owner)
        object.__setattr__(self, "n_arms", k)
        object.__setattr__(
            self, "alpha", check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        )
        object.__setattr__(
            self, "default_arm", check_int(self.default_arm, "default_arm", low=0, high=k - 1, owner=owner)
        )
        object.__setattr__(self, "checkpoint", check_int(self.checkpoint, "checkpoint", low=1, owner=owner))
        fb = Feedback.coerce(self.feedback, owner, _FEEDBACK)
        object.__setattr__(self, "feedback", fb)
        bound = check_positive(self.mean_bound, "mean_bound", owner=owner)
        if fb.kind == "bernoulli" and bound != 1.0:
            raise _owner_fail(owner, "mean_bound", "1 with Bernoulli feedback (means in [0, 1])", bound)
        object.__setattr__(self, "mean_bound", bound)
        if self.default_mean is not None:
            mu0 = check_interval(
                self.default_mean, "default_mean", low=0.0, high=bound, closed="both", owner=owner
            )
            object.__setattr__(self, "default_mean", mu0)
        self._horizon(None)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("conservative",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.conservative import ConservativeInfo

        return ConservativeInfo(
            n_arms=self.n_arms, alpha=self.alpha, default_arm=self.default_arm,
            default_mean=self.default_mean, checkpoint=self.checkpoint, horizon=horizon,
            noise_bound=self.feedback.noise_bound, noise_kind=self.feedback.kind, mean_bound=self.mean_bound,
        )  # fmt: skip

    def simulate(self, *, means: Any, name: str = "declared") -> SimulatedProblem:
        """The truth: every arm's mean reward (the default arm's included)."""
        return SimulatedProblem(problem=self, truth={"means": means}, name=name)

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """The truth's means against the declared bounds: ``[0, mean_bound]`` and the known default mean."""
        try:
            means = np.asarray(truth.get("means"), dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            return []  # (the instance's own check names the problem)
        out = []
        if means.shape[0] == self.n_arms:
            bad = [f"{v:g}" for v in means if not 0.0 <= v <= self.mean_bound]
            if bad:
                out.append(f"means {', '.join(bad)} outside [0, mean_bound = {self.mean_bound:g}]")
            mu0 = float(means[self.default_arm])
            if self.default_mean is not None and not math.isclose(mu0, self.default_mean, abs_tol=1e-12):
                out.append(
                    f"default arm's mean {mu0:g} differs from the declared default_mean {self.default_mean:g}"
                )
        return out

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.conservative import ConservativeInstance

        owner = "ConservativeProblem.simulate"
        means = check_array(truth.get("means"), "means", shape=(self.n_arms,), owner=owner)
        if np.any(means < 0.0):
            raise ConfigError(f"{owner}: the means must be non-negative. Got {means.tolist()} instead.")
        # (the declared bounds are checked by truth_violations, before a run; the view carries mean_bound)
        return ConservativeInstance(
            means=means, alpha=self.alpha, default_arm=self.default_arm,
            known_default=self.default_mean is not None, checkpoint=self.checkpoint,
            noise=self.feedback.model(), horizon=horizon, noise_bound=self.feedback.noise_bound,
            mean_bound=None, name=name,
        )  # fmt: skip
