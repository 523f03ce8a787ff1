"""Regret-minimisation learners (filled by later families)."""

from safebandits.algorithms.regret import (  # noqa: F401
    gslucb,
    lc_lucb,
    opb,
    oplb,
    opnlb,
    safe_lts,
    safe_lucb,
    warm_start,
)
