"""Drive a learner on an environment: the one loop every experiment and user shares."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from safebandits._validation import check_int
from safebandits.algorithms.base import BaseLearner
from safebandits.exceptions import ConfigError
from safebandits.problems.environment import ArmEnvironment

__all__ = ["RunOutcome", "run"]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """Result of :func:`run` on a pure-exploration learner.

    Attributes
    ----------
    samples : int
        Samples (constraint queries) used.
    recommended : int or None
        Recommended arm (the final answer if ``stopped``, else the anytime answer).
    correct, feasible : bool
        Scored with the instance's oracle.
    stopped : bool
        The learner stopped by its own rule (``done``) within the budget.
    wall_s : float
        Wall-clock seconds.
    info : dict
        Recommendation extras.
    """

    samples: int
    recommended: int | None
    correct: bool
    feasible: bool
    stopped: bool
    wall_s: float
    info: dict[str, Any] = field(default_factory=dict)


def run(
    learner: BaseLearner,
    env: ArmEnvironment,
    instance: Any,
    *,
    budget: int = 10**9,
    compiled: bool = True,
) -> RunOutcome:
    """Run a pure-exploration learner until ``done`` or until ``budget`` samples are used.

    A batch decision that would exceed the budget is not played: the run ends there.
    If the learner offers a compiled loop (``run_compiled(env, budget)``) and ``compiled`` is
    true, that loop is used; it consumes the same noise stream and gives the same result as the
    ask / tell path (tested), only faster.

    Parameters
    ----------
    learner : pure-exploration learner
    env : ArmEnvironment
    instance : problem instance with ``is_correct`` and ``is_feasible`` oracles
    budget : int
        Maximum number of samples.
    compiled : bool
        Use the learner's compiled loop when it has one.
    """
    budget = check_int(budget, "budget", low=1)
    if not hasattr(learner, "done") or not hasattr(learner, "recommend"):
        raise ConfigError(
            f"run drives pure-exploration learners (ask / tell until done, then recommend); "
            f"{type(learner).__name__} is not one. Use run_regret for regret learners."
        )
    for attr in ("is_correct", "is_feasible"):
        if not hasattr(instance, attr):
            raise ConfigError(
                f"run scores the answer with the instance's oracle ({attr}); a {type(instance).__name__} has "
                "none. Pass an identification instance (e.g. SimulatedProblem.instance('cbai'))."
            )
    t0 = time.perf_counter()
    fast = getattr(learner, "run_compiled", None) if compiled else None
    if fast is not None:
        fast(env, budget)
    else:
        while not learner.done and learner.n_samples < budget:
            decision = learner.ask()
            if decision.n_samples > budget - learner.n_samples:
                learner.cancel()  # the batch is abandoned, not played
                break
            learner.tell(decision, env.play(decision))
    rec = learner.recommend(anytime=True)
    wall = time.perf_counter() - t0
    return RunOutcome(
        samples=int(learner.n_samples),
        recommended=rec.arm,
        correct=bool(instance.is_correct(rec.arm)),
        feasible=bool(instance.is_feasible(rec.arm)),
        stopped=bool(learner.done),
        wall_s=wall,
        info=rec.info,
    )
