"""CBAI instances of Lindner et al. (ICML 2022), Section 4.1-4.2."""

from __future__ import annotations

from typing import Literal

import numpy as np

from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.problems.linear import LinearCBAIInstance
from safebandits.problems.noise import make_noise
from safebandits.problems.registry import register_instance

__all__ = ["irrelevant_dimensions", "one_dimensional", "unit_sphere"]


#: Whether the learner is told the threshold ("known") or learns it as a coordinate ("learned").
ThresholdMode = Literal["known", "learned"]


def _finish(inst: LinearCBAIInstance, threshold_mode: ThresholdMode) -> LinearCBAIInstance:
    check_choice(threshold_mode, "threshold_mode", ThresholdMode)
    return inst.with_learned_threshold() if threshold_mode == "learned" else inst


@register_instance("acol/irrelevant-dimensions")
def irrelevant_dimensions(
    *,
    d: int = 10,
    epsilon: float = 0.05,
    noise: str = "gaussian",
    sigma: float = 0.05,
    threshold_mode: ThresholdMode = "known",
) -> LinearCBAIInstance:
    """Irrelevant dimensions: x_i = e_i (i < d), (1-eps) e_d, (1+eps) e_d; theta = phi = e_d, tau = 1.

    Lindner et al. (2022), Sec. 4.1 ("toy_3" in the authors' code). H_CLB = 1/eps^2 whatever d.
    """
    d = check_int(d, "d", low=1)
    eps = check_interval(epsilon, "epsilon", low=0.0, high=1.0)
    arms = np.zeros((d + 1, d))
    arms[: d - 1, : d - 1] = np.eye(d - 1)
    arms[d - 1, d - 1] = 1.0 - eps
    arms[d, d - 1] = 1.0 + eps
    e_d = np.zeros(d)
    e_d[-1] = 1.0
    inst = LinearCBAIInstance(
        arms=arms,
        reward_param=e_d,
        constraint_param=e_d,
        threshold=1.0,
        noise=make_noise(noise, sigma),
        name="acol/irrelevant-dimensions",
    )
    return _finish(inst, threshold_mode)


@register_instance("acol/unit-sphere", random=True)
def unit_sphere(
    *,
    rng: np.random.Generator,
    n_arms: int = 30,
    d: int = 30,
    noise: str = "gaussian",
    sigma: float = 0.05,
    threshold_mode: ThresholdMode = "known",
) -> LinearCBAIInstance:
    """Unit sphere: n arms and theta uniform on S^{d-1}; phi = x_j - x_i for the closest pair, tau = 0.

    Lindner et al. (2022), Sec. 4.1 ("get_unit_sphere_1"); drawn afresh for every replicate.
    """
    n = check_int(n_arms, "n_arms", low=2)
    d = check_int(d, "d", low=1)
    x = rng.standard_normal((n, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    theta = rng.standard_normal(d)
    theta /= np.linalg.norm(theta)
    sq = np.sum(x**2, axis=1)
    dist = sq[:, None] + sq[None, :] - 2.0 * x @ x.T
    dist[np.diag_indices(n)] = np.inf
    i, j = np.unravel_index(np.argmin(dist), dist.shape)
    i, j = min(i, j), max(i, j)
    inst = LinearCBAIInstance(
        arms=x,
        reward_param=theta,
        constraint_param=x[j] - x[i],
        threshold=0.0,
        noise=make_noise(noise, sigma),
        name="acol/unit-sphere",
    )
    return _finish(inst, threshold_mode)


@register_instance("acol/one-dimensional")
def one_dimensional(
    *,
    n_arms: int = 10,
    threshold: float = 0.25,
    noise: str = "gaussian",
    sigma: float = 0.05,
    threshold_mode: ThresholdMode = "known",
) -> LinearCBAIInstance:
    """1-D instance: arms 0.1, 0.2, ..., 1.0; theta = phi = 1, tau = 0.25 (Sec. 4.2, "toy_5").

    The feasible set {0.1, 0.2} is connected; x* = 0.2.
    """
    n = check_int(n_arms, "n_arms", low=2)
    tau = check_positive(threshold, "threshold")
    arms = (np.arange(1, n + 1) / n).reshape(-1, 1)
    inst = LinearCBAIInstance(
        arms=arms,
        reward_param=np.ones(1),
        constraint_param=np.ones(1),
        threshold=tau,
        noise=make_noise(noise, sigma),
        name="acol/one-dimensional",
    )
    return _finish(inst, threshold_mode)
