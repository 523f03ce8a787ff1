"""Experiments of Amani, Alizadeh & Thrampoulidis (NeurIPS 2019), Figure 1 (and the arXiv Figure 2).

``safelucb-karm`` (Figure 1a)
    Average per-step regret ``R(t) / t`` of Safe-LUCB with ``T' = T_Delta`` (gap known), Safe-LUCB with
    ``T' = T_0`` (gap unknown, Theorem 3's literal ``T_0``) and GSLUCB (Algorithm 2, valid gap LCB) on
    random K-armed instances with a positive gap (``safelucb/karm``: d = 2, K = 20; one realisation per
    replicate). Main panel ``karm-random``: unconditioned draws (``condition="none"``), 200 at paper scale;
    extra panel ``karm``: "conditioned (margin condition; not the paper's draw)".
``safelucb-exploration`` (Figure 1b and the arXiv Figure 2)
    Per-step regret of Safe-LUCB with ``T' = T_Delta`` and without pure exploration (``T' = 0``) on the 2-D
    convex instance ``safelucb/2d-convex``; the report adds the picture of ``D0``, the true safe set,
    ``D^s_{T'+1}``, ``D^s_T`` and ``x*`` (:mod:`safebandits.papers.safe_lucb.figures`).
``safelucb-confidence`` (Theorem 1)
    Whether the true ``mu`` lies in Safe-LUCB's confidence ellipsoid ``C_t`` at every round ``t <= T``: an
    audit run (:mod:`safebandits.papers.safe_lucb.audit`) of Safe-LUCB with ``T' = T_Delta`` on the random
    K-armed draws of ``safelucb-karm`` (100 draws at paper scale) and on ``safelucb/2d-convex``.
``safelucb-rate-gap`` (Theorem 2) and ``safelucb-rate-zero`` (Theorem 3)
    Regret at the horizon ``R(T)`` against ``T`` (one run per horizon, ``T'`` set for that horizon):
    Safe-LUCB with ``T' = T_Delta`` on ``safelucb/2d-convex`` (``Delta = 0.66``) and with ``T' = T_0`` on
    ``safelucb/2d-boundary`` (``Delta = 0``); the claims read the log-log slope over the last decade.

Appendix F (parameters) is not in the paper we have: instances, ``delta = 0.01``, ``lambda = 1``, Gaussian
noise ``sigma = 0.1`` (``R = 0.1``) and the horizon ``T = 10^5`` (the figure's axis runs to "10" and the arXiv
caption shows ``D^s_{5e4}``) are ours (``docs/decisions/safe_lucb.md``). Figure 1 experiments use
``T = 10^5`` at both scales; quick runs 3 replicates, paper 20 (200 draws for ``safelucb-karm``).
"""

from __future__ import annotations

from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment
from safebandits.papers.safe_lucb.audit import CONFIDENCE_AUDIT

__all__ = ["CONFIDENCE", "EXPLORATION", "HORIZON", "KARM", "RATE_GAP", "RATE_HORIZONS", "RATE_ZERO"]

#: Horizon at both scales (instance parameter ``T``).
HORIZON = 100_000
_BUDGET = {"quick": 10**9, "paper": 10**9}
_REPLICATES = {"quick": 3, "paper": 20}
#: Random draws of the K-armed instance (one instance per draw; the claims read fractions of draws).
_KARM_REPLICATES = {"quick": 3, "paper": 200}
_DEFAULTS = {"delta": 0.01, "reg": 1.0}

T_DELTA = AlgorithmSpec(label="Safe-LUCB (T'=T_Delta)", name="safe-lucb", params={"t_prime": "t_delta"})
T_ZERO = AlgorithmSpec(label="Safe-LUCB (T'=T_0)", name="safe-lucb", params={"t_prime": "t0"})
GSLUCB = AlgorithmSpec(label="GSLUCB", name="gslucb")
NO_EXPLORATION = AlgorithmSpec(
    label="Safe-LUCB (no exploration)", name="safe-lucb", params={"t_prime": "none"}
)

#: The unconditioned K-armed draw of Figure 1a (main panel of ``safelucb-karm``; also audited for Theorem 1).
KARM_RANDOM_PANEL = PanelSpec(
    name="karm-random",
    instance="safelucb/karm",
    fixed={"d": 2, "sigma": 0.1, "c": 0.8, "condition": "none"},
    sweep_param="K",
    values={"quick": (20,), "paper": (20,)},
    title="K = 20 arms, d = 2, one random instance per draw (the paper's realisations)",
    xlabel="K",
)
#: The 2-D convex instance of Figure 1b (``safelucb-exploration``; also audited for Theorem 1).
CONVEX_PANEL = PanelSpec(
    name="2d-convex",
    instance="safelucb/2d-convex",
    fixed={},
    sweep_param="sigma",
    values={"quick": (0.1,), "paper": (0.1,)},
    title="Unit disc, mu = (0.6, 0.8), B = diag(-0.5, 1), c = 0.2",
    xlabel="sigma",
)

KARM = register_experiment(
    ExperimentSpec(
        name="safelucb-karm",
        title="Safe-LUCB and GSLUCB, K arms (Fig. 1a)",
        panels=(
            KARM_RANDOM_PANEL,
            PanelSpec(
                name="karm",
                instance="safelucb/karm",
                fixed={"d": 2, "sigma": 0.1, "c": 0.8, "condition": "margin"},
                sweep_param="K",
                values={"quick": (20,), "paper": (20,)},
                title="conditioned (margin condition; not the paper's draw), K = 20, d = 2",
                xlabel="K",
            ),
        ),
        algorithms=(T_DELTA, GSLUCB, T_ZERO),
        replicates=_KARM_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="safelucb-karm",
        algorithm_defaults=_DEFAULTS,
        horizon={"quick": HORIZON, "paper": HORIZON},
        curves=("per_step_regret", "regret"),
    )
)

EXPLORATION = register_experiment(
    ExperimentSpec(
        name="safelucb-exploration",
        title="Safe-LUCB with/without exploration (Fig. 1b)",
        panels=(CONVEX_PANEL,),
        algorithms=(T_DELTA, NO_EXPLORATION),
        replicates=_REPLICATES,
        budget=_BUDGET,
        figure="regret-curves",
        claims="safelucb-exploration",
        algorithm_defaults=_DEFAULTS,
        horizon={"quick": HORIZON, "paper": HORIZON},
        curves=("per_step_regret", "regret"),
    )
)

#: Horizons of the rate experiments: half-decades up to ``10^5`` (the slope reads the last decade).
RATE_HORIZONS = {"quick": (1_000, 10_000), "paper": (1_000, 3_162, 10_000, 31_623, 100_000)}


def _rate_experiment(
    name: str, title: str, instance: str, panel: str, panel_title: str, method: AlgorithmSpec
) -> ExperimentSpec:
    """A horizon sweep of one Safe-LUCB variant on one instance (one run per ``T``; Theorems 2 and 3)."""
    return register_experiment(
        ExperimentSpec(
            name=name,
            title=title,
            panels=(
                PanelSpec(
                    name=panel,
                    instance=instance,
                    fixed={},
                    sweep_param="T",
                    values=RATE_HORIZONS,
                    title=panel_title,
                    xlabel="T",
                ),
            ),
            algorithms=(method,),
            replicates=_REPLICATES,
            budget=_BUDGET,
            figure="regret-curves",
            claims=name,
            algorithm_defaults=_DEFAULTS,
            curves=("regret",),
        )
    )


RATE_GAP = _rate_experiment(
    "safelucb-rate-gap",
    "Safe-LUCB(T_Delta) regret against the horizon, Delta > 0 (Thm. 2)",
    "safelucb/2d-convex",
    "2d-convex-horizon",
    "Unit disc, mu = (0.6, 0.8), B = diag(-0.5, 1), c = 0.2 (Delta = 0.66); one run per T",
    T_DELTA,
)
RATE_ZERO = _rate_experiment(
    "safelucb-rate-zero",
    "Safe-LUCB(T_0) regret against the horizon, Delta = 0 (Thm. 3)",
    "safelucb/2d-boundary",
    "2d-boundary-horizon",
    "Unit disc, mu = (0.6, 0.8), B = diag(-1, -0.5), c = 0.6 (Delta = 0); one run per T",
    T_ZERO,
)

#: Draws of the Theorem 1 audit (one random K-armed instance per draw; 2d-convex: one noise path each).
_AUDIT_REPLICATES = {"quick": 3, "paper": 100}

CONFIDENCE = register_experiment(
    ExperimentSpec(
        name="safelucb-confidence",
        title="Safe-LUCB: mu in the confidence ellipsoid C_t at every round (Thm. 1)",
        panels=(KARM_RANDOM_PANEL, CONVEX_PANEL),
        algorithms=(
            AlgorithmSpec(
                label="Safe-LUCB (T'=T_Delta), audited", name=CONFIDENCE_AUDIT, params={"t_prime": "t_delta"}
            ),
        ),
        replicates=_AUDIT_REPLICATES,
        budget=_BUDGET,
        figure="extra-only",
        claims="safelucb-confidence",
        algorithm_defaults=_DEFAULTS,
        horizon={"quick": 10_000, "paper": HORIZON},
    )
)
