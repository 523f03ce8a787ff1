"""The standard dose-finding scenarios of the CRM / BOIN literature that the library checks its dose
designs on (issue 45, item 3): true toxicity curves from published simulation studies.

Each scenario is a :class:`DoseScenario` (the truth, the target, the trial's sample size and cohort size,
and the seed of its simulated patients); the instance ``anchors/dose`` builds one by family and number.
The family's source is named with it; the curves were read from the public files that quote them (the
papers' own tables could not be read here: ``docs/decisions/dose.md``):

``lin-yuan-2020``
    Lin & Yuan (2020), *Biostatistics* 21(4): 807-824 (time-to-event model-assisted designs), six doses,
    target 0.30, 12 cohorts of 3; quoted in ``JialuFang/aCFO_faCFO``, ``setting/Sce_6dose_phi30.R``.
``zhao-2024``
    Zhao, Yuan, Korn & Freidlin (2024), *Clin. Cancer Res.* 30(4): 673-679 (BOIN with backfilling),
    Table 3, the five toxicity curves (its scenarios 6-12 repeat them with other efficacy curves); five
    doses, target 0.25, 10 cohorts of 3; quoted in ``openpharma/bfboin``,
    ``vignettes/Compare_to_publication.Rmd``.

The simulated patients of a run come from the instance's generator (the run key without the design), so
every design of a replicate meets the same patients (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits._validation import check_int
from safebandits.exceptions import ConfigError
from safebandits.problems.registry import register_instance

__all__ = ["FAMILIES", "DoseScenario", "dose_scenario"]

#: family -> (source, target, cohorts, cohort size, curves by scenario number).
FAMILIES: dict[str, tuple[str, float, int, int, dict[int, tuple[float, ...]]]] = {
    "lin-yuan-2020": (
        "Lin & Yuan 2020 (Biostatistics), 6 doses, target 0.30, 36 patients",
        0.30,
        12,
        3,
        {
            1: (0.13, 0.28, 0.41, 0.50, 0.60, 0.70),
            2: (0.08, 0.15, 0.29, 0.43, 0.50, 0.57),
            3: (0.28, 0.42, 0.49, 0.61, 0.76, 0.87),
            4: (0.05, 0.10, 0.20, 0.31, 0.50, 0.70),
            5: (0.06, 0.08, 0.12, 0.18, 0.30, 0.41),
            6: (0.05, 0.06, 0.08, 0.11, 0.19, 0.32),
        },
    ),
    "zhao-2024": (
        "Zhao, Yuan, Korn & Freidlin 2024 (Clin. Cancer Res.), Table 3, 5 doses, target 0.25, 30 patients",
        0.25,
        10,
        3,
        {
            1: (0.25, 0.41, 0.45, 0.49, 0.53),
            2: (0.12, 0.25, 0.42, 0.49, 0.55),
            3: (0.04, 0.12, 0.25, 0.43, 0.63),
            4: (0.02, 0.06, 0.10, 0.25, 0.40),
            5: (0.02, 0.05, 0.08, 0.11, 0.25),
        },
    ),
}


@dataclass(frozen=True, kw_only=True, slots=True)
class DoseScenario:
    """One published dose-finding scenario and the seed of its simulated patients.

    Attributes
    ----------
    name : str
        ``"<family>/<number>"``.
    toxicity : tuple of float
        The true toxicity (DLT) probability of each dose, lowest dose first.
    target : float
        The target toxicity; also the limit of a certified design's per-patient promise.
    patients : int
        The trial's sample size (cohorts x cohort size).
    cohort_size : int
    seed : int
        Seed of the patients' uniforms (``simulate_trials``).
    source : str
        Where the curve is published.
    """

    name: str
    toxicity: tuple[float, ...]
    target: float
    patients: int
    cohort_size: int
    seed: int
    source: str

    @property
    def mtd(self) -> int:
        """The true MTD (0-based): the dose whose toxicity is closest to the target (the lower on a tie)."""
        return int(np.argmin(np.abs(np.asarray(self.toxicity) - self.target)))

    @property
    def steps(self) -> tuple[float, ...]:
        """The true increase of toxicity at each dose step (the tightest true ``max_increase``)."""
        return tuple(round(b - a, 12) for a, b in zip(self.toxicity, self.toxicity[1:], strict=False))

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "toxicity": list(self.toxicity),
            "target": self.target,
            "patients": self.patients,
            "cohort_size": self.cohort_size,
            "true_mtd": self.mtd + 1,
            "source": self.source,
        }


@register_instance("anchors/dose", random=True)
def dose_scenario(
    *, rng: np.random.Generator | None = None, family: str = "lin-yuan-2020", scenario: int = 1
) -> DoseScenario:
    """A published dose-finding scenario (``family``: ``lin-yuan-2020`` or ``zhao-2024``; ``scenario``:
    its number); the patients' seed is drawn from ``rng``."""
    if not isinstance(family, str) or family not in FAMILIES:
        raise ConfigError(
            f"The 'family' of instance 'anchors/dose' must be one of {sorted(FAMILIES)}. Got {family!r}."
        )
    source, target, cohorts, size, curves = FAMILIES[family]
    number = check_int(scenario, "scenario", low=1, owner="anchors/dose")
    if number not in curves:
        raise ConfigError(
            f"The 'scenario' of instance 'anchors/dose' ({family}) must be one of {sorted(curves)}. "
            f"Got {number}."
        )
    seed = int(rng.integers(2**63 - 1)) if rng is not None else 0
    return DoseScenario(
        name=f"{family}/{number}",
        toxicity=curves[number],
        target=target,
        patients=cohorts * size,
        cohort_size=size,
        seed=seed,
        source=source,
    )
