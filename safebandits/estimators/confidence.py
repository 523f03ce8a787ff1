"""Confidence widths ``beta_t`` for linear estimates: ``|phi^T x - phi_hat^T x| <= beta_t ||x||_{A^{-1}}``.

Two families (Lindner et al., ICML 2022, Sec. 3.1):

* :func:`static_width` -- Proposition 2, for a *fixed* allocation (data not chosen adaptively):
  ``beta = sqrt(2 log(|X| / delta))``.
* :func:`adaptive_width` -- Proposition 3 (Abbasi-Yadkori et al., 2011, Thm. 2), valid for all ``t``
  simultaneously under adaptive sampling:
  ``beta_t = R sqrt(d log((1 + t L^2 / lambda) / delta)) + sqrt(lambda) S``.

A "tuned" width (Sec. 3.4, heuristic) is just a constant float multiplier; it needs no function.

Both widths assume unit (``R``-) sub-Gaussian noise; neither uses the simulated noise level.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.extending import overload

from safebandits._validation import check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = ["adaptive_width", "adaptive_width_inline", "adaptive_width_scalar", "static_width"]


def static_width(n_arms: int, delta: float) -> float:
    """Width of Proposition 2 for a fixed allocation: ``sqrt(2 log(n_arms / delta))``.

    Parameters
    ----------
    n_arms : int
        Number of arms ``|X|`` (the union bound runs over them).
    delta : float in (0, 1)
        Error probability.

    Returns
    -------
    float

    Examples
    --------
    >>> round(static_width(10, 0.05), 4)
    3.2552
    """
    n = check_int(n_arms, "n_arms", low=1)
    delta = check_interval(delta, "delta", low=0.0, high=1.0)
    return math.sqrt(2.0 * math.log(n / delta))


def adaptive_width(
    t: int | np.ndarray,
    dim: int,
    delta: float,
    reg: float,
    noise_bound: float = 1.0,
    arm_norm_bound: float = 1.0,
    param_norm_bound: float = 1.0,
) -> float | FloatArray:
    """Width of Proposition 3 (self-normalised bound of Abbasi-Yadkori et al., 2011, Thm. 2).

    ``beta_t = R sqrt(d log((1 + t L^2 / reg) / delta)) + sqrt(reg) S``.

    Parameters
    ----------
    t : int or array-like of int
        Number of samples so far (``t >= 0``); vectorised over arrays.
    dim : int
        Dimension ``d``.
    delta : float in (0, 1)
        Error probability.
    reg : float > 0
        Ridge regulariser ``lambda`` (``A_0 = lambda I``).
    noise_bound : float > 0
        Sub-Gaussian constant ``R`` of the noise.
    arm_norm_bound : float > 0
        ``L >= ||x||_2`` for every arm.
    param_norm_bound : float >= 0
        ``S >= ||phi||_2``.

    Returns
    -------
    float or ndarray of shape ``np.shape(t)``

    Examples
    --------
    >>> round(adaptive_width(0, 2, 0.05, 0.1), 4)
    2.764
    """
    owner = "adaptive_width"
    dim = check_int(dim, "dim", low=1, owner=owner)
    delta = check_interval(delta, "delta", low=0.0, high=1.0, owner=owner)
    reg = check_positive(reg, "reg", owner=owner)
    r = check_positive(noise_bound, "noise_bound", owner=owner)
    big_l = check_positive(arm_norm_bound, "arm_norm_bound", owner=owner)
    s = check_positive(param_norm_bound, "param_norm_bound", owner=owner, allow_zero=True)
    t_arr = np.asarray(t, dtype=np.float64)
    if not np.all(np.isfinite(t_arr)) or np.any(t_arr < 0):
        raise ConfigError(
            "The 't' parameter of adaptive_width must be a non-negative number of samples. "
            f"Got {t!r} instead."
        )
    out = r * np.sqrt(dim * np.log((1.0 + t_arr * big_l**2 / reg) / delta)) + math.sqrt(reg) * s
    return float(out) if out.ndim == 0 else out


@numba.njit(cache=True)
def adaptive_width_scalar(
    t: float,
    dim: float,
    delta: float,
    reg: float,
    noise_bound: float,
    arm_norm_bound: float,
    param_norm_bound: float,
) -> float:
    """Unchecked scalar :func:`adaptive_width` for compiled loops (same formula, no validation)."""
    return (
        noise_bound * math.sqrt(dim * math.log((1.0 + t * arm_norm_bound * arm_norm_bound / reg) / delta))
        + math.sqrt(reg) * param_norm_bound
    )


def adaptive_width_inline(t, dim, delta, reg, noise_bound, arm_norm_bound, param_norm_bound):
    """:func:`~safebandits.estimators.confidence.adaptive_width_scalar`, inlined into a compiled caller
    (no call on its path: G-ACOL's and Safe-LUCB's per-sample kernels)."""
    return adaptive_width_scalar(t, dim, delta, reg, noise_bound, arm_norm_bound, param_norm_bound)


@overload(adaptive_width_inline, inline="always")
def _overload_adaptive_width_inline(  # (annotated as the implementation: numba compares the two signatures)
    t: float,
    dim: float,
    delta: float,
    reg: float,
    noise_bound: float,
    arm_norm_bound: float,
    param_norm_bound: float,
):
    return adaptive_width_scalar.py_func  # (the same function's code, inlined: no call in the caller)
