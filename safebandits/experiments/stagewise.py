"""Experiments of Pacchiano, Ghavamzadeh & Bartlett (stage-wise constraints), Sections 4.5 and 5.4.

``stagewise-cyclic`` (E1, Figure 1 and Figures 5-7)
    LC-LUCB vs Safe-LTS on the star-convex set of the cyclic shifts of the flipped vector,
    d in {3, 5, 10} (one panel each), tau in {0.2, 0.5, 0.8}.
``stagewise-ball`` (E2, Figure 2)
    LC-LUCB vs Safe-LTS on the unit ball approximated by 100 random rays, random theta, mu, tau per
    replicate, d in {5, 10}.
``opb-random`` (E3, Figure 3)
    OPB on random Bernoulli K-armed instances, K in {5, 10, 20} (one panel each), tau in {0.2, 0.5, 0.8}.
``opb-four-arm`` (E4, Figure 4 and Figure 8)
    OPB on the fixed four-armed instance, tau in {0.8, 0.2, 0.5, 0.6}.

The paper states no horizon. The ``paper`` scale uses T = 10^6 rounds and 10 runs (the authors'
code used 10^6 and 10^7), the ``quick`` scale T = 2x10^4 and 3 runs; ``--set T=...`` changes the
horizon (up to 10^7 and beyond). Noise of the linear experiments: Gaussian, standard deviation 0.1,
with R = 0.1 told to the learners (see ``docs/decisions/stagewise.md``).
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = ["BALL", "CYCLIC", "FOUR_ARM", "PAPER_T", "QUICK_T", "RANDOM_MAB"]

#: Horizons per scale (instance parameter ``T``).
PAPER_T = 1_000_000
QUICK_T = 20_000

#: Regret runs are bounded by their horizon; this budget only guards against a runaway ``--set T``.
_BUDGET = {"quick": 10**9, "paper": 10**9}
_REPLICATES = {"quick": 3, "paper": 10}
_TAUS = {"quick": (0.2, 0.5, 0.8), "paper": (0.2, 0.5, 0.8)}

LINEAR = (
    AlgorithmSpec(label="LC-LUCB", name="lc-lucb"),
    AlgorithmSpec(label="Safe-LTS", name="safe-lts"),
)
OPB = (AlgorithmSpec(label="OPB", name="opb"),)


def _scale_t(scale: str) -> int:
    return PAPER_T if scale == "paper" else QUICK_T


def _panels_by(
    prefix: str, instance: str, param: str, values: tuple[int, ...], fixed: dict, title: str
) -> tuple[PanelSpec, ...]:
    """One panel per value of ``param`` (e.g. d), each sweeping tau."""
    return tuple(
        PanelSpec(
            name=f"{prefix}-{param}{v}",
            instance=instance,
            fixed={param: v, **fixed},
            sweep_param="tau",
            values=_TAUS,
            title=f"{title} ({param} = {v})",
            xlabel="tau",
        )
        for v in values
    )


CYCLIC = register_experiment(
    ExperimentSpec(
        name="stagewise-cyclic",
        title="LC-LUCB vs Safe-LTS on cyclic-shift star-convex sets (Pacchiano et al., E1, Figures 1, 5-7)",
        panels=_panels_by("cyclic", "stagewise/cyclic", "d", (3, 5, 10), {"sigma": 0.1}, "Cyclic shifts"),
        algorithms=LINEAR,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="stagewise-cyclic",
        algorithm_defaults={"delta": 0.05},
        horizon={"quick": QUICK_T, "paper": PAPER_T},
    )
)

BALL = register_experiment(
    ExperimentSpec(
        name="stagewise-ball",
        title="LC-LUCB vs Safe-LTS on the unit ball, 100 random rays (Pacchiano et al., E2, Figure 2)",
        panels=(
            PanelSpec(
                name="ball",
                instance="stagewise/ball",
                fixed={"n_rays": 100, "sigma": 0.1},
                sweep_param="d",
                values={"quick": (5, 10), "paper": (5, 10)},
                title="Unit ball (random theta, mu, tau)",
                xlabel="d",
            ),
        ),
        algorithms=LINEAR,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="stagewise-ball",
        algorithm_defaults={"delta": 0.05},
        horizon={"quick": QUICK_T, "paper": PAPER_T},
    )
)

RANDOM_MAB = register_experiment(
    ExperimentSpec(
        name="opb-random",
        title="OPB on random Bernoulli constrained MABs (Pacchiano et al., E3, Figure 3)",
        panels=_panels_by("mab", "stagewise/random-mab", "K", (5, 10, 20), {}, "Random MAB"),
        algorithms=OPB,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="opb-random",
        algorithm_defaults={"delta": 0.05},
        horizon={"quick": QUICK_T, "paper": PAPER_T},
    )
)

FOUR_ARM = register_experiment(
    ExperimentSpec(
        name="opb-four-arm",
        title="OPB on the four-armed instance (Pacchiano et al., E4, Figures 4 and 8)",
        panels=(
            PanelSpec(
                name="four-arm",
                instance="stagewise/four-arm",
                fixed={},
                sweep_param="tau",
                values={"quick": (0.8, 0.2), "paper": (0.8, 0.2, 0.5, 0.6)},
                title="Four arms, r = (0.1, 0.2, 0.4, 0.7), c = (0, 0.4, 0.5, 0.2)",
                xlabel="tau",
            ),
        ),
        algorithms=OPB,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="opb-four-arm",
        algorithm_defaults={"delta": 0.05},
        horizon={"quick": QUICK_T, "paper": PAPER_T},
    )
)
