"""A batch of simulated dose-finding trials as one run of the engine (a solver run).

The engine's runs are bandit runs (ask / tell for a horizon) or solver runs
(:mod:`safebandits.experiments.solvers`: a function of the instance, a config and the run's generator,
returning metric columns and JSON traces). A dose trial is neither a regret run (it ends at its sample
size and answers with a recommended dose) nor an identification run of the engine's kind, so a batch of
``trials`` trials of one design on one scenario is a solver run, ``dose-trials``: it calls
:func:`~safebandits.experiments.dose_trials.simulate_trials` with the scenario's patients (its seed: the
same patients for every design of a replicate) and stores the operating characteristics as columns. The
runner, the store, the run keys, ``resume`` and the report are the engine's, unchanged.

Columns of a run: ``trials``; ``pcs`` (percentage selecting the true MTD), ``n_correct`` (their number),
``none_selected``; ``above_mtd`` (patients per trial above the true MTD), ``trials_above`` (% of trials
with one), ``above_limit`` / ``trials_above_limit`` (the same above the limit: the target),
``toxicities``, ``length``, ``highest`` (mean highest dose given, 1-based), ``mtd`` (1-based),
``guarantee``; per dose ``selected_d<j>`` and ``patients_d<j>`` (percentage selecting dose ``j``, mean
patients at it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError
from safebandits.experiments.dose_trials import simulate_trials
from safebandits.experiments.solvers import register_solver

__all__ = ["DOSE_TRIALS", "DoseTrialsConfig", "run_dose_trials"]

#: Name of the solver (the ``name`` of an ``AlgorithmSpec``).
DOSE_TRIALS = "dose-trials"
#: The designs a run may name (registered learners with cohorts, a trial end and a recommendation).
DESIGNS = ("boin", "crm", "dose-escalation")


@dataclass(frozen=True, kw_only=True)
class DoseTrialsConfig:
    """One design's trials.

    Parameters
    ----------
    design : str, default="boin"
        ``"boin"``, ``"crm"`` or ``"dose-escalation"`` (the certified design).
    trials : int, default=50
        Simulated trials per run (the experiment's replicates multiply them).
    max_increase : float or "truth", default=0.2
        The certified design's declared largest toxicity increase per dose step; ``"truth"`` declares each
        step's true value (the tightest true declaration: an oracle's). Read only by ``dose-escalation``,
        which is also told that toxicity is non-decreasing in the dose.
    """

    design: str = "boin"
    trials: int = 50
    max_increase: float | str = 0.2

    def __post_init__(self) -> None:
        if self.design not in DESIGNS:
            raise ConfigError(
                f"The 'design' of DoseTrialsConfig must be one of {DESIGNS}. Got {self.design!r} instead."
            )
        if isinstance(self.trials, bool) or not isinstance(self.trials, int) or self.trials < 1:
            raise ConfigError(
                f"The 'trials' of DoseTrialsConfig must be a positive integer. Got {self.trials!r} instead."
            )
        step = self.max_increase
        number = isinstance(step, (int, float)) and not isinstance(step, bool)
        if not (step == "truth" or (number and 0.0 < float(step) <= 1.0)):
            raise ConfigError(
                "The 'max_increase' of DoseTrialsConfig must be a number in (0, 1] or 'truth'. "
                f"Got {step!r} instead."
            )


def run_dose_trials(
    instance: Any, config: DoseTrialsConfig, rng: np.random.Generator
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``config.trials`` trials of ``config.design`` on the scenario ``instance`` (a ``DoseScenario``)."""
    del rng  # (the designs' own random numbers come from the patients' seed and the trial: simulate_trials)
    extra: dict[str, Any]
    if config.design == "dose-escalation":
        step = instance.steps if config.max_increase == "truth" else float(config.max_increase)
        extra = {
            "declared": {"max_increase": step, "monotone_cost": True},
            "config": {"cohort_size": instance.cohort_size},
        }
    else:
        extra = {"config": {"max_patients": instance.patients, "cohort_size": instance.cohort_size}}
    oc = simulate_trials(
        config.design,
        instance.toxicity,
        instance.target,
        n_trials=config.trials,
        seed=instance.seed,
        patients=instance.patients,
        **extra,
    )
    metrics: dict[str, Any] = {
        "samples": instance.patients,
        "trials": oc.n_trials,
        "mtd": oc.mtd + 1,
        "pcs": oc.pcs,
        "n_correct": round(oc.pcs * oc.n_trials / 100.0),
        "none_selected": oc.none_selected,
        "above_mtd": oc.above_mtd,
        "trials_above": oc.trials_above,
        "above_limit": oc.above_limit,
        "trials_above_limit": oc.trials_above_limit,
        "toxicities": oc.toxicities,
        "length": oc.length,
        "highest": oc.highest,
        "guarantee": oc.guarantee,
    }
    for j, (sel, pat) in enumerate(zip(oc.selection, oc.patients, strict=True), start=1):
        metrics[f"selected_d{j}"] = float(sel)
        metrics[f"patients_d{j}"] = float(pat)
    return metrics, {"instance": instance.describe()}


register_solver(DOSE_TRIALS, DoseTrialsConfig)(run_dose_trials)
