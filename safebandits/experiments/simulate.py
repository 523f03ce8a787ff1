"""Drive a learner on an environment: the one loop every experiment and user shares."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from safebandits._validation import check_int
from safebandits.algorithms.base import BaseLearner, is_simulating, play_ask_tell
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
    cpu_s : float
        CPU seconds of this process over the same interval (``time.process_time``: every thread of the
        process, so a worker's figure is its run's alone).
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
    cpu_s: float = float("nan")


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
    The run is the learner's declared fast path ``simulate(env, budget)``
    (:meth:`~safebandits.algorithms.base.BaseLearner.simulate`): its compiled loop if it has one (the
    same noise stream and the same result as the ask / tell path, tested, only faster), else the plain
    ask / tell loop :func:`~safebandits.algorithms.base.play_ask_tell`.

    Parameters
    ----------
    learner : pure-exploration learner
    env : ArmEnvironment
    instance : problem instance with ``is_correct`` and ``is_feasible`` oracles
    budget : int
        Maximum number of samples.
    compiled : bool
        Play through the learner's ``simulate``; ``False`` (or a learner without ``simulate``): the
        plain ask / tell loop.
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
    t0, c0 = time.perf_counter(), time.process_time()
    if compiled and is_simulating(learner):
        learner.simulate(env, budget)
    else:
        play_ask_tell(learner, env, budget)
    rec = learner.recommend(anytime=True)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return RunOutcome(
        samples=int(learner.n_samples),
        recommended=rec.arm,
        correct=bool(instance.is_correct(rec.arm)),
        feasible=bool(instance.is_feasible(rec.arm)),
        stopped=bool(learner.done),
        wall_s=wall,
        info=rec.info,
        cpu_s=cpu,
    )
