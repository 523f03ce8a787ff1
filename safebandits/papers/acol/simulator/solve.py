"""The robustness study of Lindner et al. (2022), Figure 4: penalised vs constrained CEM solutions.

:class:`DrivingTask` is the "instance" of a solver run (registered as ``acol/driving-task``): a
scenario, an objective (``"penalised"`` with penalty ``lambda`` -- maximise ``theta^T f - lambda
phi^T f`` -- or ``"constrained"`` -- maximise ``theta^T f`` s.t. ``phi^T f <= tau``) and the feature
constants. The solver ``driving-cem`` runs CEM with ``n_restarts`` restarts (the authors' script: 10)
and reports the reward ``theta^T f`` of the best solution (not the penalised value; the digest notes
the authors' script may plot the latter), its constraint value ``phi^T f`` and whether it is feasible.
The policy is stored as a trace, so the report can draw it. The ACOL paper package registers the
solver (:mod:`safebandits.papers.acol.driving`, with :mod:`safebandits.experiments.solvers`); this module,
being a problem, imports nothing above it.

Constrained tasks are solved by ``constrained_solver``
(:func:`~safebandits.papers.acol.simulator.constrained.constrained_optimum`): ``"wen-topcu"`` (default: the
authors' constrained CEM, as the paper prints it) or ``"warm-polish"`` (the library's solver: Wen &
Topcu and penalised CEM seeds, the best feasible ones polished by a feasible-only local search). See
``docs/decisions/acol.md``, "Driving: constrained reference solver".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_int, check_literal_fields, check_positive
from safebandits.papers.acol.simulator.cem import CEMConfig, cem
from safebandits.papers.acol.simulator.constrained import ConstrainedSolver, PolishConfig, constrained_optimum
from safebandits.papers.acol.simulator.dynamics import (
    DrivingConfig,
    FeatureConstants,
    ScenarioName,
    get_scenario,
)

__all__ = ["DrivingCEMConfig", "DrivingTask", "solve_driving"]


@dataclass(frozen=True, kw_only=True, slots=True)
class DrivingTask:
    """A driving optimisation problem (see module docstring)."""

    scenario: ScenarioName = "base"
    objective: Literal["penalised", "constrained"] = "penalised"
    penalty: float = 0.0
    features: FeatureConstants = "paper"

    def __post_init__(self) -> None:
        check_literal_fields(self, owner="DrivingTask")
        check_positive(self.penalty, "penalty", owner="DrivingTask", allow_zero=True)

    def describe(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "objective": self.objective, "penalty": self.penalty}


@dataclass(frozen=True, kw_only=True, slots=True)
class DrivingCEMConfig:
    """CEM settings of the robustness study (authors' ``driver_solve.json``: 10 restarts).

    ``constrained_solver`` picks the solver of constrained tasks ("wen-topcu", the authors', or
    "warm-polish", the library's);
    ``warm_restarts``, ``polish_starts``, ``polish_iterations`` and ``polish_samples`` are the
    :class:`~safebandits.papers.acol.simulator.constrained.PolishConfig` of "warm-polish" (penalised seeds
    per lambda, polished seeds, local-search iterations and samples per iteration).
    """

    n_restarts: int = 10
    n_iterations: int = 50
    n_samples: int = 50
    n_elite: int = 5
    init_std: float = 5.0
    constrained_solver: ConstrainedSolver = "wen-topcu"
    warm_restarts: int = 3
    polish_starts: int = 3
    polish_iterations: int = 300
    polish_samples: int = 100

    def __post_init__(self) -> None:
        owner = "DrivingCEMConfig"
        check_int(self.n_restarts, "n_restarts", low=1, owner=owner)
        check_literal_fields(self, owner=owner)
        CEMConfig(
            n_iterations=self.n_iterations,
            n_samples=self.n_samples,
            n_elite=self.n_elite,
            init_std=self.init_std,
        )
        self.polish()

    def polish(self) -> PolishConfig:
        """The :class:`PolishConfig` of the "warm-polish" solver."""
        return PolishConfig(
            warm_restarts=self.warm_restarts,
            n_starts=self.polish_starts,
            n_iterations=self.polish_iterations,
            n_samples=self.polish_samples,
        )


def solve_driving(
    task: DrivingTask, config: DrivingCEMConfig, rng: np.random.Generator
) -> tuple[dict[str, Any], dict[str, Any]]:
    """CEM (penalised) or a constrained solver on a driving task: reward, constraint value, feasibility."""
    mode = "constrained" if task.objective == "constrained" else "penalised"
    cem_cfg = CEMConfig(
        mode=mode,
        penalty=task.penalty if mode == "penalised" else 0.0,
        n_iterations=config.n_iterations,
        n_samples=config.n_samples,
        n_elite=config.n_elite,
        init_std=config.init_std,
    )
    sc = get_scenario(task.scenario)
    env = DrivingConfig.preset(task.features)
    traces: dict[str, Any] = {"instance": task.describe()}
    if mode == "constrained":
        res, info = constrained_optimum(
            sc,
            rng,
            solver=config.constrained_solver,
            config=cem_cfg,
            env=env,
            n_restarts=config.n_restarts,
            polish=config.polish(),
        )
        evaluations = int(info["evaluations"])
        traces["solver"] = {"name": config.constrained_solver, **info}
    else:
        res = cem(sc, rng, config=cem_cfg, env=env, n_restarts=config.n_restarts)
        evaluations = config.n_restarts * config.n_iterations * config.n_samples
    reward, cost = float(res.rewards[0]), float(res.constraints[0])
    metrics = {
        "reward": reward,
        "cost": cost,
        "objective": reward - (task.penalty * cost if mode == "penalised" else 0.0),
        "feasible": cost <= sc.threshold,
        "samples": evaluations,
    }
    traces["policy"] = res.policies[0].tolist()
    return metrics, traces
