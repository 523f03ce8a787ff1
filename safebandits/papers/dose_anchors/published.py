"""Published operating characteristics of BOIN, and our BOIN run on their settings (issue 45, item 3).

Each :class:`PublishedOC` is one published table (or printed output) with fully stated settings: its
source, the true toxicity curve, the target, the design's settings in our config's terms, the published
numbers and the number of simulated trials behind them. :func:`reproduce` runs our design on exactly those
settings and returns, per number, ours, the published value and the Monte Carlo standard error of the
difference (both sides' simulation error: binomial for percentages of trials, the per-trial standard
deviation of our own trials for means). No table of CRM's operating characteristics with fully stated
settings was found (``docs/dose_anchors.md``, "Checked against published operating characteristics").

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.experiments.dose_trials import OperatingCharacteristics, simulate_trials

__all__ = ["PUBLISHED", "Comparison", "PublishedOC", "reproduce"]

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
    count of simulated trials behind them (``assumed`` when the source does not say).
    """

    name: str
    source: str
    toxicity: tuple[float, ...]
    target: float
    config: dict[str, Any]
    values: dict[str, float]
    n_trials: int
    assumed: bool = False
    settings: str = ""


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
    ``patients_d<j>``, ``toxicities``, ``length``.
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
    """Run our BOIN on ``table``'s settings (``config`` overrides them) and compare every published number.

    The standard error of a difference is ``sqrt(se_ours^2 + se_published^2)``: for a percentage of
    trials ``p``, ``100 sqrt(p (1 - p) / n)`` on each side (``p`` pooled from both); for a mean, the
    standard deviation of our per-trial values over ``sqrt(n)`` on each side.
    """
    oc = simulate_trials(
        "boin",
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
        se = sd * math.sqrt(1.0 / n_trials + 1.0 / table.n_trials)
        rows.append(Comparison(table.name, name, ours, published, max(se, 1e-9)))
    return rows
