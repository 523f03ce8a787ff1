"""Core records exchanged between learners, environments and the runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ArmSetMixin",
    "BatchObservation",
    "Decision",
    "FloatArray",
    "IntArray",
    "Observation",
    "Recommendation",
]

FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]
BoolArray: TypeAlias = NDArray[np.bool_]


class ArmSetMixin:
    """``n_arms`` and ``dim`` of anything holding an ``arms`` matrix of shape (n_arms, d)."""

    __slots__ = ()
    arms: FloatArray

    @property
    def n_arms(self) -> int:
        return self.arms.shape[0]

    @property
    def dim(self) -> int:
        return self.arms.shape[1]


class Decision(NamedTuple):
    """What a learner asks to play (an immutable record; a NamedTuple because it is built once per sample).

    Exactly one of ``arm`` (one pull) or ``counts`` (a batch: number of pulls of each arm)
    is set, except for continuous actions, where ``point`` alone may be set. ``probs`` optionally
    carries the distribution a randomised policy sampled ``arm`` from.

    Attributes
    ----------
    arm : int or None
        Index of the arm to pull once.
    counts : ndarray of shape (n_arms,) or None
        Number of pulls per arm of a batch (round-based learners).
    probs : ndarray of shape (n_arms,) or None
        Sampling distribution of a randomised policy over the rows of the round's action matrix;
        where the safe action ``x0`` is not one of those rows, the mass ``1 - probs.sum()`` is on
        ``x0`` (stage-wise constrained bandits).
    point : ndarray of shape (d,) or None
        The action vector actually played, for learners that play points that are not rows of the
        action matrix (e.g. LC-LUCB's scaled point on a ray from ``x0``).
    """

    arm: int | None = None
    counts: IntArray | None = None
    probs: FloatArray | None = None
    point: FloatArray | None = None

    @property
    def n_samples(self) -> int:
        """Number of samples this decision costs."""
        return 1 if self.counts is None else int(self.counts.sum())

    @property
    def is_batch(self) -> bool:
        return self.counts is not None


class Observation(NamedTuple):
    """Noisy feedback of one pull (an immutable record, built once per sample).

    Attributes
    ----------
    reward : float or None
        Observed reward (``None`` where rewards are known, as in CBAI).
    constraints : ndarray of shape (m,) or None
        Observed constraint values.
    """

    reward: float | None = None
    constraints: FloatArray | None = None


class BatchObservation(NamedTuple):
    """Aggregated feedback of a batch decision: per-arm counts and sums of observations.

    Attributes
    ----------
    counts : ndarray of shape (n_arms,)
        Number of pulls of each arm (equal to the decision's counts).
    constraint_sums : ndarray of shape (n_arms, m) or None
        Sum over the pulls of each arm of the observed constraint values.
    reward_sums : ndarray of shape (n_arms,) or None
        Sum of observed rewards per arm.
    """

    counts: IntArray
    constraint_sums: FloatArray | None = None
    reward_sums: FloatArray | None = None


@dataclass(frozen=True, slots=True)
class Recommendation:
    """Answer of a pure-exploration learner.

    Attributes
    ----------
    arm : int or None
        Recommended arm, or ``None`` if no arm can be recommended (e.g. none certified feasible).
    n_samples : int
        Samples the learner had used when it recommended.
    final : bool
        ``True`` if the learner had stopped (``done``), ``False`` for an anytime recommendation.
    info : dict
        Algorithm-specific extras (certified sets, rounds, ...).
    """

    arm: int | None
    n_samples: int
    final: bool
    info: dict[str, Any] = field(default_factory=dict)
