"""Sample-complexity terms of BESIDE (Camilleri et al., NeurIPS 2022, Theorem 1 and Corollary 1).

Theorem 1 bounds the pulls of BESIDE by ``C (safety term + optimality term) + C_0`` with

* safety term ``sup_{eps' >= eps} min_lambda max_z ||z||^2_{A(lambda)^{-1}} log(m |Z| / delta) /
  (min_j |D^j_safe(z)| + max_j p(-D^j_safe(z)) + p(D^{eps'}(z)) + eps')^2``,
* optimality term ``sup_{eps' >= eps} min_lambda max_z ||z - z*||^2_{A(lambda)^{-1}} log(|Z| / delta) /
  (max_j p(-D^j_safe(z)) + p(D^{eps'}(z)) + eps')^2``,

``C = polylog(1/eps)`` and ``C_0`` unspecified: the functions return the two terms (constants 1) and the
maximising ``eps'`` over the grid ``eps * 2^k``. Corollary 1 (vacuous constraint ``mu = 0``, ``gamma = 1``,
``eps`` half the smallest gap) compares BESIDE's bound with the transductive BAI lower bound of Fiez et
al. (2019), ``log(1 / 2.4 delta) min_lambda max_{z != z*} ||z* - z||^2_{A(lambda)^{-1}} / Delta(z)^2``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from safebandits._validation import check_interval, check_positive
from safebandits.design import frank_wolfe_design
from safebandits.problems.transductive import TransductiveInstance, positive_part
from safebandits.types import FloatArray

__all__ = ["beside_bounds", "corollary1", "theorem1_terms"]


def _design_value(arms: FloatArray, targets: FloatArray, denom: FloatArray, tol: float) -> float:
    keep = np.linalg.norm(targets, axis=1) > 0.0
    if not np.any(keep):
        return 0.0
    if np.any(denom[keep] <= 0.0):
        return math.inf
    return float(frank_wolfe_design(arms, targets[keep], 1.0 / denom[keep] ** 2, tol=tol).value)


def _eps_grid(instance: TransductiveInstance, eps: float) -> list[float]:
    top = max(2.0, float(np.max(np.abs(instance.safety_gaps))), float(np.max(np.abs(instance.gaps))))
    n = max(1, math.ceil(math.log2(top / eps)) + 1)
    return [eps * 2.0**k for k in range(n)]


def theorem1_terms(
    instance: TransductiveInstance, *, delta: float = 0.05, epsilon: float | None = None, tol: float = 1e-4
) -> dict[str, Any]:
    """The safety and optimality terms of Theorem 1 (constants 1), with their maximising ``eps'``."""
    delta = check_interval(delta, "delta", low=0.0, high=1.0)
    eps = instance.epsilon if epsilon is None else check_positive(epsilon, "epsilon")
    g = instance.safety_gaps
    z, x = instance.decisions, instance.arms
    unsafe_part = positive_part(-g).max(axis=1)
    safety_log = math.log(instance.n_constraints * instance.n_decisions / delta)
    opt_log = math.log(instance.n_decisions / delta)
    best: dict[str, tuple[float, float]] = {"safety": (-math.inf, eps), "optimality": (-math.inf, eps)}
    for e in _eps_grid(instance, eps):
        d_eps = positive_part(np.nan_to_num(instance.eps_safe_gap(e), neginf=0.0))
        s = safety_log * _design_value(x, z, np.abs(g).min(axis=1) + unsafe_part + d_eps + e, tol)
        o = opt_log * _design_value(x, z - z[instance.optimal_arm], unsafe_part + d_eps + e, tol)
        if s > best["safety"][0]:
            best["safety"] = (s, e)
        if o > best["optimality"][0]:
            best["optimality"] = (o, e)
    return {
        "epsilon": eps,
        "delta": delta,
        "safety_term": best["safety"][0],
        "safety_term_eps": best["safety"][1],
        "optimality_term": best["optimality"][0],
        "optimality_term_eps": best["optimality"][1],
        "theorem1_total": best["safety"][0] + best["optimality"][0],
    }


def corollary1(instance: TransductiveInstance, *, delta: float = 0.05, tol: float = 1e-4) -> dict[str, Any]:
    """Corollary 1 terms and the transductive BAI lower bound; meaningful for vacuous constraints.

    Returns the BAI complexity ``H = min_lambda max_{z != z*} ||z* - z||^2 / Delta(z)^2``, the lower bound
    ``log(1 / 2.4 delta) H``, BESIDE's bound ``(H + min_lambda max_z ||z||^2) log(|Z| / delta)`` and their
    ratio (which should be a log factor).
    """
    delta = check_interval(delta, "delta", low=0.0, high=1.0)
    z, x = instance.decisions, instance.arms
    star = instance.optimal_arm
    others = np.flatnonzero(np.arange(instance.n_decisions) != star)
    gaps = instance.gaps[others]
    h = _design_value(x, z[star] - z[others], np.abs(gaps), tol) if others.size else 0.0
    g_value = _design_value(x, z, np.ones(instance.n_decisions), tol)
    lower = math.log(1.0 / (2.4 * delta)) * h
    bound = (h + g_value) * math.log(instance.n_decisions / delta)
    vacuous = bool(np.all(instance.constraint_params == 0.0) and instance.threshold >= 0.0)
    return {
        "vacuous_constraint": vacuous,
        "bai_complexity": h,
        "bai_lower_bound": lower,
        "corollary1_bound": bound,
        "bound_over_lower": bound / lower if lower > 0 else math.inf,
    }


def beside_bounds(
    instance: TransductiveInstance,
    *,
    delta: float = 0.05,
    epsilon: float | None = None,
    tol: float = 1e-4,
) -> dict[str, Any]:
    """Everything above for one instance, as a JSON-serialisable dict (``safebandits bounds``)."""
    out = {"instance": instance.describe(), **theorem1_terms(instance, delta=delta, epsilon=epsilon, tol=tol)}
    out["corollary1"] = corollary1(instance, delta=delta, tol=tol)
    return out
