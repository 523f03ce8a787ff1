"""Pure-exploration learners; importing this package registers them."""

from safebandits.algorithms.pure_exploration import g_acol

__all__ = ["g_acol"]
