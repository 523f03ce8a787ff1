"""BOIN, the Bayesian optimal interval design (Liu & Yuan 2015, JRSS-C 64:507-523), a dose-finding baseline.

After each cohort the observed toxicity rate ``p_hat_j = y_j / n_j`` at the current dose ``j`` is compared
with two boundaries that depend on the target ``phi`` only (the local optimal design, ``phi1 = 0.6 phi``,
``phi2 = 1.4 phi``, equal prior odds on the three hypotheses):

* ``lambda_e = log((1 - phi1) / (1 - phi)) / log(phi (1 - phi1) / (phi1 (1 - phi)))``,
* ``lambda_d = log((1 - phi) / (1 - phi2)) / log(phi2 (1 - phi) / (phi (1 - phi2)))``;

escalate if ``p_hat_j <= lambda_e``, de-escalate if ``p_hat_j >= lambda_d``, stay otherwise (at the
highest dose, or below an eliminated one, "escalate" stays; at the lowest, "de-escalate" stays).
Elimination (the safety rule): with a Beta(1, 1) prior, if ``n_j >= 3`` and ``P(p_j > phi | y_j, n_j) >
cutoff`` (0.95), dose ``j`` and every higher dose are eliminated and the next cohort goes one dose lower;
eliminating the lowest dose stops the trial. At the end the MTD is selected by isotonic regression
(pool-adjacent-violators) of the rates ``(y_j + 0.05) / (n_j + 0.1)`` over the doses tried and not
eliminated: the dose whose estimate is closest to ``phi``; among tied estimates the highest if they lie
below ``phi``, the lowest otherwise.

Options of the authors' BOIN package (``get.oc``), off by default: ``early_stop_patients`` (its
``n.earlystop``: end the trial with a selection when the current dose has that many patients and the rule
says stay), ``extra_safe`` (its ``extrasafe``: stop with no selection when ``n_1 >= 3`` and ``P(p_1 > phi |
data) > cutoff - extra_safe_offset``) and ``selection_weights="variance"`` (its isotonic weights, the
inverse posterior variances of the Beta(0.05, 0.05) rates, instead of the patients); and, from the
backfill BOIN package ``bfboin`` (its ``three.plus.three``), ``stay_after_one_in_three``: stay, rather than
de-escalate, when the current dose has 1 toxicity in its first 3 patients (the 3+3 habit; it acts only when
``1/3 >= lambda_d``, i.e. targets below about 0.28).

No per-patient safety guarantee (registered ``guarantee="none"``). Deviations and choices:
``docs/decisions/dose.md``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np
from scipy.special import betainc

from safebandits._validation import check_choice, check_int, check_interval
from safebandits.algorithms.base import LearnerConfig
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._dose_trial import CohortDesign
from safebandits.exceptions import ConfigError

__all__ = ["BOIN", "BOINConfig", "boin_boundaries", "isotonic_rates", "select_closest"]

#: The isotonic regression's weights at the MTD selection: the patients per dose (ours) or the inverse
#: posterior variances of the Beta(0.05, 0.05) rates (the BOIN package's ``select.mtd``).
SelectionWeights = Literal["patients", "variance"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BOINConfig(LearnerConfig):
    """BOIN's settings (Liu & Yuan 2015; defaults: the paper's and the authors' BOIN package's).

    Attributes
    ----------
    cohort_size : int
        Patients per cohort (3).
    max_patients : int
        The trial's sample size (36: 12 cohorts of 3).
    under_fraction, over_fraction : float
        ``phi1 = under_fraction * phi`` (0.6) and ``phi2 = over_fraction * phi`` (1.4).
    elimination_cutoff : float
        Eliminate dose ``j`` and above when ``P(p_j > phi | data) >`` this (0.95), with ``n_j >= 3``.
    early_stop_patients : int or None
        The BOIN package's ``n.earlystop``: end the trial (and select the MTD) when the current dose has
        at least this many patients and the rule says stay there (``None``: never; the package's default
        100 never acts in trials of 100 patients or fewer).
    extra_safe : bool
        The BOIN package's ``extrasafe``: also stop with no selection when ``n_1 >= 3`` and ``P(p_1 > phi |
        data) > elimination_cutoff - extra_safe_offset`` (False).
    extra_safe_offset : float
        The package's ``offset`` of that rule (0.05).
    selection_weights : {"patients", "variance"}
        The isotonic regression's weights at the selection: patients per dose ("patients") or the package's
        inverse posterior variances ("variance").
    stay_after_one_in_three : bool
        Stay at the current dose when it has exactly 3 patients and 1 toxicity, where the boundaries say
        de-escalate (``bfboin``'s ``three.plus.three``; False).
    """

    cohort_size: int = 3
    max_patients: int = 36
    under_fraction: float = 0.6
    over_fraction: float = 1.4
    elimination_cutoff: float = 0.95
    early_stop_patients: int | None = None
    extra_safe: bool = False
    extra_safe_offset: float = 0.05
    selection_weights: SelectionWeights = "patients"
    stay_after_one_in_three: bool = False

    def __post_init__(self) -> None:
        check_int(self.cohort_size, "cohort_size", low=1, owner="BOINConfig")
        check_int(self.max_patients, "max_patients", low=1, owner="BOINConfig")
        check_interval(
            self.under_fraction, "under_fraction", low=0.0, high=1.0, closed="neither", owner="BOINConfig"
        )
        check_interval(
            self.over_fraction, "over_fraction", low=1.0, high=math.inf, closed="neither", owner="BOINConfig"
        )
        check_interval(
            self.elimination_cutoff,
            "elimination_cutoff",
            low=0.5,
            high=1.0,
            closed="neither",
            owner="BOINConfig",
        )
        if self.early_stop_patients is not None:
            check_int(self.early_stop_patients, "early_stop_patients", low=1, owner="BOINConfig")
        check_choice(self.extra_safe, "extra_safe", (True, False), owner="BOINConfig")
        check_interval(
            self.extra_safe_offset,
            "extra_safe_offset",
            low=0.0,
            high=0.5,
            closed="left",
            owner="BOINConfig",
        )
        check_choice(self.selection_weights, "selection_weights", SelectionWeights, owner="BOINConfig")
        check_choice(
            self.stay_after_one_in_three, "stay_after_one_in_three", (True, False), owner="BOINConfig"
        )


def boin_boundaries(phi: float, phi1: float, phi2: float) -> tuple[float, float]:
    """``(lambda_e, lambda_d)`` of the local optimal design (Liu & Yuan 2015, Sec. 2.2, equal priors)."""
    if not 0.0 < phi1 < phi < phi2 < 1.0:
        raise ConfigError(
            f"BOIN's boundaries need 0 < phi1 < phi < phi2 < 1. Got phi1={phi1}, phi={phi}, phi2={phi2}."
        )
    lam_e = math.log((1 - phi1) / (1 - phi)) / math.log(phi * (1 - phi1) / (phi1 * (1 - phi)))
    lam_d = math.log((1 - phi) / (1 - phi2)) / math.log(phi2 * (1 - phi) / (phi * (1 - phi2)))
    return lam_e, lam_d


def isotonic_rates(rates: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The non-decreasing weighted least-squares fit of ``rates`` (pool-adjacent-violators)."""
    blocks: list[list[float]] = []  # [value, weight, length]
    for r, w in zip(rates.tolist(), weights.tolist(), strict=True):
        blocks.append([r, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, l2 = blocks.pop()
            v1, w1, l1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, l1 + l2])
    return np.concatenate([np.full(int(n), v) for v, _, n in blocks])


def select_closest(estimates: np.ndarray, phi: float) -> int:
    """The index whose estimate is closest to ``phi``; ties: the highest below ``phi``, the lowest above.

    (Adding ``1e-10 j`` to a non-decreasing ``estimates`` makes tied values strictly increasing, so the
    closest of a tie below ``phi`` is its highest member and above ``phi`` its lowest.)
    """
    shifted = estimates + 1e-10 * np.arange(estimates.shape[0])
    return int(np.argmin(np.abs(shifted - phi)))


@register_algorithm(
    "boin",
    task="regret",
    info=("dose", "k-armed"),
    guarantee="none",
    description="BOIN: Bayesian optimal interval dose finding in cohorts (Liu & Yuan 2015); a clinical "
    "baseline without a per-patient safety guarantee.",
)
class BOIN(CohortDesign):
    """The Bayesian optimal interval design (module docstring).

    Parameters
    ----------
    config : BOINConfig
    info : DoseInfo or StagewiseInfo
        The ``"dose"`` view of a dose problem (declared structure; unused) or its ``"k-armed"`` view: doses
        in increasing order, ``threshold`` = the target toxicity ``phi``, the safe dose = the start dose.
    rng : numpy.random.Generator
        Unused (BOIN is deterministic given the data).
    """

    config_cls = BOINConfig

    def __init__(self, config: BOINConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        phi = self.target
        self.lambda_e, self.lambda_d = boin_boundaries(
            phi, config.under_fraction * phi, min(config.over_fraction * phi, 1 - 1e-9)
        )
        #: The lowest eliminated dose (``K``: none eliminated).
        self.eliminated_from = self.n_doses

    def overdose_probability(self, j: int) -> float:
        """``P(p_j > phi | y_j, n_j)`` under the Beta(1, 1) prior."""
        y, n = int(self.n_toxic[j]), int(self.n_treated[j])
        return float(1.0 - betainc(1 + y, 1 + n - y, self.target))

    def _next_dose(self, had_toxicity: bool) -> int | None:
        cfg = self.config
        j = self.dose
        n, y = int(self.n_treated[j]), int(self.n_toxic[j])
        if n >= 3 and self.overdose_probability(j) > cfg.elimination_cutoff:
            self.eliminated_from = min(self.eliminated_from, j)
            return None if j == 0 else j - 1
        if (
            cfg.extra_safe
            and j == 0
            and n >= 3
            and self.overdose_probability(0) > cfg.elimination_cutoff - cfg.extra_safe_offset
        ):
            return None
        rate = y / n
        if rate <= self.lambda_e and j + 1 < self.eliminated_from:
            return j + 1
        one_in_three = cfg.stay_after_one_in_three and (n, y) == (3, 1)
        if rate >= self.lambda_d and j > 0 and not one_in_three:
            return j - 1
        if cfg.early_stop_patients is not None and n >= cfg.early_stop_patients:
            self.finished_early = True  # (the rule says stay at a dose with enough patients)
        return j

    def _select(self) -> int | None:
        tried = np.flatnonzero(self.n_treated[: self.eliminated_from] > 0)
        if tried.size == 0:
            return None
        top = int(tried.max()) + 1
        n = self.n_treated[:top].astype(float)
        y = self.n_toxic[:top].astype(float)
        keep = n > 0
        n, y = n[keep], y[keep]
        rates = (y + 0.05) / (n + 0.1)
        if self.config.selection_weights == "variance":  # (1 / the Beta(y + 0.05, n - y + 0.05) variance)
            weights = (n + 0.1) ** 2 * (n + 1.1) / ((y + 0.05) * (n - y + 0.05))
        else:
            weights = n
        fitted = isotonic_rates(rates, weights)
        return int(np.flatnonzero(keep)[select_closest(fitted, self.target)])
