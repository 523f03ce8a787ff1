"""Experiments of Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy (2017), "Conservative Contextual Linear
Bandits", Sec. 5 (the simulation, as quoted by a reproducibility page; the digest ``docs/clucb.md``):

``clucb-alpha`` (Fig. 1)
    LUCB and CLUCB on ``clucb/hundred-arm`` (100 fixed actions in R^4, the baseline the 10th best action,
    ``lambda = 1``, ``delta = 0.001``) over ``T = 40,000`` rounds, alpha swept; the paper plots the
    per-step regret ``R_t / t``, averaged over 1,000 realizations.
``clucb-violations`` (Fig. 2)
    The same learners and instance over the first 1,000 rounds: the percentage of rounds at which the
    constraint is violated (``conservative_violations / 1000``), alpha swept.

The alphas swept are ours (the figures' values were not read): 0.01, 0.05, 0.1, 0.2 at paper scale
(docs/decisions/conservative.md). The quick scale is a smoke test: two alphas, a short horizon, a few
replicates. The paper scale of ``clucb-alpha`` keeps the thin record (its 8,000 runs of 40,000 rounds).
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = ["ALPHA", "ALPHAS", "LEARNERS", "VIOLATIONS"]

#: The two methods of the figures; ``lambda = 1`` and ``delta = 0.001`` (the paper's).
LEARNERS = (AlgorithmSpec(label="LUCB", name="linucb"), AlgorithmSpec(label="CLUCB", name="clucb"))
_DEFAULTS = {"delta": 0.001, "reg": 1.0}
#: Tolerances swept (ours: the figures' values were not read).
ALPHAS = {"quick": (0.05, 0.2), "paper": (0.01, 0.05, 0.1, 0.2)}
_REPLICATES = {"quick": 4, "paper": 1_000}
_BUDGET = {"quick": 10**9, "paper": 10**9}


def _figure(
    name: str, title: str, panel_title: str, curves: tuple[str, ...], horizon: dict[str, int]
) -> ExperimentSpec:
    """One of the paper's figures: the learners on ``clucb/hundred-arm``, alpha swept, the thin record
    at paper scale."""
    panel = PanelSpec(
        name="hundred-arm",
        instance="clucb/hundred-arm",
        fixed={},
        sweep_param="alpha",
        values=ALPHAS,
        title=panel_title,
        xlabel="alpha",
    )
    return register_experiment(
        ExperimentSpec(
            name=name,
            title=title,
            panels=(panel,),
            algorithms=LEARNERS,
            replicates=_REPLICATES,
            budget=_BUDGET,
            figure="regret-curves",
            claims=name,
            algorithm_defaults=_DEFAULTS,
            curves=curves,
            horizon=horizon,
            record={"paper": "thin"},
        )
    )


ALPHA = _figure(
    "clucb-alpha",
    "LUCB and CLUCB against alpha (Kazerouni et al. 2017, Fig. 1)",
    "100 actions in R^4 (features, theta ~ N(0, I)), baseline the 10th best action",
    ("per_step_regret", "regret", "margin"),
    {"quick": 2_000, "paper": 40_000},
)

VIOLATIONS = _figure(
    "clucb-violations",
    "Rounds violating the constraint in the first 1,000 (Kazerouni et al. 2017, Fig. 2)",
    "100 actions in R^4, baseline the 10th best action, the first 1,000 rounds",
    ("margin", "regret"),
    {"quick": 1_000, "paper": 1_000},
)
