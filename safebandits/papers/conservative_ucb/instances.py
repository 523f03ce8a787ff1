"""The instance of Wu, Shariff, Lattimore & Szepesvari (2016)'s experiments, as the authors' code builds it
(``tor/libbandit``, ``papers/2015-Conservative-Bandits/sim.cc``): five Gaussian arms of unit variance,
means (0.5, 0.6, 0.4, 0.4, 0.4), arm 0 the default arm."""

from __future__ import annotations

import numpy as np

from safebandits._validation import check_int, check_interval, check_positive
from safebandits.problems.conservative import ConservativeInstance
from safebandits.problems.noise import GaussianNoise
from safebandits.problems.registry import register_instance

__all__ = ["FIVE_ARM_MEANS", "five_arm"]

#: The means of ``sim.cc``'s experiments 1 and 2 (the default arm first).
FIVE_ARM_MEANS = (0.5, 0.6, 0.4, 0.4, 0.4)


@register_instance("cucb/five-arm")
def five_arm(
    *, alpha: float = 0.1, T: int = 10_000, known_default: bool = True, sigma: float = 1.0
) -> ConservativeInstance:
    """Wu et al. (2016): five Gaussian arms, means (0.5, 0.6, 0.4, 0.4, 0.4), arm 0 the default (mean 0.5)."""
    return ConservativeInstance(
        means=np.array(FIVE_ARM_MEANS),
        alpha=check_interval(alpha, "alpha", low=0.0, high=1.0, closed="both"),
        known_default=bool(known_default),
        noise=GaussianNoise(sigma=check_positive(sigma, "sigma")),
        horizon=check_int(T, "T", low=1),
        name="cucb/five-arm",
    )
