"""Runs of contextual learners on a conservative contextual linear instance, scored under the truth.

:func:`run_conservative_linear` plays ``context -> ask(context) -> play -> tell`` rounds on a
:class:`~safebandits.problems.conservative_linear.ConservativeLinearInstance` and records, each round,
the played action's, the baseline's and the best action's true means: the regret against the best
action of each context and the conservative constraint
(:class:`~safebandits.problems.conservative.ConservativeTracker`, fed the baseline policy's mean of each
round). (The generic :func:`~safebandits.experiments.regret_loop.run_regret` has no contexts: the
experiment runner does not drive these learners yet.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits._validation import check_int
from safebandits.problems.conservative import ConservativeTracker
from safebandits.records import log_grid

__all__ = ["ConservativeLinearOutcome", "run_conservative_linear"]


@dataclass(frozen=True, slots=True)
class ConservativeLinearOutcome:
    """Result of :func:`run_conservative_linear`.

    Attributes
    ----------
    rounds : int
    regret : float
        ``sum_t max_a r_{t,a} - r_{t,a_t}`` (true means).
    reward : float
        Mean true reward of the played actions.
    baseline_reward : float
        Mean true reward of the baseline policy's actions in the same contexts.
    conservative : dict
        :meth:`~safebandits.problems.conservative.ConservativeTracker.summary` (``violations``: verified
        rounds with a negative margin, ``first_violation``, ``min_margin``, ``margin``, ``curve``).
    """

    rounds: int
    regret: float
    reward: float
    baseline_reward: float
    conservative: dict[str, Any]


def run_conservative_linear(
    learner: Any, instance: Any, rng: np.random.Generator, *, horizon: int | None = None, n_points: int = 200
) -> ConservativeLinearOutcome:
    """Play ``horizon`` rounds (default ``instance.horizon``) of ``learner`` on ``instance``'s environment
    drawn from ``rng``, and score them under the truth."""
    horizon = check_int(horizon if horizon is not None else instance.horizon, "horizon", low=1)
    env = instance.environment(rng)
    played, base, best = np.empty(horizon), np.empty(horizon), np.empty(horizon)
    for t in range(horizon):
        context = env.context()
        decision = learner.ask(context)
        learner.tell(decision, env.play(decision))
        played[t], base[t], best[t] = env.last
    tracker = ConservativeTracker(instance.constraint, log_grid(horizon, n_points))
    tracker.update(played, 0, baseline=base)
    return ConservativeLinearOutcome(
        rounds=horizon,
        regret=float(np.sum(best - played)),
        reward=float(played.mean()),
        baseline_reward=float(base.mean()),
        conservative=tracker.summary(),
    )
