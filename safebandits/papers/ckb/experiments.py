"""Experiments of Zhou & Ji (NeurIPS 2022), Section 5: CKB-UCB, CKB-TS, CKB-Rand vs StageOpt and SGP-UCB.

``ckb-synthetic`` (Fig. 1a)
    Random RKHS ``f`` and ``g`` on 100 points of [0, 1] (SE, lengthscale 0.2), drawn afresh for every
    replicate; Gaussian noise sd 0.1. Paper scale: 50 trials of T = 10,000. Also run: CKB-UCB with the
    slack of Section 4 (``slack="auto"``), for the zero-violation claim (digest §5, claim 7).
``ckb-light`` (Fig. 1b, 1c)
    The 41 CMU light sensors, ``g = -f + B/2``, Gaussian noise sd 0.1; T = 1,000, 50 trials.
``ckb-finance`` (Fig. 2a-c; App. D missing)
    29 DJIA stocks, heavy-tailed rewards (the price on a random day), ``g = -f + B/2``; T = 10,000,
    50 trials (the paper's number of trials is unknown).
``ckb-slack-horizons`` (Section 4, no paper figure; issue 17)
    CKB-UCB with and without the slack (``slack="auto"``, ``eps = min(delta/2, K^(T)/T)``) on the synthetic
    functions at log-spaced horizons, one panel per horizon: T = 10^3, 10^3.5, 10^4, 10^4.5, 10^5 (both
    scales; 3 replicates quick, 50 paper). Section 4 speaks across horizons (``eps`` and ``V`` depend on
    ``T``), so the slack claim compares separate runs of different ``T``, not rounds of one run.

The ``quick`` scale runs 3 replicates with T = 2,000 (synthetic), 1,000 (light) and 3,000 (finance).
The real-data experiments need the data (``requires_data``): set ``SAFEBANDITS_DATA`` (or ``--set
data_dir=...``); without it ``safebandits run all`` skips them with one line and ``safebandits run
ckb-light`` stops with a clear error before running anything.
Figures: cumulative regret, time-averaged regret ``R(t)/t`` and the stronger violation
``sum_t [g(x_t)]_+``. Open choices: ``docs/decisions/ckb.md``.
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment

__all__ = ["ALGORITHMS", "FINANCE", "LIGHT", "SGP_START", "SLACK_HORIZONS", "SLACK_SWEEP", "SYNTHETIC"]

_BUDGET = {"quick": 10**9, "paper": 10**9}
_REPLICATES = {"quick": 3, "paper": 50}
_CURVES = ("regret", "per_step_regret", "violation")
_DEFAULTS = {"delta": 0.05}

#: The five methods of the paper's figures.
ALGORITHMS = (
    AlgorithmSpec(label="CKB-UCB", name="ckb-ucb"),
    AlgorithmSpec(label="CKB-TS", name="ckb-ts"),
    AlgorithmSpec(label="CKB-Rand", name="ckb-rand"),
    AlgorithmSpec(label="StageOpt", name="stageopt"),
    AlgorithmSpec(label="SGP-UCB", name="sgp-ucb"),
)
#: The synthetic RKHS functions of Fig. 1a: 100 points of [0, 1], SE kernel with l = 0.2.
_SYNTHETIC_FUNCTIONS = {"n_points": 100, "lengthscale": 0.2, "n_centres": 100}
SLACK = AlgorithmSpec(label="CKB-UCB (slack)", name="ckb-ucb", params={"slack": "auto"})

SYNTHETIC = register_experiment(
    ExperimentSpec(
        name="ckb-synthetic",
        title="CKB, synthetic RKHS functions (Zhou & Ji, Fig. 1a)",
        panels=(
            PanelSpec(
                name="synthetic",
                instance="ckb/synthetic",
                fixed=_SYNTHETIC_FUNCTIONS,
                sweep_param="sigma",
                values={"quick": (0.1,), "paper": (0.1,)},
                title="100 points of [0, 1], SE l = 0.2, new f, g per trial",
                xlabel="noise sd",
            ),
        ),
        algorithms=(*ALGORITHMS, SLACK),
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        figure_labels=tuple(a.label for a in ALGORITHMS),
        claims="ckb-synthetic",
        algorithm_defaults=_DEFAULTS,
        horizon={"quick": 2_000, "paper": 10_000},
        curves=_CURVES,
    )
)

LIGHT = register_experiment(
    ExperimentSpec(
        name="ckb-light",
        title="CKB, CMU light sensors (Zhou & Ji, Fig. 1b-c)",
        panels=(
            PanelSpec(
                name="light",
                instance="ckb/light",
                fixed={},
                sweep_param="sigma",
                values={"quick": (0.1,), "paper": (0.1,)},
                title="41 sensors, g = -f + B/2, Gaussian noise",
                xlabel="noise sd",
            ),
        ),
        algorithms=ALGORITHMS,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="ckb-light",
        algorithm_defaults=_DEFAULTS,
        requires_data=("light_sensors",),
        horizon={"quick": 1_000, "paper": 1_000},
        curves=_CURVES,
    )
)

FINANCE = register_experiment(
    ExperimentSpec(
        name="ckb-finance",
        title="CKB, heavy-tailed stock prices (Zhou & Ji, Fig. 2)",
        panels=(
            PanelSpec(
                name="finance",
                instance="ckb/finance",
                fixed={},
                sweep_param="noise",
                values={"quick": ("resample",), "paper": ("resample",)},
                title="29 DJIA stocks, reward = price on a random day, g = -f + B/2",
                xlabel="noise",
            ),
        ),
        algorithms=ALGORITHMS,
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="ckb-finance",
        algorithm_defaults=_DEFAULTS,
        requires_data=("finance",),
        horizon={"quick": 3_000, "paper": 10_000},
        curves=_CURVES,
    )
)

#: SGP-UCB's phase 1 (random safe exploration) alone: ``exploration_fraction = 1`` makes the whole horizon
#: phase 1; the paper-scale horizon 500 is the ``T'`` SGP-UCB uses in ``ckb-synthetic`` (5% of 10^4).
SGP_START = register_experiment(
    ExperimentSpec(
        name="ckb-sgp-start",
        title="SGP-UCB's random exploration stage on the synthetic functions (Zhou & Ji, Fig. 1a, start)",
        panels=(
            PanelSpec(
                name="synthetic",
                instance="ckb/synthetic",
                fixed=_SYNTHETIC_FUNCTIONS,
                sweep_param="sigma",
                values={"quick": (0.1,), "paper": (0.1,)},
                title="100 points of [0, 1], SE l = 0.2; SGP-UCB's first T' rounds",
                xlabel="noise sd",
            ),
        ),
        algorithms=(
            AlgorithmSpec(label="SGP-UCB", name="sgp-ucb", params={"exploration_fraction": 1.0}),
            AlgorithmSpec(label="CKB-UCB", name="ckb-ucb"),
        ),
        replicates={"quick": 3, "paper": 50},
        budget=_BUDGET,
        figure="regret-curves",
        claims="ckb-sgp-start",
        algorithm_defaults=_DEFAULTS,
        horizon={"quick": 100, "paper": 500},
        curves=_CURVES,
    )
)

#: Horizons of the slack sweep: half-decades from 10^3 to 10^5 (the paper's T = 10^4 in the middle).
SLACK_HORIZONS = (1_000, 3_162, 10_000, 31_623, 100_000)

#: Section 4 across horizons: one panel per horizon ``T`` (``T`` fixed in the panel, so ``--set T=...``
#: and ``--panel T=1000`` work as in every experiment; each panel has its own draws of ``f``, ``g``).
SLACK_SWEEP = register_experiment(
    ExperimentSpec(
        name="ckb-slack-horizons",
        title="CKB-UCB with the slack of Section 4 across horizons (Zhou & Ji, Sec. 4; no paper figure)",
        panels=tuple(
            PanelSpec(
                name=f"T={t}",
                instance="ckb/synthetic",
                fixed={**_SYNTHETIC_FUNCTIONS, "T": t},
                sweep_param="sigma",
                values={"quick": (0.1,), "paper": (0.1,)},
                title=f"100 points of [0, 1], SE l = 0.2, T = {t:,}",
                xlabel="noise sd",
            )
            for t in SLACK_HORIZONS
        ),
        algorithms=(AlgorithmSpec(label="CKB-UCB", name="ckb-ucb"), SLACK),
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="ckb-slack-horizons",
        algorithm_defaults=_DEFAULTS,
        curves=_CURVES,
    )
)
