"""A conservative contextual linear problem: :class:`ConservativeLinearProblem`
(``setting = "conservative-linear"``).

Each round a context of ``n_actions`` actions with ``dim`` features; a baseline policy in production
(a fixed action, or the greedy action of a production scorer) and a tolerance ``alpha``: the learner's
cumulative reward must stay at least ``1 - alpha`` times the baseline policy's, at every round (or
every ``checkpoint`` rounds). See :mod:`safebandits.problems.conservative_linear`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._validation import check_array, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.problems.declare.base import Feedback, Problem, SimulatedProblem, _owner_fail

__all__ = ["ConservativeLinearProblem"]

#: Feedback this problem takes (rewards linear in the features plus noise).
_FEEDBACK = {"gaussian": "'gaussian'", "subgaussian": "'subgaussian'"}


@dataclass(frozen=True, kw_only=True)
class ConservativeLinearProblem(Problem):
    """Contexts of linear actions, a baseline policy and a tolerance ``alpha`` (Kazerouni et al. 2017).

    Parameters
    ----------
    dim : int >= 1
        Feature dimension ``d``.
    n_actions : int >= 2
        Actions per context.
    alpha : float in [0, 1]
        The cumulative reward must stay at least ``(1 - alpha)`` times the baseline policy's.
    baseline_action : int or None, default 0
        The baseline policy plays this action (row) in every context ...
    baseline_param : sequence of float (dim,) or None, default None
        ... or the action of largest ``<x, baseline_param>`` (a production scorer; wins over
        ``baseline_action``).
    known_baseline : bool, default True
        The baseline action's mean reward is shown with each context (CLUCB's setting).
    checkpoint : int >= 1, default 1
        Verify the constraint every ``checkpoint`` rounds (1: every round).
    baseline_floor : float >= 0, default 0.0
        ``r_l``: the baseline action's mean reward is at least this in every context (Kazerouni et al.'s
        lower bound on the baseline's reward); the checkpoint learner spends it between checkpoints.
    feedback : Feedback, str or mapping, default Gaussian with sigma 1
        ``"gaussian"`` / ``"subgaussian"`` (``sigma`` the noise scale).
    horizon : int, default 10_000
    param_bound : float > 0, default 1.0
        ``S >= ||theta*||``, the bound the learners' confidence sets rest on.
    """

    setting = "conservative-linear"

    dim: int
    n_actions: int
    alpha: float
    baseline_action: int | None = 0
    baseline_param: Any = None
    known_baseline: bool = True
    checkpoint: int = 1
    feedback: Any = field(default_factory=Feedback)
    horizon: int = 10_000
    param_bound: float = 1.0
    baseline_floor: float = 0.0

    def __post_init__(self) -> None:
        owner = "ConservativeLinearProblem"
        d = check_int(self.dim, "dim", low=1, high=10_000, owner=owner)
        k = check_int(self.n_actions, "n_actions", low=2, high=10_000, owner=owner)
        object.__setattr__(self, "dim", d)
        object.__setattr__(self, "n_actions", k)
        alpha = check_interval(self.alpha, "alpha", low=0.0, high=1.0, closed="both", owner=owner)
        object.__setattr__(self, "alpha", alpha)
        if self.baseline_param is not None:
            bp = check_array(self.baseline_param, "baseline_param", shape=(d,), owner=owner)
            object.__setattr__(self, "baseline_param", tuple(float(v) for v in bp))
        elif self.baseline_action is None:
            raise _owner_fail(owner, "baseline_action", "an action index, or a baseline_param", None)
        else:
            b = check_int(self.baseline_action, "baseline_action", low=0, high=k - 1, owner=owner)
            object.__setattr__(self, "baseline_action", b)
        if not isinstance(self.known_baseline, (bool, np.bool_)):
            raise _owner_fail(owner, "known_baseline", "true or false", self.known_baseline)
        object.__setattr__(self, "known_baseline", bool(self.known_baseline))
        object.__setattr__(self, "checkpoint", check_int(self.checkpoint, "checkpoint", low=1, owner=owner))
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner, _FEEDBACK))
        object.__setattr__(self, "param_bound", check_positive(self.param_bound, "param_bound", owner=owner))
        floor = check_interval(self.baseline_floor, "baseline_floor", low=0.0, closed="left", owner=owner)
        object.__setattr__(self, "baseline_floor", floor)
        self._horizon(None)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("conservative-linear",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.conservative_linear import ConservativeLinearInfo

        return ConservativeLinearInfo(
            dim=self.dim, n_actions=self.n_actions, alpha=self.alpha, known_baseline=self.known_baseline,
            checkpoint=self.checkpoint, horizon=horizon, noise_bound=self.feedback.noise_bound,
            noise_kind=self.feedback.kind, feature_bound=1.0, param_bound=self.param_bound,
            baseline_floor=self.baseline_floor,
        )  # fmt: skip

    def simulate(self, *, theta: Any, feature_low: float = 0.0, name: str = "declared") -> SimulatedProblem:
        """The truth: the reward parameter ``theta*`` (dim,), non-negative entries (the simulated
        features are non-negative), and the features' smallest coordinate ``feature_low`` (times
        ``sqrt(d)``; a floor under every mean reward, so a declared ``baseline_floor`` can hold)."""
        truth = {"theta": theta} if feature_low == 0.0 else {"theta": theta, "feature_low": feature_low}
        return SimulatedProblem(problem=self, truth=truth, name=name)  # (no new key by default: run keys)

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """``||theta*||`` against the declared ``param_bound``; the smallest mean the simulated contexts
        can give against the declared ``baseline_floor``."""
        try:
            theta = np.asarray(truth.get("theta"), dtype=np.float64).reshape(-1)
            low = float(truth.get("feature_low", 0.0))
        except (TypeError, ValueError):
            return []  # (the instance's own check names the problem)
        out = []
        norm = float(np.linalg.norm(theta))
        if theta.shape[0] == self.dim and norm > self.param_bound:
            out.append(f"||theta|| = {norm:g} exceeds param_bound = {self.param_bound:g}")
        lowest = low * float(theta.sum()) / float(np.sqrt(max(theta.shape[0], 1)))
        if theta.shape[0] == self.dim and self.baseline_floor > lowest * (1.0 + 1e-12):
            out.append(
                f"baseline_floor = {self.baseline_floor:g} exceeds {lowest:g}, the smallest mean reward the "
                f"simulated contexts can give (feature_low = {low:g})"
            )
        return out

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.conservative_linear import ConservativeLinearInstance

        owner = "ConservativeLinearProblem.simulate"
        theta = check_array(truth.get("theta"), "theta", shape=(self.dim,), owner=owner)
        if np.any(theta < 0.0):
            raise ConfigError(f"{owner}: theta must be non-negative. Got {theta.tolist()} instead.")
        bp = None if self.baseline_param is None else np.asarray(self.baseline_param, dtype=np.float64)
        return ConservativeLinearInstance(
            theta=theta, n_actions=self.n_actions, alpha=self.alpha, baseline_action=self.baseline_action,
            baseline_param=bp, known_baseline=self.known_baseline, checkpoint=self.checkpoint,
            noise=self.feedback.model(), horizon=horizon, noise_bound=self.feedback.noise_bound,
            param_bound=self.param_bound, baseline_floor=self.baseline_floor,
            feature_low=check_interval(
                truth.get("feature_low", 0.0), "feature_low", low=0.0, high=1.0, closed="left", owner=owner
            ),
            name=name,
        )  # fmt: skip
