"""The library's own conservative instance, ``conservative/random``: K arms with means drawn uniformly in
``[0, 1]``, arm 0 the default arm (registered by the instance registry, like ``user/declared``; the
paper's instances live in ``safebandits.papers.conservative_ucb``)."""

from __future__ import annotations

import numpy as np

from safebandits._validation import check_int, check_interval, check_positive
from safebandits.problems.conservative import ConservativeInstance
from safebandits.problems.noise import GaussianNoise

__all__ = ["random_conservative"]


def random_conservative(
    *,
    rng: np.random.Generator,
    K: int = 5,
    alpha: float = 0.1,
    known_default: bool = True,
    sigma: float = 1.0,
    T: int = 10_000,
    default_mean: float | None = None,
) -> ConservativeInstance:
    """K arms, means uniform in [0, 1], arm 0 the default arm (its mean ``default_mean`` if given),
    Gaussian rewards (sigma); tolerance alpha."""
    k = check_int(K, "K", low=2, high=4096)
    means = rng.uniform(0.0, 1.0, size=k)
    if default_mean is not None:
        means[0] = check_interval(default_mean, "default_mean", low=0.0, high=1.0, closed="both")
    return ConservativeInstance(
        means=means,
        alpha=check_interval(alpha, "alpha", low=0.0, high=1.0, closed="both"),
        known_default=bool(known_default),
        noise=GaussianNoise(sigma=check_positive(sigma, "sigma")),
        horizon=check_int(T, "T", low=1),
        name="conservative/random",
    )
