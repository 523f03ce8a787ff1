"""Sample-complexity quantities and bounds of CBAI (Lindner et al., ICML 2022).

All quantities use margins ``phi^T x - tau`` (the paper writes them for ``tau = 0``) and assume
unit-variance noise, as the paper does; ``noise_variance`` scales the lower bound for Gaussian
noise of another variance.

References: Definition 2 (H_CLB), Theorem 1 (lower bound, constant 2.4 from its proof),
Proposition 1 (H_CLB <= d / C_min^2), Theorem 2 (ACOL), Theorems 3-4 (Oracle, G-Allocation, App. B).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from safebandits._validation import check_interval, check_positive
from safebandits.design import frank_wolfe_design
from safebandits.problems.linear import LinearCBAIInstance

__all__ = ["cbai_bounds", "h_clb", "h_clb_all_arms"]


def _weighted_design_value(instance: LinearCBAIInstance, idx: np.ndarray, tol: float) -> float:
    margins = instance.margins[idx]
    if np.any(margins == 0.0):
        return math.inf
    res = frank_wolfe_design(instance.arms, instance.arms[idx], 1.0 / margins**2, tol=tol)
    return float(res.value)


def h_clb(instance: LinearCBAIInstance, *, tol: float = 1e-4) -> float:
    """H_CLB = min_lambda max_{x in X_theta(x*)} ||x||^2_{A_lambda^{-1}} / (phi^T x - tau)^2 (Def. 2)."""
    return _weighted_design_value(instance, instance.competing_arms, tol)


def h_clb_all_arms(instance: LinearCBAIInstance, *, tol: float = 1e-4) -> float:
    """H~_CLB: the same with the maximum over all arms (Theorem 2)."""
    return _weighted_design_value(instance, np.arange(instance.n_arms), tol)


def cbai_bounds(
    instance: LinearCBAIInstance,
    *,
    delta: float = 0.05,
    epsilon: float = 0.01,
    phase_base: float = 2.0,
    noise_variance: float = 1.0,
    tol: float = 1e-4,
) -> dict[str, Any]:
    """Every bound of the paper for one instance, as a JSON-serialisable dict.

    Parameters
    ----------
    instance : LinearCBAIInstance
    delta : float in (0, 1)
        Confidence.
    epsilon : float
        Rounding accuracy of ACOL and the static baselines.
    phase_base : float > 1
        Round-length base v of Algorithm 3 (Oracle, G-Allocation).
    noise_variance : float
        Variance of Gaussian noise for the lower bound (the paper assumes 1).

    Returns
    -------
    dict with keys ``h_clb``, ``h_clb_all_arms``, ``c_min``, ``lower_bound``, ``worst_case``,
    ``acol_bound``, ``acol_rounds``, ``oracle_bound``, ``g_allocation_bound`` and the inputs.
    """
    delta = check_interval(delta, "delta", low=0.0, high=1.0)
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    v = check_interval(phase_base, "phase_base", low=1.0)
    noise_variance = check_positive(noise_variance, "noise_variance")
    n, d = instance.n_arms, instance.dim
    c_min = instance.min_abs_margin
    h = h_clb(instance, tol=tol)
    h_all = h_clb_all_arms(instance, tol=tol)
    g_value = float(frank_wolfe_design(instance.arms, tol=tol).value)  # = rank(X) (Kiefer-Wolfowitz)

    lower = 2.0 * math.log(1.0 / (2.4 * delta)) * h * noise_variance if 2.4 * delta < 1 else 0.0
    worst = d / c_min**2 if c_min > 0 else math.inf

    # Theorem 2: t_bar = ceil(log2(1 / C_min)) rounds.
    t_acol = max(1, math.ceil(math.log2(1.0 / c_min))) if c_min > 0 else math.inf
    acol = (
        8.0 * math.log(n * t_acol**2 / delta**2) * (1.0 + epsilon) * t_acol * h_all + t_acol
        if math.isfinite(t_acol)
        else math.inf
    )

    # Theorem 3: t_bar = ceil(log_v(2 (1+eps) H_CLB)).
    def rounds(x: float) -> int:
        return max(1, math.ceil(math.log(max(x, v)) / math.log(v)))

    if math.isfinite(h):
        t_or = rounds(2.0 * (1.0 + epsilon) * h)
        oracle = t_or * (1.0 + 2.0 * (1.0 + epsilon) * math.log(n * t_or**2 / delta**2) * h)
    else:
        t_or, oracle = None, math.inf
    # Theorem 4: t_bar = ceil(log_v(8 (1+eps) rho_G / C_min^2)), rho_G = min max ||x||^2 = rank.
    if c_min > 0:
        t_g = rounds(8.0 * (1.0 + epsilon) * g_value / c_min**2)
        g_alloc = t_g * (1.0 + 8.0 * (1.0 + epsilon) * math.log(n * t_g**2 / delta**2) * g_value / c_min**2)
    else:
        t_g, g_alloc = None, math.inf
    return {
        "instance": instance.name,
        "n_arms": n,
        "dim": d,
        "delta": delta,
        "epsilon": epsilon,
        "phase_base": v,
        "c_min": c_min,
        "h_clb": h,
        "h_clb_all_arms": h_all,
        "g_design_value": g_value,
        "lower_bound": lower,
        "worst_case": worst,
        "acol_rounds": t_acol,
        "acol_bound": acol,
        "oracle_rounds": t_or,
        "oracle_bound": oracle,
        "g_allocation_rounds": t_g,
        "g_allocation_bound": g_alloc,
    }
