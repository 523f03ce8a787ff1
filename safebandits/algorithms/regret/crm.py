"""CRM, the continual reassessment method (O'Quigley, Pepe & Fisher 1990, Biometrics 46:33-48), a baseline.

One-parameter power ("empiric") model: the toxicity of dose ``j`` is ``p_j(a) = s_j ** exp(a)`` with the
skeleton ``s_1 < ... < s_K`` (prior guesses) and a normal prior ``a ~ N(0, sigma^2)``, ``sigma^2 = 1.34``
(the usual choice, O'Quigley & Shen 1996; the R package dfcrm's default). After each cohort the posterior
of ``a`` given the toxicities ``y_j`` of ``n_j`` patients per dose,
``pi(a | data) ~ N(a; 0, sigma^2) prod_j p_j(a)^y_j (1 - p_j(a))^(n_j - y_j)``, is integrated numerically
on a grid (:func:`crm_posterior`); the next cohort gets the dose whose plug-in toxicity ``p_j(a_hat)`` at the
posterior mean ``a_hat`` is closest to the target ``phi`` (the paper's rule), subject to the standard
restrictions of practice: no skipping (at most one dose above the current one) and coherence (no escalation
right after a cohort with a toxicity). Safety stop: if at least 3 patients were treated at the lowest dose
and ``P(p_1 > phi | data) > stop_cutoff`` (0.90), the trial stops with no dose selected. The selected MTD
is the dose the next cohort would receive (the paper's recommendation).

Named variants of the restrictions and stopping rules, off by default (those of the R package
``precautionary``'s ``Crm``, with which its published CRM operating characteristics were computed):
``escalation_cap="highest_tried"`` (at most one dose above the highest dose given so far, not the current
one), ``coherence="dose_rate"`` (no escalation above the current dose while its observed toxicity rate
exceeds ``phi``) or ``"none"``, and ``stop_patients_any`` / ``stop_patients_lowest`` (end the trial, with
the dose the rule gives as the selection, once any dose / the lowest dose has that many patients).

Skeleton (default): the Lee & Cheung (2009) indifference-interval skeleton with half-width ``0.05`` and the
prior MTD at dose ``ceil(K / 2)``: ``s_nu = phi``; ``s_{k-1} = s_k ** (log(phi - h) / log(phi + h))``,
``s_{k+1} = s_k ** (log(phi + h) / log(phi - h))``.

No per-patient safety guarantee (registered ``guarantee="none"``). Choices the paper leaves open:
``docs/decisions/dose.md``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np

from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.algorithms.base import LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._dose_trial import CohortDesign
from safebandits.exceptions import ConfigError

__all__ = ["CRM", "CRMConfig", "CRMPosterior", "crm_posterior", "lee_cheung_skeleton"]

#: Grid points of the numerical integration over ``a`` (mean +- :data:`GRID_WIDTH` prior sd).
GRID_POINTS = 1601
GRID_WIDTH = 8.0
#: The trapezoid rule's weights on the grid.
_TRAP = np.concatenate(([0.5], np.ones(GRID_POINTS - 2), [0.5]))

EscalationCap = Literal["current", "highest_tried"]
Coherence = Literal["cohort", "dose_rate", "none"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class CRMConfig(LearnerConfig):
    """CRM's settings (O'Quigley, Pepe & Fisher 1990, with the restrictions of practice).

    Attributes
    ----------
    cohort_size : int
        Patients per cohort (3).
    max_patients : int
        The trial's sample size (36).
    prior_variance : float
        Variance of the normal prior on ``a`` (1.34).
    skeleton : tuple of float or None
        The prior toxicity guesses, increasing in ``(0, 1)``, one per dose; ``None``: Lee & Cheung's
        (:func:`lee_cheung_skeleton`) with ``halfwidth`` and ``prior_mtd``.
    halfwidth : float
        Half-width of the indifference interval of the default skeleton (0.05).
    prior_mtd : int or None
        The dose (0-based) whose skeleton value is ``phi`` (``None``: ``ceil(K / 2) - 1``).
    stop_cutoff : float
        Stop the trial when ``P(p_1 > phi | data) >`` this (0.90), with at least 3 patients at dose 1;
        ``1.0`` never stops.
    escalation_cap : {"current", "highest_tried"}
        No skipping: the next dose is at most one above the current dose (``"current"``, the default) or
        one above the highest dose given so far (``"highest_tried"``, ``precautionary``'s ``no_skip_esc``).
    coherence : {"cohort", "dose_rate", "none"}
        No escalation right after a cohort with a toxicity (``"cohort"``, the default; dfcrm's
        ``restrict``), none above the current dose while its observed toxicity rate exceeds ``phi``
        (``"dose_rate"``, ``precautionary``'s ``global_coherent_esc``), or no such restriction.
    stop_patients_any, stop_patients_lowest : int or None
        End the trial, selecting the dose the rule gives next, once any dose / the lowest dose has at
        least this many patients (``None``: no such stop).
    """

    cohort_size: int = 3
    max_patients: int = 36
    prior_variance: float = 1.34
    skeleton: tuple[float, ...] | None = None
    halfwidth: float = 0.05
    prior_mtd: int | None = None
    stop_cutoff: float = 0.90
    escalation_cap: EscalationCap = "current"
    coherence: Coherence = "cohort"
    stop_patients_any: int | None = None
    stop_patients_lowest: int | None = None

    def __post_init__(self) -> None:
        owner = "CRMConfig"
        check_int(self.cohort_size, "cohort_size", low=1, owner=owner)
        check_int(self.max_patients, "max_patients", low=1, owner=owner)
        check_positive(self.prior_variance, "prior_variance", owner=owner)
        check_interval(self.halfwidth, "halfwidth", low=0.0, high=0.5, closed="neither", owner=owner)
        check_interval(self.stop_cutoff, "stop_cutoff", low=0.5, high=1.0, closed="right", owner=owner)
        if self.prior_mtd is not None:
            check_int(self.prior_mtd, "prior_mtd", low=0, owner=owner)
        check_choice(self.escalation_cap, "escalation_cap", EscalationCap, owner=owner)
        check_choice(self.coherence, "coherence", Coherence, owner=owner)
        for name in ("stop_patients_any", "stop_patients_lowest"):
            if getattr(self, name) is not None:
                check_int(getattr(self, name), name, low=1, owner=owner)
        if self.skeleton is not None:
            s = np.asarray(self.skeleton, dtype=float)
            if s.ndim != 1 or s.size == 0 or not np.all((s > 0) & (s < 1)) or np.any(np.diff(s) <= 0):
                raise ConfigError(
                    f"The 'skeleton' parameter of {owner} must be increasing values in (0, 1). "
                    f"Got {self.skeleton!r} instead."
                )


def lee_cheung_skeleton(phi: float, n_doses: int, prior_mtd: int, halfwidth: float) -> np.ndarray:
    """Lee & Cheung's (2009) skeleton for the power model: ``s[prior_mtd] = phi``, neighbours spaced so that
    the indifference intervals ``phi +- halfwidth`` of adjacent doses meet (module docstring)."""
    if not 0.0 < phi - halfwidth < phi + halfwidth < 1.0:
        raise ConfigError(
            f"CRM's skeleton needs 0 < phi - halfwidth < phi + halfwidth < 1. Got {phi}, {halfwidth}."
        )
    if not 0 <= prior_mtd < n_doses:
        raise ConfigError(f"CRM's 'prior_mtd' must be a dose in [0, {n_doses - 1}]. Got {prior_mtd}.")
    up = math.log(phi + halfwidth) / math.log(phi - halfwidth)  # (< 1: the next dose's guess is larger)
    s = np.empty(n_doses)
    s[prior_mtd] = phi
    for k in range(prior_mtd + 1, n_doses):
        s[k] = s[k - 1] ** up
    for k in range(prior_mtd - 1, -1, -1):
        s[k] = s[k + 1] ** (1.0 / up)
    return s


@dataclasses.dataclass(frozen=True, slots=True)
class CRMPosterior:
    """The posterior of ``a`` on a grid: its mean, the plug-in toxicities and ``P(p_j > phi)`` per dose."""

    mean: float
    toxicity: np.ndarray  #: ``p_j(a_hat)``, shape (K,)
    overdose: np.ndarray  #: ``P(p_j(a) > phi | data)``, shape (K,)


def crm_posterior(
    skeleton: np.ndarray, n: np.ndarray, y: np.ndarray, phi: float, prior_variance: float
) -> CRMPosterior:
    """The power model's posterior (module docstring) by the trapezoid rule on :data:`GRID_POINTS` points.

    ``p_j(a) > phi`` exactly when ``a < log(log(phi) / log(s_j))``, so ``P(p_j > phi)`` is the posterior
    mass below that point.
    """
    sd = math.sqrt(prior_variance)
    a = np.linspace(-GRID_WIDTH * sd, GRID_WIDTH * sd, GRID_POINTS)
    log_s = np.log(skeleton)
    log_p = np.outer(np.exp(a), log_s)  # (grid, K): log p_j(a), finite on the grid
    log_lik = (y * log_p + (n - y) * np.log(-np.expm1(log_p))).sum(axis=1)
    log_w = -0.5 * a**2 / prior_variance + log_lik
    f = np.exp(log_w - log_w.max())  # (the unnormalised density on the grid)
    segments = 0.5 * (f[1:] + f[:-1])  # (trapezoid masses of the grid's cells, times the spacing)
    cdf = np.concatenate(([0.0], np.cumsum(segments)))
    total = cdf[-1]
    mean = float((f * _TRAP) @ a / total)
    cuts = np.log(math.log(phi) / log_s)
    over = np.interp(cuts, a, cdf) / total  # (P(a < cut): the cumulative trapezoid, linear in the cell)
    return CRMPosterior(mean, skeleton ** math.exp(mean), over)


@register_algorithm(
    "crm",
    task="regret",
    info=("dose", "k-armed"),
    guarantee="none",
    description="CRM: continual reassessment dose finding in cohorts (O'Quigley, Pepe & Fisher 1990; power "
    "model, no skipping); a clinical baseline without a per-patient safety guarantee.",
)
class CRM(CohortDesign):
    """The continual reassessment method (module docstring).

    Parameters
    ----------
    config : CRMConfig
    info : DoseInfo or StagewiseInfo
        The ``"dose"`` view of a dose problem (declared structure; unused) or its ``"k-armed"`` view: doses
        in increasing order, ``threshold`` = the target toxicity ``phi``, the safe dose = the start dose.
    rng : numpy.random.Generator
        Unused (CRM is deterministic given the data).
    """

    config_cls = CRMConfig

    def __init__(self, config: CRMConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        k, phi = self.n_doses, self.target
        if config.skeleton is None:
            mtd = math.ceil(k / 2) - 1 if config.prior_mtd is None else config.prior_mtd
            self.skeleton = lee_cheung_skeleton(phi, k, mtd, config.halfwidth)
        else:
            if len(config.skeleton) != k:
                raise ConfigError(
                    f"The 'skeleton' parameter of CRMConfig must have one value per dose ({k}). "
                    f"Got {len(config.skeleton)} values instead."
                )
            self.skeleton = np.asarray(config.skeleton, dtype=float)

    def posterior(self) -> CRMPosterior:
        """The posterior on the data so far."""
        return crm_posterior(
            self.skeleton, self.n_treated, self.n_toxic, self.target, self.config.prior_variance
        )

    def _rule_dose(self, post: CRMPosterior, had_toxicity: bool) -> int:
        cfg, d = self.config, self.dose
        best = int(np.argmin(np.abs(post.toxicity - self.target)))
        top = d if cfg.escalation_cap == "current" else int(np.flatnonzero(self.n_treated).max())
        cap = top + 1  # (no skipping)
        if cfg.coherence == "cohort" and had_toxicity:
            cap = min(cap, d)
        elif cfg.coherence == "dose_rate" and self.n_toxic[d] > self.target * self.n_treated[d]:
            cap = min(cap, d)
        return min(best, cap, self.n_doses - 1)

    def _next_dose(self, had_toxicity: bool) -> int | None:
        cfg = self.config
        post = self.posterior()
        if self.n_treated[0] >= 3 and post.overdose[0] > cfg.stop_cutoff:
            return None
        nxt = self._rule_dose(post, had_toxicity)
        any_n, lowest_n = cfg.stop_patients_any, cfg.stop_patients_lowest
        if (any_n is not None and self.n_treated.max() >= any_n) or (
            lowest_n is not None and self.n_treated[0] >= lowest_n
        ):
            self.finished_early = True  # (the trial ends; the rule's dose is the selection)
        return nxt

    def _select(self) -> int | None:
        # the paper's recommendation: the dose the next cohort would receive (the last decision)
        return int(self.dose)
