"""Pure-exploration learners; importing this package registers them."""

from safebandits.algorithms.pure_exploration import (
    acol,
    beside,
    beside_baselines,
    beside_practical,
    g_acol,
    rage,
    static_allocation,
)

__all__ = [
    "acol",
    "beside",
    "beside_baselines",
    "beside_practical",
    "g_acol",
    "rage",
    "static_allocation",
]
