"""Experiments of Lindner, Turchetta, Tschiatschek, Ciosek & Krause (ICML 2022), Sections 4.1-4.2.

``acol-synthetic``
    Figure 2 (and Figure 6, Appendix D): samples to stop on "irrelevant dimensions" (swept over
    epsilon at d = 10 and over d at epsilon = 0.05) and "unit sphere" (swept over n at d = 30 and
    over d at n = 30), sigma = 0.05 Gaussian noise, delta = 0.05, 30 replicates.
``acol-regret-comparison``
    Figure 3: the 1-D instance (tau = 0.25); G-ACOL vs Max Rew-U vs Max Rew-F with theory widths.
    Like the authors' config, every method is run; the figure shows the three compared ones.

The ``quick`` scale keeps 3 points per panel, 3-5 replicates and, for the sequential methods (whose cost
grows with every sample), a small per-run budget, so that ``safebandits run all --scale quick`` takes a
minute or two on 2 cores; runs that reach the budget are recorded as not stopped and the claims report
how many did. Round-based methods keep the paper budget at both scales.
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = [
    "ADAPTIVE",
    "FIGURE2_LABELS",
    "REGRET_COMPARISON",
    "STATIC",
    "SYNTHETIC",
    "adaptive_labels",
]

#: Round-based methods with static confidence intervals: label -> registered name.
STATIC = {"Uniform": "uniform", "G-Allocation": "g-allocation", "ACOL": "acol", "Oracle": "oracle"}

#: Sequential methods with adaptive confidence intervals (each in a theory and a tuned version).
ADAPTIVE = {
    "Greedy Max Var": "greedy-maxvar",
    "Adaptive Uniform": "adaptive-uniform",
    "G-ACOL": "g-acol",
    "G-ACOL Uniform": "g-acol-uniform",
    "Max Rew-U": "maxrew-u",
}
MAX_REW_F = {"Max Rew-F": "maxrew-f"}

WIDTHS = ("theory", "tuned")


def adaptive_labels(base: str) -> tuple[str, str]:
    """``("<base> (theory)", "<base> (tuned)")``."""
    return f"{base} (theory)", f"{base} (tuned)"


#: Per-run budget at paper scale of the methods whose every sample costs O(n^2) or O(n d + d^2) (G-ACOL and
#: Greedy Max Var), and at quick scale of the round-based methods: their cost grows with the number of
#: rounds (logarithmic in the samples), so their quick-scale runs are the paper-scale runs of the same points.
PAPER_BUDGET = 50_000_000
#: Per-run budget at paper scale of the sequential rules that take most samples in certified skips
#: (uniform and max-reward rules): a run of 10^9 samples costs them under a minute, and with theory
#: widths some unit-sphere instances need more than 5x10^7 samples.
LONG_BUDGET = 1_000_000_000
#: Per-run budget at paper scale of the round-based methods, whose cost is per round (a round of any
#: length costs O(arms)): some unit-sphere instances need more than 10^9 samples.
ROUND_BUDGET = 1_000_000_000_000
#: Sequential rules whose compiled runs skip certified stretches (``certified_skip``).
SKIPPING = frozenset({"adaptive-uniform", "g-acol-uniform", "maxrew-u", "maxrew-f"})


def _algorithms(adaptive: dict[str, str]) -> tuple[AlgorithmSpec, ...]:
    out = [
        AlgorithmSpec(label=label, name=name, budget={"quick": PAPER_BUDGET, "paper": ROUND_BUDGET})
        for label, name in STATIC.items()
    ]
    for base, name in adaptive.items():
        budget = {"paper": LONG_BUDGET} if name in SKIPPING else {}
        for width in WIDTHS:
            label = f"{base} ({width})"
            out.append(AlgorithmSpec(label=label, name=name, params={"width": width}, budget=budget))
    return tuple(out)


#: Methods drawn in Figure 2 (Figure 6 shows all).
FIGURE2_LABELS = (
    "Uniform",
    "G-Allocation",
    "ACOL",
    "Oracle",
    "Adaptive Uniform (tuned)",
    "Greedy Max Var (tuned)",
    "G-ACOL (tuned)",
    "G-ACOL (theory)",
)

_NOISE = {"noise": "gaussian", "sigma": 0.05, "threshold_mode": "known"}

SYNTHETIC = register_experiment(
    ExperimentSpec(
        name="acol-synthetic",
        title="ACOL synthetic instances (Lindner et al. 2022, Figure 2 / Figure 6)",
        panels=(
            PanelSpec(
                name="irrelevant-epsilon",
                instance="acol/irrelevant-dimensions",
                fixed={"d": 10, **_NOISE},
                sweep_param="epsilon",
                values={
                    "quick": (0.02, 0.05, 0.1),
                    "paper": (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1),
                },
                title="Irrelevant dimensions (d = 10)",
                xlabel="epsilon",
            ),
            PanelSpec(
                name="irrelevant-d",
                instance="acol/irrelevant-dimensions",
                fixed={"epsilon": 0.05, **_NOISE},
                sweep_param="d",
                values={"quick": (5, 25, 50), "paper": tuple(range(5, 51, 5))},
                title="Irrelevant dimensions (epsilon = 0.05)",
                xlabel="d",
            ),
            PanelSpec(
                name="sphere-n",
                instance="acol/unit-sphere",
                fixed={"d": 30, **_NOISE},
                sweep_param="n_arms",
                values={"quick": (10, 50, 100), "paper": tuple(range(10, 101, 10))},
                title="Unit sphere (d = 30)",
                xlabel="n",
            ),
            PanelSpec(
                name="sphere-d",
                instance="acol/unit-sphere",
                fixed={"n_arms": 30, **_NOISE},
                sweep_param="d",
                values={"quick": (10, 50, 100), "paper": tuple(range(10, 101, 10))},
                title="Unit sphere (n = 30)",
                xlabel="d",
            ),
        ),
        algorithms=_algorithms(ADAPTIVE),
        replicates={"quick": 3, "paper": 30},
        budget={"quick": 100_000, "paper": PAPER_BUDGET},
        figure="samples-vs-sweep",
        figure_labels=FIGURE2_LABELS,
        claims="acol-synthetic",
        algorithm_defaults={"delta": 0.05},
    )
)

REGRET_COMPARISON = register_experiment(
    ExperimentSpec(
        name="acol-regret-comparison",
        title="ACOL vs regret-minimisation baselines on the 1-D instance (Lindner et al. 2022, Figure 3)",
        panels=(
            PanelSpec(
                name="one-dimensional",
                instance="acol/one-dimensional",
                fixed={"n_arms": 10, **_NOISE},
                sweep_param="threshold",
                values={"quick": (0.25,), "paper": (0.25,)},
                title="1-D instance (tau = 0.25)",
                xlabel="tau",
            ),
        ),
        algorithms=_algorithms({**ADAPTIVE, **MAX_REW_F}),
        replicates={"quick": 5, "paper": 30},
        budget={"quick": 1_000_000, "paper": PAPER_BUDGET},
        figure="bar-samples",
        figure_labels=("G-ACOL (theory)", "Max Rew-U (theory)", "Max Rew-F (theory)"),
        claims="acol-regret-comparison",
        algorithm_defaults={"delta": 0.05},
    )
)
