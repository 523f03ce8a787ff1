"""A convex decision set with the loss parameter in the constraint: :class:`SafeLinearProblem`
(Safe-LUCB, GSLUCB)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_array,
    check_int,
    check_positive,
)
from safebandits.problems.declare.base import (
    Feedback,
    Problem,
    SimulatedProblem,
    _owner_fail,
)

__all__ = ["SafeLinearProblem"]


@dataclass(frozen=True, kw_only=True)
class SafeLinearProblem(Problem):
    """A linear bandit on a convex (or finite) decision set, safe at every round (Safe-LUCB, GSLUCB).

    Each round the learner plays ``x`` in ``D0`` and observes the loss ``mu^T x + noise``; every played
    ``x`` must satisfy ``mu^T B x <= c`` with the same unknown ``mu`` (Amani et al. 2019). The origin is
    the known safe action.

    Parameters
    ----------
    decision_set : DecisionSet or mapping
        ``{"kind": "ball", "center": [...], "radius": r}``, ``{"kind": "polytope", "g_mat": [[...]],
        "h_vec": [...]}`` (``G x <= h``) or ``{"kind": "arms", "arms": [[...]]}``; convex sets must hold the
        origin in their interior.
    b_mat : array-like of shape (d, d)
        ``B`` of the constraint.
    threshold : float
        ``c > 0``.
    feedback : Feedback, str or mapping, default gaussian with sigma 0.1
    param_norm_bound : float, default 1.0
        ``S >= ||mu||``.
    arm_norm_bound : float, optional
        ``L >= max ||x||`` (default: computed from the decision set, which is public).
    safety_gap : float, optional
        ``Delta`` when known (Safe-LUCB's default ``t_prime="t_delta"`` reads it).
    horizon : int, default 10_000
    """

    setting = "safe-linear"

    decision_set: Any
    b_mat: Any
    threshold: float
    feedback: Any = field(default_factory=lambda: {"kind": "gaussian", "sigma": 0.1})
    param_norm_bound: float = 1.0
    arm_norm_bound: float | None = None
    safety_gap: float | None = None
    horizon: int = 10_000

    def __post_init__(self) -> None:
        from safebandits.problems.safe_linear import DecisionSet

        owner = "SafeLinearProblem"
        ds = self.decision_set
        if isinstance(ds, Mapping):
            values = dict(ds)
            allowed = {"kind", "arms", "center", "radius", "g_mat", "h_vec"}
            if set(values) - allowed or "kind" not in values:
                raise _owner_fail(
                    owner, "decision_set", f"a mapping with 'kind' and keys among {sorted(allowed)}", dict(ds)
                )
            ds = DecisionSet(**values)
        if not isinstance(ds, DecisionSet):
            raise _owner_fail(owner, "decision_set", "a DecisionSet or a mapping", ds)
        object.__setattr__(self, "decision_set", ds)
        d = ds.dim
        object.__setattr__(self, "b_mat", check_array(self.b_mat, "b_mat", shape=(d, d), owner=owner))
        object.__setattr__(self, "threshold", check_positive(self.threshold, "threshold", owner=owner))
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        check_positive(self.param_norm_bound, "param_norm_bound", owner=owner)
        for attr in ("arm_norm_bound", "safety_gap"):
            if getattr(self, attr) is not None:
                check_positive(getattr(self, attr), attr, owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("safe-linear-arms",) if self.decision_set.kind == "arms" else ("safe-linear",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.safe_linear import SafeLinearInfo

        big_l = self.arm_norm_bound if self.arm_norm_bound is not None else self.decision_set.norm_bound()
        return SafeLinearInfo(
            decision_set=self.decision_set,
            b_mat=self.b_mat.copy(),
            threshold=self.threshold,
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            param_norm_bound=float(self.param_norm_bound),
            arm_norm_bound=float(big_l),
            safety_gap=self.safety_gap,
        )

    def simulate(self, *, mu: Any, sigma: float | None = None, name: str = "declared") -> SimulatedProblem:
        """Add the true loss parameter ``mu``."""
        return SimulatedProblem(problem=self, truth={"mu": mu, "sigma": sigma}, name=name)

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """Where ``truth`` breaks the declared bounds: ``||mu||`` above ``param_norm_bound``."""
        owner = "SafeLinearProblem.simulate"
        mu = check_array(truth.get("mu"), "mu", shape=(self.decision_set.dim,), owner=owner)
        norm, s = float(np.linalg.norm(mu)), float(self.param_norm_bound)
        if norm > s * (1 + 1e-9):
            return [
                f"mu: ||mu|| = {norm:.6g} exceeds param_norm_bound = {s:g}; declare param_norm_bound >= "
                f"{norm:.6g} or change the truth"
            ]
        return []

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.safe_linear import SafeLinearInstance

        owner = "SafeLinearProblem.simulate"
        mu = check_array(truth.get("mu"), "mu", shape=(self.decision_set.dim,), owner=owner)
        sigma = truth.get("sigma")
        fb = self.feedback if sigma is None else Feedback(self.feedback.kind, sigma)
        return SafeLinearInstance(
            decision_set=self.decision_set,
            mu=mu,
            b_mat=self.b_mat,
            threshold=self.threshold,
            noise=fb.model(),
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            param_norm_bound=float(self.param_norm_bound),
            arm_norm_bound=self.arm_norm_bound,
            name=name,
        )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["decision_set"] = self.decision_set.describe()
        out["decision_set"].pop("d", None)
        return out
