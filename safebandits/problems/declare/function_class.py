"""Finite reward and cost function classes: :class:`FunctionClassProblemSpec` (OPNLB)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_int,
    check_interval,
)
from safebandits.exceptions import ConfigError
from safebandits.problems.declare.base import (
    Feedback,
    Problem,
    SimulatedProblem,
)
from safebandits.problems.stagewise import check_safe_cost

__all__ = ["FunctionClassProblemSpec"]


@dataclass(frozen=True, kw_only=True)
class FunctionClassProblemSpec(Problem):
    """Finite reward and cost function classes on ``n`` actions (OPNLB), declared without the truth.

    Parameters
    ----------
    reward_class, cost_class : array-like of shape (n_functions, n)
        Candidate reward and cost functions (values in ``[0, 1]``), one per row.
    threshold : float
        ``tau``.
    safe_arm : int
        Known safe action ``x0``.
    safe_reward, safe_cost : float
        Known ``r0`` and ``c0 < tau`` (Assumption 5).
    feedback : Feedback, str or mapping, default "bernoulli"
        Bernoulli (the paper's assumption) or Gaussian.
    horizon : int, default 10_000
    """

    setting = "function-class"

    reward_class: Any
    cost_class: Any
    threshold: float
    safe_arm: int
    safe_reward: float
    safe_cost: float
    feedback: Any = "bernoulli"
    horizon: int = 10_000

    def __post_init__(self) -> None:
        from safebandits.problems.function_class import _check_class

        owner = "FunctionClassProblemSpec"
        g_r = _check_class(self.reward_class, "reward_class", None, owner)
        g_c = _check_class(self.cost_class, "cost_class", g_r.shape[1], owner)
        object.__setattr__(self, "reward_class", g_r)
        object.__setattr__(self, "cost_class", g_c)
        check_int(self.safe_arm, "safe_arm", low=0, high=g_r.shape[1] - 1, owner=owner)
        tau = check_interval(self.threshold, "threshold", low=0.0, closed="neither", owner=owner)
        object.__setattr__(self, "threshold", tau)
        object.__setattr__(self, "safe_reward", check_interval(self.safe_reward, "safe_reward", owner=owner))
        c0 = check_interval(self.safe_cost, "safe_cost", owner=owner)
        check_safe_cost(c0, tau, owner=owner)
        object.__setattr__(self, "safe_cost", c0)
        allowed = {"bernoulli": "Bernoulli", "gaussian": "Gaussian"}
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner, allowed))
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("function-class",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.function_class import FunctionClassInfo

        return FunctionClassInfo(
            reward_class=self.reward_class.copy(),
            cost_class=self.cost_class.copy(),
            safe_arm=self.safe_arm,
            safe_reward=self.safe_reward,
            safe_cost=self.safe_cost,
            threshold=self.threshold,
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            noise_kind=self.feedback.kind,
        )

    def simulate(self, *, true_reward: int, true_cost: int, name: str = "declared") -> SimulatedProblem:
        """The truth: which row of each class is the true function."""
        return SimulatedProblem(
            problem=self, truth={"true_reward": true_reward, "true_cost": true_cost}, name=name
        )

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.function_class import FunctionClassProblem

        owner = "FunctionClassProblemSpec.simulate"
        i = check_int(
            truth.get("true_reward"), "true_reward", low=0, high=self.reward_class.shape[0] - 1, owner=owner
        )
        j = check_int(
            truth.get("true_cost"), "true_cost", low=0, high=self.cost_class.shape[0] - 1, owner=owner
        )
        r0, c0 = self.reward_class[i, self.safe_arm], self.cost_class[j, self.safe_arm]
        if not (
            math.isclose(r0, self.safe_reward, abs_tol=1e-9)
            and math.isclose(c0, self.safe_cost, abs_tol=1e-9)
        ):
            raise ConfigError(
                f"{owner}: the declared safe values (r0={self.safe_reward}, c0={self.safe_cost}) "
                f"differ from the truth's (r0={r0}, c0={c0})."
            )
        return FunctionClassProblem(
            reward_class=self.reward_class,
            cost_class=self.cost_class,
            true_reward=i,
            true_cost=j,
            threshold=self.threshold,
            safe_arm=self.safe_arm,
            noise=self.feedback.kind,
            sigma=self.feedback.sigma,
            horizon=horizon,
            name=name,
        ).instance()
