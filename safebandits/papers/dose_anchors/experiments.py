"""The experiment ``dose-anchors``: CRM, BOIN and the certified dose-escalation design on the published
scenarios of :mod:`~safebandits.papers.dose_anchors.instances` (issue 45, items 3 and 4).

Two panels, one per family of scenarios (``lin-yuan-2020``: six doses, target 0.30, 36 patients;
``zhao-2024``: five doses, target 0.25, 30 patients; cohorts of 3), the scenario number swept. Four
designs, each run a batch of 50 simulated trials (:mod:`~safebandits.papers.dose_anchors.trials`): BOIN,
CRM, and the certified design told that toxicity is non-decreasing with a largest step of 0.2 per dose
(true of every curve) or with each step's true value (an oracle's declaration). Replicates: 20 at paper
scale (1,000 trials per scenario and design), 1 at quick scale (50).
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment
from safebandits.papers.dose_anchors.instances import FAMILIES
from safebandits.papers.dose_anchors.trials import DOSE_TRIALS

__all__ = ["DESIGNS", "DOSE_ANCHORS", "TRIALS_PER_RUN"]

#: Trials per run; the replicates make 1,000 per scenario at paper scale.
TRIALS_PER_RUN = 50
#: Labels of the compared designs.
BOIN, CRM, CERTIFIED, ORACLE = "BOIN", "CRM", "dose-escalation (step 0.2)", "dose-escalation (true steps)"
DESIGNS = (
    AlgorithmSpec(label=BOIN, name=DOSE_TRIALS, params={"design": "boin", "trials": TRIALS_PER_RUN}),
    AlgorithmSpec(label=CRM, name=DOSE_TRIALS, params={"design": "crm", "trials": TRIALS_PER_RUN}),
    AlgorithmSpec(
        label=CERTIFIED,
        name=DOSE_TRIALS,
        params={"design": "dose-escalation", "trials": TRIALS_PER_RUN, "max_increase": 0.2},
    ),
    AlgorithmSpec(
        label=ORACLE,
        name=DOSE_TRIALS,
        params={"design": "dose-escalation", "trials": TRIALS_PER_RUN, "max_increase": "truth"},
    ),
)


def _panel(family: str, title: str) -> PanelSpec:
    numbers = tuple(sorted(FAMILIES[family][4]))
    return PanelSpec(
        name=family,
        instance="anchors/dose",
        fixed={"family": family},
        sweep_param="scenario",
        values={"quick": numbers, "paper": numbers},
        title=title,
        xlabel="scenario",
    )


DOSE_ANCHORS = register_experiment(
    ExperimentSpec(
        name="dose-anchors",
        title="CRM, BOIN and the certified dose-escalation design on published dose-finding scenarios",
        panels=(
            _panel("lin-yuan-2020", "Lin & Yuan (2020): six doses, target 0.30, 36 patients"),
            _panel("zhao-2024", "Zhao et al. (2024), Table 3: five doses, target 0.25, 30 patients"),
        ),
        algorithms=DESIGNS,
        replicates={"quick": 1, "paper": 20},
        budget={"quick": 10**6, "paper": 10**6},
        figure="extra-only",
        claims="dose-anchors",
    )
)
