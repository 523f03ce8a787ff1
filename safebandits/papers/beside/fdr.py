"""FDR-constrained active classification experiments (Camilleri et al. 2022, Section 5, Figures 5-12).

``fdr-adult``
    Figure 5: FDR against accuracy as labels accrue on UCI Adult, q = 0.15, batch 25, 50 initial
    labels, 5 trials (ticks at 500, 750 and 2000 labels).
``fdr-german``
    Figure 6: recall against precision on UCI German Credit (positive = bad credit), q = 0.15, batch 10,
    50 initial labels (so every tick 170, 270, 330, 450, 600 is a batch boundary), 25 trials.
``fdr-halfcircle``
    Figures 11-12: precision and recall against labels on a synthetic 2-D half circle (a pool of 1,000
    points drawn afresh per repetition, noise-free labels: a threshold on the angle), q = 0.15,
    batch 10, 20 initial labels, 25 repetitions.

Both methods ("Active" = Algorithm 2, "Passive" = uniform batches) use the same CERM oracle and
schedule. Metrics are computed on the whole pool against its labels after every batch (the per-run
curve is stored as JSON in the ``curve`` column and as the ``curve`` trace). Unspecified settings
(the German and half-circle FDR levels and batch sizes, k, sigma, the half-circle construction):
``docs/decisions/beside.md``, "Active classification under an FDR constraint".
"""

from __future__ import annotations

import json

import pandas as pd

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = ["ADULT", "GERMAN", "HALF_CIRCLE", "TICKS", "mean_curves"]

#: Label counts at which the paper compares the methods.
TICKS = {
    "fdr-adult": (500, 750, 2000),
    "fdr-german": (170, 270, 330, 450, 600),
    "fdr-halfcircle": (50, 100, 150, 200, 300),
}


def _methods(batch_size: int, n_initial: int) -> tuple[AlgorithmSpec, ...]:
    params = {"batch_size": batch_size, "n_initial": n_initial}
    return (
        AlgorithmSpec(label="Active", name="fdr-active", params=params),
        AlgorithmSpec(label="Passive", name="fdr-passive", params=params),
    )


ADULT = register_experiment(
    ExperimentSpec(
        name="fdr-adult",
        title="Active vs passive classification under FDR <= 0.15, UCI Adult (Camilleri et al. 2022, Fig. 5)",
        panels=(
            PanelSpec(
                name="adult",
                instance="fdr/adult",
                sweep_param="q",
                values={"quick": (0.15,), "paper": (0.15,)},
                title="Adult (q = 0.15, batch 25, 50 initial labels)",
                xlabel="labels",
            ),
        ),
        algorithms=_methods(25, 50),
        replicates={"quick": 2, "paper": 5},
        budget={"quick": 150, "paper": 2000},
        figure="classification-curves",
        claims="fdr-adult",
        requires_data=("uci_adult",),
    )
)

GERMAN = register_experiment(
    ExperimentSpec(
        name="fdr-german",
        title="Active vs passive classification under an FDR constraint, German Credit (Fig. 6)",
        panels=(
            PanelSpec(
                name="german",
                instance="fdr/german",
                sweep_param="q",
                values={"quick": (0.15,), "paper": (0.15,)},
                title="German Credit (q = 0.15, batch 10, 50 initial labels)",
                xlabel="labels",
            ),
        ),
        algorithms=_methods(10, 50),
        replicates={"quick": 3, "paper": 25},
        budget={"quick": 170, "paper": 600},
        figure="classification-curves",
        claims="fdr-german",
        requires_data=("uci_german",),
    )
)

HALF_CIRCLE = register_experiment(
    ExperimentSpec(
        name="fdr-halfcircle",
        title="Active vs passive classification under FDR <= 0.15, synthetic half circle (Figs. 11-12)",
        panels=(
            PanelSpec(
                name="half-circle",
                instance="fdr/half-circle",
                sweep_param="q",
                values={"quick": (0.15,), "paper": (0.15,)},
                title="Half circle (1,000 points, noise-free, q = 0.15, batch 10)",
                xlabel="labels",
            ),
        ),
        algorithms=_methods(10, 20),
        replicates={"quick": 3, "paper": 25},
        budget={"quick": 100, "paper": 300},
        figure="classification-curves",
        claims="fdr-halfcircle",
    )
)


def mean_curves(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per method: mean and standard error of every metric against the number of labels.

    Reads the JSON ``curve`` column of the ok runs; every run of a method shares the label schedule, so
    the curves are averaged point by point (over the runs that reached that label count).
    """
    ok = runs[(runs["status"] == "ok") & runs.get("curve", pd.Series(index=runs.index)).notna()]
    out = {}
    for label, grp in ok.groupby("label"):
        frames = []
        for rep, text in enumerate(grp["curve"]):
            curve = json.loads(text) if isinstance(text, str) else text
            frames.append(pd.DataFrame(curve).assign(run=rep))
        long = pd.concat(frames, ignore_index=True)
        stats = long.drop(columns="run").groupby("labels").agg(["mean", "sem", "count"])
        stats.columns = [f"{a}_{b}" if b != "mean" else a for a, b in stats.columns]
        out[str(label)] = stats.sort_index()
    return out
