"""Pool-based classification learners; importing this package registers them."""

from safebandits.algorithms.classification import fdr_active

__all__ = ["fdr_active"]
