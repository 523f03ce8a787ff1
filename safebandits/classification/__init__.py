"""Active classification under a false-discovery-rate constraint (Camilleri et al. 2022, Sec. 5)."""

from safebandits.classification.data import Pool, half_circle_pool, load_adult, load_german

__all__ = ["Pool", "half_circle_pool", "load_adult", "load_german"]
