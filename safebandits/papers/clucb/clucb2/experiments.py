"""Experiments of Garcelon, Ghavamzadeh, Lazaric & Pirotta (2020), "Improved Algorithms for Conservative
Exploration in Bandits", as the library reads its abstract (the digest ``docs/clucb2.md``: the paper's
experiment section, its figures and its synthetic problems were not read, so every setting below is ours
and the experiments are the library's reading of two sentences of the abstract):

``clucb2-regret``
    "[CLUCB2] outperforms state-of-the-art conservative bandit algorithms in a number of synthetic ...
    problems": LUCB, CLUCB and CLUCB2 on ``clucb2/hundred-arm`` (Kazerouni et al.'s synthetic problem:
    100 fixed actions in R^4, the baseline the 10th best action, ``lambda = 1``, ``delta = 0.001``), alpha
    swept.
``clucb2-checkpoints``
    "a more realistic constraint where the performance is verified only at predefined checkpoints ... this
    relaxed constraint favorably impacts the regret and empirical performance of CLUCB2": CLUCB2 (every
    round verified) and CLUCB2 for the checkpoint constraint on the same problem with the constraint
    verified every ``tau`` rounds, ``tau`` swept, ``alpha = 0.1``.

The quick scale is a smoke test: two values, a short horizon, a few replicates. The paper scale keeps the
thin record.
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = ["CHECKPOINTS", "REGRET", "TAUS"]

_LUCB = AlgorithmSpec(label="LUCB", name="linucb")
_CLUCB = AlgorithmSpec(label="CLUCB", name="clucb")
_CLUCB2 = AlgorithmSpec(label="CLUCB2", name="clucb2")
_CLUCB2T = AlgorithmSpec(label="CLUCB2-T", name="clucb2-checkpoint")
#: ``lambda = 1``, ``delta = 0.001``: Kazerouni et al.'s (Garcelon et al.'s were not read).
_DEFAULTS = {"delta": 0.001, "reg": 1.0}
#: Tolerances swept in ``clucb2-regret`` (ours).
ALPHAS = {"quick": (0.05, 0.2), "paper": (0.01, 0.05, 0.1, 0.2)}
#: Checkpoint periods swept in ``clucb2-checkpoints`` (ours).
TAUS = {"quick": (10, 500), "paper": (10, 100, 1_000)}
_REPLICATES = {"quick": 4, "paper": 500}
_BUDGET = {"quick": 10**9, "paper": 10**9}
_HORIZON = {"quick": 2_000, "paper": 20_000}

REGRET = register_experiment(
    ExperimentSpec(
        name="clucb2-regret",
        title="LUCB, CLUCB and CLUCB2 against alpha (the library's reading of Garcelon et al. 2020)",
        panels=(
            PanelSpec(
                name="hundred-arm",
                instance="clucb2/hundred-arm",
                fixed={},
                sweep_param="alpha",
                values=ALPHAS,
                title="100 actions in R^4 (Kazerouni et al.'s problem), baseline the 10th best action",
                xlabel="alpha",
            ),
        ),
        algorithms=(_LUCB, _CLUCB, _CLUCB2),
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="clucb2-regret",
        algorithm_defaults=_DEFAULTS,
        curves=("per_step_regret", "regret", "margin"),
        horizon=_HORIZON,
        record={"paper": "thin"},
    )
)

CHECKPOINTS = register_experiment(
    ExperimentSpec(
        name="clucb2-checkpoints",
        title="CLUCB2 with the constraint verified every tau rounds (the library's reading of Garcelon et "
        "al. 2020's abstract)",
        panels=(
            PanelSpec(
                name="hundred-arm",
                instance="clucb2/hundred-arm",
                fixed={"alpha": 0.1},
                sweep_param="checkpoint",
                values=TAUS,
                title="100 actions in R^4, alpha = 0.1, r_l the baseline's mean",
                xlabel="checkpoint period tau",
            ),
        ),
        algorithms=(_CLUCB2, _CLUCB2T),
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="clucb2-checkpoints",
        algorithm_defaults=_DEFAULTS,
        curves=("regret", "margin"),
        horizon=_HORIZON,
        record={"paper": "thin"},
    )
)
