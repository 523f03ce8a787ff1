"""Experiments of Camilleri, Wagenmaker, Morgenstern, Jain & Jamieson (NeurIPS 2022), Section 4.

``beside-mab``
    Figure 2: total pulls against the number of arms K on the multi-armed instance ``beside/mab`` (every
    arm safe, the best hard to certify, the second easy), eps = 0.5, delta = 0.1.
``beside-linear``
    Figure 3: total pulls against |Z| on random Gaussian linear instances ``beside/linear`` (|X| = 50,
    d = 5, unit-norm vectors, gamma = 0, eps = 0.2, delta = 0.1), drawn afresh for every replicate.
``beside-hard``
    Figure 4: total pulls against eps on instance I1 of Proposition 2 (``alpha = 4 eps``), log-log, BESIDE
    against the XY_diff-only strategy (expected slopes about 2 and 3 in ``1/eps``).
``beside-example1``
    Example 1 (Section 2, no figure numbers survive): total pulls on ``beside/example1`` as the gap
    ``Delta(e_2)`` (panel ``e2-gap``) or the safety gap ``Delta_safe(e_3)`` (panel ``e3-safety``) shrinks,
    BESIDE against XY_diff-only (which must pay ``Delta(e_2)^-2``: the contrast that lets the claim fail).
``beside-vacuous``
    Corollary 1: BESIDE against RAGE on ``beside/vacuous`` (``mu = 0``, ``gamma = 1``, ``eps`` half the
    smallest gap) as the angle ``omega`` (the second-best gap ``1 - cos omega``) shrinks.

``beside-worst-case``
    Corollary 2 (``X = Z``): practical BESIDE on ``beside/worst-case`` (|X| = |Z| = 20, d = 5,
    eps = 0.1; safety undecidable above precision eps) as the number of constraints m grows.

"BESIDE" is the practical elimination version (as in the paper's experiments), the library row.
"BESIDE (Alg. 1, RIPS)" is BESIDE as printed (``"beside"``: Algorithm 1's structure and constants, RIPS);
it needs ``10^4 L rho`` pulls per round, so it runs where that is affordable: every point of
``beside-example1`` and the four largest eps of ``beside-hard`` at the paper scale (eps = 0.02 at the
quick scale) (:data:`ALG1_POINTS`); not ``beside-worst-case`` (15-29 million pulls and 6-24 s per run
already at m = 1-2, with a RIPS cost growing with m; ``docs/decisions/beside.md``). The
``quick`` scale (2-3 points, 2-3 replicates) is a smoke test; ``paper`` uses the grids below and 10-20
replicates. Unspecified settings (d, eps and the grids of Figure 3, the eps grid of Figure 4, the MAB
numbers): ``docs/decisions/beside.md``.
"""

from __future__ import annotations

import numpy as np

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = [
    "ALG1",
    "ALG1_POINTS",
    "EXAMPLE1",
    "HARD",
    "LINEAR",
    "MAB",
    "METHODS",
    "VACUOUS",
    "WORST_CASE",
    "loglog_slope",
]

#: Compared methods: label -> registered name.
METHODS = {
    "BESIDE": "beside-practical",
    "BASELINE": "beside-baseline",
    "XY_diff-only": "xy-diff-only",
    "XY_safe-only": "xy-safe-only",
    "Passive": "passive",
}
_ALL = tuple(AlgorithmSpec(label=label, name=name) for label, name in METHODS.items())
#: Label of BESIDE as printed (Algorithm 1, RIPS estimator), run beside the library's practical BESIDE.
ALG1 = "BESIDE (Alg. 1, RIPS)"
#: Where BESIDE as printed runs, by experiment (``AlgorithmSpec.points``; measured costs and the reason
#: in ``docs/decisions/beside.md``, "BESIDE as printed as an extra row").
ALG1_POINTS: dict[str, dict[str, dict[str, tuple[float, ...]]]] = {
    "beside-hard": {"quick": {"hard-i1": (0.02,)}, "paper": {"hard-i1": (0.04, 0.028, 0.02, 0.014)}},
}


def _alg1(experiment: str) -> AlgorithmSpec:
    return AlgorithmSpec(label=ALG1, name="beside", points=ALG1_POINTS.get(experiment, {}))


_DEFAULTS = {"delta": 0.1}
_BUDGET = {"quick": 200_000_000, "paper": 1_000_000_000}

MAB = register_experiment(
    ExperimentSpec(
        name="beside-mab",
        title="BESIDE vs BASELINE, multi-armed instance (Camilleri et al. 2022, Figure 2)",
        panels=(
            PanelSpec(
                name="mab",
                instance="beside/mab",
                fixed={"epsilon": 0.5},
                sweep_param="n_arms",
                values={"quick": (10, 50, 100), "paper": (5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100)},
                title="Multi-armed (eps = 0.5, delta = 0.1)",
                xlabel="number of arms",
            ),
        ),
        algorithms=_ALL,
        replicates={"quick": 3, "paper": 20},
        budget=_BUDGET,
        figure="samples-vs-sweep",
        figure_labels=("BESIDE", "BASELINE"),
        claims="beside-mab",
        algorithm_defaults=_DEFAULTS,
    )
)

LINEAR = register_experiment(
    ExperimentSpec(
        name="beside-linear",
        title="BESIDE vs BASELINE, random linear instances (Camilleri et al. 2022, Figure 3)",
        panels=(
            PanelSpec(
                name="linear",
                instance="beside/linear",
                fixed={"n_measurements": 50, "d": 5, "epsilon": 0.2, "threshold": 0.0},
                sweep_param="n_decisions",
                values={"quick": (10, 25, 50), "paper": (10, 20, 40, 60, 80, 100)},
                title="Random Gaussian instances (|X| = 50, d = 5, eps = 0.2)",
                xlabel="|Z|",
            ),
        ),
        algorithms=_ALL,
        replicates={"quick": 3, "paper": 20},
        budget=_BUDGET,
        figure="samples-vs-sweep",
        figure_labels=("BESIDE", "BASELINE"),
        claims="beside-linear",
        algorithm_defaults=_DEFAULTS,
    )
)

HARD = register_experiment(
    ExperimentSpec(
        name="beside-hard",
        title="BESIDE vs XY_diff-only on instance I1 (Camilleri et al. 2022, Figure 4)",
        panels=(
            PanelSpec(
                name="hard-i1",
                instance="beside/hard-i1",
                fixed={},
                sweep_param="epsilon",
                values={
                    "quick": (0.02, 0.01, 0.005),
                    "paper": (0.04, 0.028, 0.02, 0.014, 0.01, 0.007, 0.005, 0.0035, 0.0025),
                },
                title="Instance I1 (alpha = 4 eps)",
                xlabel="eps",
            ),
        ),
        algorithms=(
            *(a for a in _ALL if a.label in ("BESIDE", "XY_diff-only", "BASELINE")),
            _alg1("beside-hard"),
        ),
        replicates={"quick": 3, "paper": 20},
        budget=_BUDGET,
        figure="samples-vs-sweep",
        figure_labels=("BESIDE", "XY_diff-only"),
        claims="beside-hard",
        algorithm_defaults=_DEFAULTS,
    )
)

EXAMPLE1 = register_experiment(
    ExperimentSpec(
        name="beside-example1",
        title="BESIDE on Example 1: gaps it should never pay for (Camilleri et al. 2022, Section 2)",
        panels=(
            PanelSpec(
                name="e2-gap",
                instance="beside/example1",
                fixed={"epsilon": 0.01},
                sweep_param="value_advantage_2",
                values={"quick": (0.1, 0.025), "paper": (0.2, 0.1, 0.05, 0.025, 0.0125)},
                title="Shrinking Delta(e_2)",
                xlabel="Delta(e_2)",
            ),
            PanelSpec(
                name="e3-safety",
                instance="beside/example1",
                fixed={"epsilon": 0.01},
                sweep_param="safety_gap_3",
                values={"quick": (-0.04, -0.01), "paper": (-0.08, -0.04, -0.02, -0.01, -0.005)},
                title="Shrinking Delta_safe(e_3)",
                xlabel="Delta_safe(e_3)",
            ),
        ),
        algorithms=(*(a for a in _ALL if a.label in ("BESIDE", "XY_diff-only")), _alg1("beside-example1")),
        replicates={"quick": 2, "paper": 10},
        budget=_BUDGET,
        figure="samples-vs-sweep",
        figure_labels=("BESIDE", "XY_diff-only"),
        claims="beside-example1",
        algorithm_defaults=_DEFAULTS,
    )
)

VACUOUS = register_experiment(
    ExperimentSpec(
        name="beside-vacuous",
        title="BESIDE vs RAGE under a vacuous constraint (Camilleri et al. 2022, Corollary 1)",
        panels=(
            PanelSpec(
                name="vacuous",
                instance="beside/vacuous",
                fixed={"d": 4},
                sweep_param="omega",
                values={"quick": (0.5, 0.3), "paper": (0.8, 0.5, 0.3, 0.2, 0.1)},
                title="Soare et al. benchmark, mu = 0, gamma = 1 (eps = half the smallest gap)",
                xlabel="omega",
            ),
        ),
        algorithms=(*(a for a in _ALL if a.label == "BESIDE"), AlgorithmSpec(label="RAGE", name="rage")),
        replicates={"quick": 2, "paper": 10},
        budget=_BUDGET,
        figure="samples-vs-sweep",
        figure_labels=("BESIDE", "RAGE"),
        claims="beside-vacuous",
        algorithm_defaults=_DEFAULTS,
    )
)

WORST_CASE = register_experiment(
    ExperimentSpec(
        name="beside-worst-case",
        title="BESIDE as the number of constraints grows, X = Z (Camilleri et al. 2022, Corollary 2)",
        panels=(
            PanelSpec(
                name="worst-case",
                instance="beside/worst-case",
                fixed={"n_arms": 20, "d": 5, "epsilon": 0.1, "safety_scale": 0.005},
                sweep_param="n_constraints",
                values={"quick": (1, 4, 16), "paper": (1, 2, 4, 8, 16)},
                title="Random X = Z (|X| = 20, d = 5, eps = 0.1, safety gaps in [0, 0.01])",
                xlabel="number of constraints m",
            ),
        ),
        algorithms=tuple(a for a in _ALL if a.label == "BESIDE"),
        replicates={"quick": 3, "paper": 20},
        budget=_BUDGET,
        figure="samples-vs-sweep",
        figure_labels=("BESIDE",),
        claims="beside-worst-case",
        algorithm_defaults=_DEFAULTS,
    )
)


def loglog_slope(eps: np.ndarray, pulls: np.ndarray) -> float:
    """Least-squares slope of ``log(pulls)`` against ``log(1 / eps)`` (``nan`` with fewer than 2 points)."""
    x, y = np.log(1.0 / np.asarray(eps, dtype=float)), np.log(np.asarray(pulls, dtype=float))
    if np.unique(x).size < 2:
        return float("nan")
    return float(np.polyfit(x, y, 1)[0])
