"""Experiments of Wu, Shariff, Lattimore & Szepesvari (2016), "Conservative Bandits", Sec. 6, as the
authors' code runs them (``tor/libbandit``, ``papers/2015-Conservative-Bandits/sim.cc``; the paper's own
text of the experiments could not be read here, see the digest ``docs/conservative_ucb.md``):

``cucb-horizon`` (the code's experiment 1)
    UCB, Conservative UCB (known and unknown ``mu_0``) and BudgetFirst on five Gaussian arms
    (``cucb/five-arm``), ``alpha = 0.1``, ``delta = 1 / T``, the horizon swept: ``T = 2,000,
    4,000, ..., 98,000`` at paper scale.
``cucb-alpha`` (the code's experiment 2)
    The same learners at ``T = 10,000``, ``alpha`` swept over ``0, 0.01, ..., 1`` at paper scale.

Replicates: the code ran until a wall-clock limit (up to 20,000 trials); the paper scale runs 100 per
point. The quick scale is a smoke test of seconds. The paper scale keeps the thin record
(:mod:`safebandits.experiments.thin_record`: the regret and margin curves at 40 checkpoints) so that its
60,000 runs can be archived; the quick scale keeps the full one (its keys unchanged).
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = ["ALPHA", "ALPHAS", "HORIZON", "HORIZONS", "LEARNERS"]

#: The four methods of ``sim.cc`` (UCB's exploration constant 2, ``delta = 1 / T`` for the others: the
#: learners' defaults).
LEARNERS = (
    AlgorithmSpec(label="UCB", name="ucb"),
    AlgorithmSpec(label="Conservative UCB", name="conservative-ucb"),
    AlgorithmSpec(label="Conservative UCB (unknown mu_0)", name="conservative-ucb-unknown-mean"),
    AlgorithmSpec(label="BudgetFirst", name="budget-first"),
)

#: Horizons swept by experiment 1 (``for (int n = 2000; n != 100000; n += 2000)``).
HORIZONS = {"quick": (2_000, 4_000), "paper": tuple(range(2_000, 100_000, 2_000))}
#: Tolerances swept by experiment 2 (``for (alpha = 0.0; alpha <= 1.001; alpha += 0.01)``).
ALPHAS = {"quick": (0.05, 0.5), "paper": tuple(round(0.01 * i, 2) for i in range(101))}
_REPLICATES = {"quick": 2, "paper": 100}
_BUDGET = {"quick": 10**9, "paper": 10**9}

HORIZON = register_experiment(
    ExperimentSpec(
        name="cucb-horizon",
        title="Conservative UCB, BudgetFirst and UCB against the horizon (Wu et al. 2016, experiment 1)",
        panels=(
            PanelSpec(
                name="five-arm",
                instance="cucb/five-arm",
                fixed={"alpha": 0.1},
                sweep_param="T",
                values=HORIZONS,
                title="Five Gaussian arms, means (0.5, 0.6, 0.4, 0.4, 0.4), alpha = 0.1",
                xlabel="T",
            ),
        ),
        algorithms=LEARNERS,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="cucb-horizon",
        curves=("regret", "margin"),
        record={"paper": "thin"},
    )
)

ALPHA = register_experiment(
    ExperimentSpec(
        name="cucb-alpha",
        title="Conservative UCB, BudgetFirst and UCB against alpha (Wu et al. 2016, experiment 2)",
        panels=(
            PanelSpec(
                name="five-arm",
                instance="cucb/five-arm",
                fixed={},
                sweep_param="alpha",
                values=ALPHAS,
                title="Five Gaussian arms, means (0.5, 0.6, 0.4, 0.4, 0.4), T = 10,000",
                xlabel="alpha",
            ),
        ),
        algorithms=LEARNERS,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="cucb-alpha",
        curves=("regret", "margin"),
        horizon={"quick": 2_000, "paper": 10_000},
        record={"paper": "thin"},
    )
)
