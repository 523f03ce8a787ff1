"""Published operating characteristics of BOIN and CRM, and ours run on their settings (issue 45, item 3).

Each :class:`PublishedOC` is one published table (or printed output) with fully stated settings: its
source, the design, the true toxicity curve, the target, the design's settings in our config's terms, the
published numbers and the number of simulated trials behind them (``None``: computed exactly, no
simulation error). :func:`reproduce` runs our design on exactly those settings and returns, per number,
ours, the published value and the Monte Carlo standard error of the difference (both sides' simulation
error: binomial for percentages of trials, the per-trial standard deviation of our own trials for means).

The numbers were read from the sources, not computed here. Sources:

* **Zhao, Yuan, Korn & Freidlin (2024)**, *Clin. Cancer Res.* 30:673-679, Table 4 ("Operating
  characteristics of BF-BOIN and BOIN"), the BOIN rows of scenarios 1-5 (rows 6-12 repeat those curves and
  numbers); the curves are the paper's Table 3. Read from the copy of Table 4 in the public repository
  ``openpharma/bfboin`` (``vignettes/table_4.PNG``), whose vignette ``Compare_to_publication`` states the
  settings it reproduces the table with: target 0.25, 5 doses, 10 cohorts of 3 from dose 1, the trial ends
  when 9 patients are at the current dose (``n.earlystop = 9``), elimination cutoff 0.95, no extra-safe
  rule. The number of simulated trials was not readable here (the paper's text was not available); the
  standard errors take 1,000 (the smaller of the usual counts, the wider error).
* **The BOIN package's** ``get.oc`` **output** printed in ``openpharma/bfboin``'s vignette
  ``Compare_to_original_BOIN`` (``articles/Compare_to_original_BOIN.html``): ``BOIN::get.oc(target = 0.25,
  p.true = c(0.1, 0.5), ncohort = 10, cohortsize = 3, n.earlystop = 9, startdose = 1, cutoff.eli = 0.95,
  extrasafe = TRUE, offset = 0.1, ntrial = 10000, seed = 6)``.
* **CRM: the R package precautionary's vignette** "MCSE-Free CRM Performance and Safety Assessment"
  (D. C. Norris, 2021; ``dcnorris/precautionary``, ``vignettes/MCSE-Free.Rmd``, its output in
  ``docs/articles/MCSE-Free.html``, the same in every build of 2021-05 to 2022-02). It computes, exactly by
  enumerating every trial path (no Monte Carlo error), the operating characteristics of Braun's (2020,
  *Stat. Med.* 39:4651-4666) calibrated CRM: the empiric (power) model with skeleton (0.03, 0.11, 0.25,
  0.42, 0.58, 0.71), normal prior on the log power with standard deviation 0.85 (``scale``), the plug-in
  toxicity at the posterior mean and the dose closest to the target 0.25 (dfcrm's rule), 15 cohorts of 2
  from dose 1, no skipping in escalation (at most one dose above the highest given), coherent escalation
  (package default ``global_coherent_esc``), no restriction in de-escalation, no safety stop; the trial
  ends when the lowest dose has 5 patients or any dose 10, selecting the dose the rule gives next. The true
  curve is the skeleton (MTD dose 3). Printed: the selection probability of each dose, the mean per-trial
  share of cohorts at the MTD and above it, and the share of patients above the MTD with a toxicity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.experiments.dose_trials import OperatingCharacteristics, simulate_trials

__all__ = ["PUBLISHED", "Comparison", "PublishedOC", "reproduce"]

#: Braun (2020)'s calibrated skeleton, also the true curve of the precautionary vignette's scenario.
_BRAUN_SKELETON = (0.03, 0.11, 0.25, 0.42, 0.58, 0.71)

#: The settings of Zhao et al. (2024)'s BOIN in our config's terms (module docstring); the 1-in-3 rule is
#: the variant that reproduces the published table (``docs/decisions/dose.md``).
_ZHAO_BOIN = {
    "cohort_size": 3,
    "max_patients": 30,
    "early_stop_patients": 9,
    "selection_weights": "variance",
    "stay_after_one_in_three": True,
}
_ZHAO_SOURCE = (
    "Zhao, Yuan, Korn & Freidlin (2024), Clin. Cancer Res. 30:673-679, Table 4, BOIN rows (curves: "
    "Table 3); via openpharma/bfboin vignettes/table_4.PNG"
)


@dataclass(frozen=True, slots=True)
class PublishedOC:
    """One published set of operating characteristics (module docstring).

    ``values`` maps a characteristic (:func:`characteristic`) to its published value; ``n_trials`` is the
    count of simulated trials behind them (``assumed`` when the source does not say; ``None`` when they
    were computed exactly); ``design`` is the registered design run on ``config``.
    """

    name: str
    source: str
    toxicity: tuple[float, ...]
    target: float
    config: dict[str, Any]
    values: dict[str, float]
    n_trials: int | None
    assumed: bool = False
    settings: str = ""
    design: str = "boin"


def _zhao(scenario: int, toxicity: tuple[float, ...], values: dict[str, float]) -> PublishedOC:
    return PublishedOC(
        name=f"zhao2024-s{scenario}",
        source=f"{_ZHAO_SOURCE}, scenario {scenario}",
        toxicity=toxicity,
        target=0.25,
        config=dict(_ZHAO_BOIN),
        values=values,
        n_trials=1000,
        assumed=True,
        settings="target 0.25; 10 cohorts of 3 from dose 1; end at 9 patients on the current dose; "
        "elimination cutoff 0.95",
    )


#: The published tables (numbers as printed: percentages of trials, mean patients per trial).
PUBLISHED: tuple[PublishedOC, ...] = (
    _zhao(
        1,
        (0.25, 0.41, 0.45, 0.49, 0.53),
        {"pcs": 77.0, "over_selection": 16.7, "patients_at": 8.7, "patients_over": 6.2, "length": 15.1},
    ),
    _zhao(
        2,
        (0.12, 0.25, 0.42, 0.49, 0.55),
        {
            "pcs": 55.6,
            "over_selection": 14.5,
            "patients_below": 7.2,
            "patients_at": 8.4,
            "patients_over": 5.1,
            "length": 20.7,
        },
    ),
    _zhao(
        3,
        (0.04, 0.12, 0.25, 0.43, 0.63),
        {
            "pcs": 56.7,
            "over_selection": 12.3,
            "patients_below": 11.4,
            "patients_at": 8.0,
            "patients_over": 4.6,
            "length": 23.9,
        },
    ),
    _zhao(
        4,
        (0.02, 0.06, 0.10, 0.25, 0.40),
        {
            "pcs": 53.3,
            "over_selection": 17.1,
            "patients_below": 14.0,
            "patients_at": 7.7,
            "patients_over": 4.0,
            "length": 25.7,
        },
    ),
    _zhao(
        5,
        (0.02, 0.05, 0.08, 0.11, 0.25),
        {"pcs": 63.9, "patients_below": 17.6, "patients_at": 7.3, "length": 24.9},
    ),
    PublishedOC(
        name="boin-get.oc-extrasafe",
        source="BOIN package get.oc output printed in openpharma/bfboin, "
        "articles/Compare_to_original_BOIN.html",
        toxicity=(0.1, 0.5),
        target=0.25,
        config={
            "cohort_size": 3,
            "max_patients": 30,
            "early_stop_patients": 9,
            "extra_safe": True,
            "extra_safe_offset": 0.1,
            "selection_weights": "variance",
        },
        values={
            "selection_d1": 77.75,
            "selection_d2": 18.42,
            "none_selected": 3.83,
            "patients_d1": 10.716,
            "patients_d2": 7.7784,
            "toxicities": 4.9524,
            "length": 18.4944,
        },
        n_trials=10_000,
        settings="get.oc(target = 0.25, p.true = c(0.1, 0.5), ncohort = 10, cohortsize = 3, "
        "n.earlystop = 9, startdose = 1, cutoff.eli = 0.95, extrasafe = TRUE, offset = 0.1, "
        "ntrial = 10000, seed = 6)",
    ),
    PublishedOC(
        name="precautionary-crm-exact",
        source="R package precautionary, vignette 'MCSE-Free CRM Performance and Safety Assessment' "
        "(dcnorris/precautionary, docs/articles/MCSE-Free.html); exact, by complete path enumeration; "
        "the design is Braun (2020, Stat. Med. 39:4651-4666)'s calibrated CRM",
        toxicity=_BRAUN_SKELETON,
        target=0.25,
        config={
            "skeleton": _BRAUN_SKELETON,
            "prior_variance": 0.85**2,
            "cohort_size": 2,
            "max_patients": 30,
            "stop_cutoff": 1.0,
            "escalation_cap": "highest_tried",
            "coherence": "dose_rate",
            "stop_patients_any": 10,
            "stop_patients_lowest": 5,
        },
        values={
            "selection_d1": 1.0420,
            "selection_d2": 24.8309,
            "selection_d3": 56.0418,
            "selection_d4": 17.2114,
            "selection_d5": 0.8630,
            "selection_d6": 0.0109,
            "share_at": 38.95,
            "share_over": 19.71,
            "toxicity_rate_over": 44.2,
        },
        n_trials=None,
        settings="Crm$new(skeleton = c(0.03, 0.11, 0.25, 0.42, 0.58, 0.71), scale = 0.85, target = 0.25); "
        "no_skip_esc(TRUE); no_skip_deesc(FALSE); stop when enrolled[1] >= 5 or max(enrolled) >= 10; "
        "trace_paths(root_dose = 1, cohort_sizes = rep(2, 15)); scenario = the skeleton",
        design="crm",
    ),
)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One number: ours, the published one, the standard error of their difference, and ``z``."""

    table: str
    characteristic: str
    ours: float
    published: float
    se: float

    @property
    def z(self) -> float:
        """``(ours - published) / se``."""
        return (self.ours - self.published) / self.se


def characteristic(oc: OperatingCharacteristics, name: str) -> tuple[float, np.ndarray | None]:
    """A characteristic's value and, for a mean over trials, its per-trial values (``None``: a percentage
    of trials, whose error is binomial).

    Names: ``pcs``, ``over_selection`` (percentage selecting a dose above the true MTD), ``none_selected``,
    ``selection_d<j>`` (1-based), ``patients_below`` / ``patients_at`` / ``patients_over`` (the true MTD),
    ``patients_d<j>``, ``toxicities``, ``length``; ``share_at`` / ``share_over`` (the mean over trials of
    the percentage of a trial's patients at / above the true MTD) and ``toxicity_rate_over`` (the
    percentage of all patients treated above the MTD who had a toxicity: a ratio of means, whose
    per-trial values are linearised so that their standard deviation gives the delta-method error).
    """
    m = oc.mtd
    if name == "pcs":
        return oc.pcs, None
    if name == "over_selection":
        return float(oc.selection[m + 1 :].sum()), None
    if name == "none_selected":
        return oc.none_selected, None
    if name.startswith("selection_d"):
        return float(oc.selection[int(name[len("selection_d") :]) - 1]), None
    if oc.trial_patients is None or oc.trial_toxicities is None:
        raise ValueError("characteristic needs simulate_trials(..., keep_trials=True) for means.")
    per_dose = {
        "patients_below": slice(0, m),
        "patients_at": slice(m, m + 1),
        "patients_over": slice(m + 1, None),
    }
    if name in per_dose:
        per_trial = oc.trial_patients[:, per_dose[name]].sum(axis=1)
    elif name.startswith("patients_d"):
        per_trial = oc.trial_patients[:, int(name[len("patients_d") :]) - 1]
    elif name == "toxicities":
        per_trial = oc.trial_toxicities.sum(axis=1)
    elif name == "length":
        per_trial = oc.trial_patients.sum(axis=1)
    elif name in ("share_at", "share_over"):
        part = oc.trial_patients[:, per_dose[name.replace("share", "patients")]].sum(axis=1)
        per_trial = 100.0 * part / np.maximum(oc.trial_patients.sum(axis=1), 1)
    elif name == "toxicity_rate_over":
        n_over = oc.trial_patients[:, m + 1 :].sum(axis=1).astype(float)
        y_over = oc.trial_toxicities[:, m + 1 :].sum(axis=1).astype(float)
        rate = y_over.sum() / max(n_over.sum(), 1.0)
        per_trial = 100.0 * (rate + (y_over - rate * n_over) / max(n_over.mean(), 1e-12))
    else:
        raise ValueError(f"Unknown characteristic {name!r}.")
    per_trial = per_trial.astype(float)
    return float(per_trial.mean()), per_trial


def reproduce(
    table: PublishedOC,
    *,
    n_trials: int = 10_000,
    seed: int = 0,
    config: dict[str, Any] | None = None,
) -> list[Comparison]:
    """Run our design on ``table``'s settings (``config`` overrides them) and compare every published number.

    The standard error of a difference is ``sqrt(se_ours^2 + se_published^2)``: for a percentage of
    trials ``p``, ``100 sqrt(p (1 - p) / n)`` on each side (``p`` pooled from both); for a mean, the
    standard deviation of our per-trial values over ``sqrt(n)`` on each side; an exact published value
    (``n_trials`` ``None``) adds no error.
    """
    oc = simulate_trials(
        table.design,
        table.toxicity,
        table.target,
        n_trials=n_trials,
        seed=seed,
        config={**table.config, **(config or {})},
        keep_trials=True,
    )
    rows = []
    for name, published in table.values.items():
        ours, per_trial = characteristic(oc, name)
        if per_trial is None:
            p = min(max((ours + published) / 200.0, 1.0 / n_trials), 1.0 - 1.0 / n_trials)
            sd = 100.0 * math.sqrt(p * (1.0 - p))
        else:
            sd = float(per_trial.std(ddof=1))
        theirs = 0.0 if table.n_trials is None else 1.0 / table.n_trials
        se = sd * math.sqrt(1.0 / n_trials + theirs)
        rows.append(Comparison(table.name, name, ours, published, max(se, 1e-9)))
    return rows
