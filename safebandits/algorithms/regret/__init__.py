"""Regret-minimisation learners (filled by later families)."""

from safebandits.algorithms.regret import (  # noqa: F401
    boin,
    ckb,
    clucb,
    clucb2,
    conservative_baselines,
    conservative_ucb,
    crm,
    dose_escalation,
    gslucb,
    lc_lucb,
    opb,
    oplb,
    opnlb,
    safe_lts,
    safe_lucb,
    safeopt,
    sgp_ucb,
    stageopt,
    uniform_exploration,
    warm_start,
)
