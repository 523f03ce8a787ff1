"""Simulated dose-finding trials: a registered cohort design (CRM, BOIN, ...) on a true toxicity curve, and
the operating characteristics trial designers report.

:func:`simulate_trials` runs ``n_trials`` trials of one design on the ``"k-armed"`` view of a dose problem
(:class:`~safebandits.problems.declare_covariate.CovariateProblem`) through ask / tell, patient by patient,
until the design's trial ends (``trial_over``: its sample size or a safety stop), and reads its
recommendation. The toxicity of the ``i``-th patient of trial ``r`` is ``u[r, i] < p_dose`` with one table
of uniforms per seed: every design sees the same patients (common random numbers, paired comparisons).

:class:`OperatingCharacteristics` holds, per design and curve: the percentage of trials selecting the true
MTD (the dose whose toxicity is closest to the target), the selection percentage per dose and of "none"
(safety stops), patients treated above the true MTD, toxicities per trial, trial length, patients per dose.
Nothing here names a paper: the scenarios are the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from safebandits._validation import check_array, check_int, check_interval
from safebandits.algorithms.registry import get_algorithm, make_learner
from safebandits.exceptions import ConfigError
from safebandits.types import Observation

__all__ = ["OperatingCharacteristics", "simulate_trials", "true_mtd"]


def true_mtd(toxicity: np.ndarray, target: float) -> int:
    """The true MTD: the dose whose toxicity is closest to ``target`` (the lower on a tie)."""
    return int(np.argmin(np.abs(np.asarray(toxicity, dtype=float) - target)))


@dataclass(frozen=True, slots=True)
class OperatingCharacteristics:
    """A design's operating characteristics on one toxicity curve (means over ``n_trials``; see module).

    Attributes
    ----------
    design : str
    n_trials : int
    mtd : int
        The true MTD (0-based).
    pcs : float
        Percentage of trials selecting the true MTD.
    selection : ndarray of shape (K,)
        Percentage of trials selecting each dose.
    none_selected : float
        Percentage of trials stopped for toxicity (no dose selected).
    above_mtd : float
        Mean patients per trial treated at a dose above the true MTD.
    trials_above : float
        Percentage of trials that treated at least one patient above the true MTD.
    toxicities : float
        Mean toxicities per trial.
    length : float
        Mean patients per trial.
    patients : ndarray of shape (K,)
        Mean patients per trial at each dose.
    guarantee : str
        The design's registered guarantee.
    limit : float
        The toxicity limit of the per-patient promise (the target unless given).
    above_limit : float
        Mean patients per trial treated at a dose whose true toxicity is above ``limit``.
    trials_above_limit : float
        Percentage of trials that treated at least one patient above ``limit``.
    highest : float
        Mean over trials of the highest dose given (1-based): how far a design escalates.
    trial_patients, trial_toxicities : ndarray of shape (n_trials, K) or None
        Patients and toxicities per dose of each trial (``keep_trials=True``; for standard errors).
    """

    design: str
    n_trials: int
    mtd: int
    pcs: float
    selection: np.ndarray
    none_selected: float
    above_mtd: float
    trials_above: float
    toxicities: float
    length: float
    patients: np.ndarray
    guarantee: str
    limit: float = float("nan")
    above_limit: float = 0.0
    trials_above_limit: float = 0.0
    highest: float = float("nan")
    trial_patients: np.ndarray | None = None
    trial_toxicities: np.ndarray | None = None

    def row(self) -> dict[str, Any]:
        """A flat record (a table row)."""
        return {
            "design": self.design,
            "n_trials": self.n_trials,
            "mtd": self.mtd + 1,
            "pcs": self.pcs,
            "none_selected": self.none_selected,
            "above_mtd": self.above_mtd,
            "trials_above": self.trials_above,
            "toxicities": self.toxicities,
            "length": self.length,
            "selection": self.selection.tolist(),
            "patients": self.patients.tolist(),
            "guarantee": self.guarantee,
            "limit": self.limit,
            "above_limit": self.above_limit,
            "trials_above_limit": self.trials_above_limit,
            "highest": self.highest,
        }


def _problem(n_doses: int, target: float, declared: dict[str, Any]) -> Any:
    from safebandits.problems.declare_covariate import CovariateProblem

    return CovariateProblem(
        covariates=list(range(1, n_doses + 1)), threshold=target, safe_action=0, **declared
    )


def _patients(cfg: Any, patients: int | None, design: str) -> int:
    if patients is not None:
        return check_int(patients, "patients", low=1, owner="simulate_trials")
    cap = getattr(cfg, "max_patients", None)
    if cap is None:
        raise ConfigError(
            f"simulate_trials needs the trial's 'patients' for {design!r} (it has no 'max_patients')."
        )
    return int(cap)


def _trial(learner: Any, tox: np.ndarray, uniforms: np.ndarray) -> tuple[np.ndarray, np.ndarray, int | None]:
    """One trial: patients per dose, toxicities per dose and the selected dose. It ends after
    ``len(uniforms)`` patients or when the design ends it (``trial_over``, or ``stopped`` for toxicity)."""
    k = tox.shape[0]
    treated = np.zeros(k, dtype=np.int64)
    toxic = np.zeros(k, dtype=np.int64)
    for u in uniforms:
        if getattr(learner, "trial_over", False) or getattr(learner, "stopped", False):
            break
        decision = learner.ask()
        y = float(u < tox[decision.arm])
        learner.tell(decision, Observation(reward=0.0, constraints=np.array([y])))
        treated[decision.arm] += 1
        toxic[decision.arm] += int(y)
    arm = None if getattr(learner, "stopped", False) else learner.recommend(anytime=True).arm
    return treated, toxic, arm


def simulate_trials(
    design: str,
    toxicity: Any,
    target: float,
    *,
    n_trials: int = 1000,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    patients: int | None = None,
    declared: dict[str, Any] | None = None,
    limit: float | None = None,
    keep_trials: bool = False,
) -> OperatingCharacteristics:
    """Run ``n_trials`` simulated trials of the registered ``design`` on the true ``toxicity`` per dose.

    ``config`` (over the design's defaults) sets its cohort size; ``patients`` the trial's sample size
    (default: the design's ``max_patients``); ``declared`` adds fields to the dose problem's declaration
    (e.g. ``{"max_increase": 0.2, "monotone_cost": True}`` for a design that reads the ``"dose"`` view).
    The selected dose is the design's ``recommend(anytime=True)`` at the end (none after a safety stop).
    Seeded: the patients' uniforms come from ``seed`` alone (the same for every design), the design's own
    random numbers from ``(seed, trial)``. ``limit`` (default: ``target``) is the toxicity above which a
    patient counts as treated above the limit (the per-patient promise of a certified design).
    ``keep_trials`` keeps each trial's patients and toxicities per dose (``trial_patients``,
    ``trial_toxicities``), from which any characteristic's Monte Carlo standard error follows.
    """
    tox = check_array(toxicity, "toxicity", ndim=1, min_rows=2, owner="simulate_trials")
    if np.any((tox < 0) | (tox > 1)):
        raise ConfigError(f"The 'toxicity' of simulate_trials must be probabilities in [0, 1]. Got {tox!r}.")
    target = check_interval(target, "target", low=0.0, high=1.0, owner="simulate_trials")
    limit = (
        target
        if limit is None
        else check_interval(limit, "limit", low=0.0, high=1.0, owner="simulate_trials")
    )
    n_trials = check_int(n_trials, "n_trials", low=1, owner="simulate_trials")
    entry = get_algorithm(design)
    cfg = entry.config(**(config or {}))
    cap = _patients(cfg, patients, design)
    k = tox.shape[0]
    problem = _problem(k, target, dict(declared or {}))
    uniforms = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,))).random((n_trials, cap))
    kept = np.zeros((2, n_trials, k), dtype=np.int64)  # (patients, toxicities) per trial and dose
    selected = np.zeros(k + 1)  # (the last: none)
    for r in range(n_trials):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, r)))
        treated, toxicities, arm = _trial(make_learner(design, problem, rng, cfg), tox, uniforms[r])
        selected[k if arm is None else arm] += 1
        kept[0, r], kept[1, r] = treated, toxicities
    oc = _summary(design, entry.guarantee, true_mtd(tox, target), tox > limit, selected, kept)
    oc = replace(oc, limit=float(limit))
    return oc if keep_trials else replace(oc, trial_patients=None, trial_toxicities=None)


def _summary(
    design: str, guarantee: str, mtd: int, unsafe: np.ndarray, selected: np.ndarray, kept: np.ndarray
) -> OperatingCharacteristics:
    """The operating characteristics of trials' counts (``kept``: patients and toxicities per trial and
    dose; ``selected``: trials selecting each dose, then none)."""
    treated, toxic = kept
    n_trials, k = treated.shape
    over = treated[:, mtd + 1 :].sum(axis=1)
    beyond = treated[:, unsafe].sum(axis=1)
    given = treated > 0
    highest = np.where(given.any(axis=1), k - np.argmax(given[:, ::-1], axis=1), 0)
    pct = 100.0 * selected / n_trials
    return OperatingCharacteristics(
        design=design,
        n_trials=n_trials,
        mtd=mtd,
        pcs=float(pct[mtd]),
        selection=pct[:k],
        none_selected=float(pct[k]),
        above_mtd=float(over.sum()) / n_trials,
        trials_above=100.0 * float((over > 0).sum()) / n_trials,
        toxicities=float(toxic.sum()) / n_trials,
        length=float(treated.sum()) / n_trials,
        patients=treated.sum(axis=0).astype(float) / n_trials,
        guarantee=guarantee,
        above_limit=float(beyond.sum()) / n_trials,
        trials_above_limit=100.0 * float((beyond > 0).sum()) / n_trials,
        highest=float(highest.sum()) / n_trials,
        trial_patients=treated,
        trial_toxicities=toxic,
    )
