"""Pure-exploration learners; importing this package registers them."""

from safebandits.algorithms.pure_exploration import acol, g_acol, static_allocation

__all__ = ["acol", "g_acol", "static_allocation"]
