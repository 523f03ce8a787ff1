"""Runs of contextual learners on a conservative contextual linear instance, scored under the truth.

:func:`run_conservative_linear` plays ``context -> ask(context) -> play -> tell`` rounds on a
:class:`~safebandits.problems.conservative_linear.ConservativeLinearInstance` and records, each round,
the played action's, the baseline's and the best action's true means: the regret against the best
action of each context and the conservative constraint
(:class:`~safebandits.problems.conservative.ConservativeTracker`, fed the baseline policy's mean of each
round). :func:`contextual_regret` returns the same scores as a
:class:`~safebandits.experiments.regret_loop.RegretOutcome` (the experiment runner's record; the
generic :func:`~safebandits.experiments.regret_loop.run_regret` has no contexts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits._validation import check_int
from safebandits.experiments.regret_loop import RegretOutcome
from safebandits.problems.conservative import ConservativeTracker
from safebandits.problems.stagewise import TOL
from safebandits.records import log_grid

__all__ = ["ConservativeLinearOutcome", "contextual_regret", "run_conservative_linear"]

#: Rounds played per compiled call (the same trajectory in any blocks: the environment draws its random
#: numbers ``ROUNDS_DRAWN`` rounds at a time and the learner keeps its state; bounds the ``(n, K, d)``
#: features in memory).
BLOCK_ROUNDS = 4096


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


def play_contexts(
    learner: Any, env: Any, n: int, *, compiled: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` rounds of ``context -> ask(context) -> play -> tell``: the true means of the played action,
    the baseline's action and the best action of each round, (n,) each. ``compiled`` (and a learner with
    ``play_block``): the same rounds in one compiled call."""
    block = getattr(learner, "play_block", None)
    if compiled and block is not None and hasattr(env, "next_rounds"):
        return _play_compiled(block, env, n)
    played, base, best = np.empty(n), np.empty(n), np.empty(n)
    for t in range(n):
        context = env.context()
        decision = learner.ask(context)
        learner.tell(decision, env.play(decision))
        played[t], base[t], best[t] = env.last
    return played, base, best


def _play_compiled(block: Any, env: Any, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_contexts` on the learner's compiled rounds, ``BLOCK_ROUNDS`` at a time: the
    environment's next rounds (:meth:`~safebandits.problems.conservative_linear.ConservativeLinearEnvironment.
    next_rounds`, the contexts and means :meth:`~safebandits.problems.conservative_linear.
    ConservativeLinearEnvironment.context` would give), the compiled call recording each round's means."""
    noise = env.instance.noise
    code, sigma = int(noise.code), float(noise.sigma)
    played, base, best = np.empty(n), np.empty(n), np.empty(n)
    for s in range(0, n, BLOCK_ROUNDS):
        m = min(BLOCK_ROUNDS, n - s)
        r = env.next_rounds(m)
        record = (played[s : s + m], base[s : s + m], best[s : s + m])
        block(r.arms, r.baselines, r.baseline_rewards, r.means, r.variates, code, sigma, record=record)
    return played, base, best


def run_conservative_linear(
    learner: Any, instance: Any, rng: np.random.Generator, *, horizon: int | None = None, n_points: int = 200
) -> ConservativeLinearOutcome:
    """Play ``horizon`` rounds (default ``instance.horizon``) of ``learner`` on ``instance``'s environment
    drawn from ``rng``, and score them under the truth."""
    horizon = check_int(horizon if horizon is not None else instance.horizon, "horizon", low=1)
    played, base, best = play_contexts(learner, instance.environment(rng), horizon)
    tracker = ConservativeTracker(instance.constraint, log_grid(horizon, n_points))
    tracker.update(played, 0, baseline=base)
    return ConservativeLinearOutcome(
        rounds=horizon,
        regret=float(np.sum(best - played)),
        reward=float(played.mean()),
        baseline_reward=float(base.mean()),
        conservative=tracker.summary(),
    )


def contextual_regret(
    learner: Any, env: Any, instance: Any, *, budget: int | None = None, n_points: int = 200
) -> RegretOutcome:
    """The rounds of :func:`play_contexts` (the instance's horizon, at most ``budget``) scored as a
    :class:`~safebandits.experiments.regret_loop.RegretOutcome`: regret against each context's best
    action (per-round and policy regret alike: the learners are deterministic), no per-round costs, the
    conservative record; curves on the log grid."""
    horizon = check_int(instance.horizon, "horizon", low=1)
    limit = horizon if budget is None else min(horizon, check_int(budget, "budget", low=1))
    t0, c0 = time.perf_counter(), time.process_time()
    played, base, best = play_contexts(learner, env, limit)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    grid = log_grid(horizon, n_points)
    grid = grid[grid <= limit]
    tracker = ConservativeTracker(instance.constraint, grid)
    tracker.update(played, 0, baseline=base)
    regret = np.cumsum(best - played)
    at = grid - 1
    tenth, tail = max(1, horizon // 10), max(1, limit - (horizon - max(1, horizon // 10)))
    g, none = grid.shape[0], np.zeros((grid.shape[0], 0))
    curves = {
        "t": grid, "regret": regret[at], "policy_regret": regret[at],
        "reward": np.cumsum(played)[at] / grid, "cost": none, "policy_cost": none, "policy_cost_now": none,
        "positive_cost": none, "violations": np.zeros(g, dtype=np.int64),
        "conservative_margin": tracker.summary()["curve"],
    }  # fmt: skip
    total = float(regret[-1])
    # A problem that also states the stage-wise constraint (a LinearProblem whose constraint is the reward's
    # own: problems/declare/linear_conservative.py): the rounds below its floor, and their shortfall.
    floor = getattr(instance, "per_round_floor", None)
    below = np.maximum(0.0, floor - played) if floor is not None else np.zeros(0)
    violations = int(np.sum(below > TOL))
    shortfall = [float(below.sum()), float(below[:tenth].sum())] if floor is not None else []
    if floor is not None:  # (the cumulative curves of the comparison's panels)
        curves["violations"] = np.cumsum(below > TOL)[at]
        curves["positive_cost"] = np.cumsum(below)[at][:, None]
    diag = getattr(learner, "diagnostics", None)
    return RegretOutcome(
        rounds=limit, regret=total, policy_regret=total, action_regret=total, reward=float(played.mean()),
        cost=[], max_policy_cost=[], violations=violations, policy_violations=violations,
        stopped=limit >= horizon, wall_s=wall,
        regret_tenth=float(regret[tenth - 1]) if limit >= tenth else float("nan"),
        policy_regret_tenth=float(regret[tenth - 1]) if limit >= tenth else float("nan"),
        tail_cost=[], tail_reward=float(played[-tail:].mean()), positive_cost=shortfall[:1],
        positive_cost_tenth=shortfall[1:],
        curves=curves, info=diag() if callable(diag) else {}, cpu_s=cpu, conservative=tracker.summary(),
    )  # fmt: skip
