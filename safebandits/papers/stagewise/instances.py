"""Instances of Pacchiano, Ghavamzadeh & Bartlett (stage-wise constraints), experiments E1-E4.

The paper never states the horizon, the noise law of the linear experiments, ``R``, ``delta``, ``S``
or ``L``; our defaults are recorded in ``docs/decisions/stagewise.md`` (Stage-wise constrained bandits).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError
from safebandits.problems.noise import make_noise
from safebandits.problems.registry import register_instance
from safebandits.problems.stagewise import StagewiseInstance

__all__ = ["ball", "cyclic", "four_arm", "lower_bound", "random_mab"]

CyclicVariant = Literal["flipped", "literal"]
LowerBoundVariant = Literal["nu", "nu-prime"]
RandomLinearActionSet = Literal["star", "points"]


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@register_instance("stagewise/cyclic")
def cyclic(
    *,
    d: int = 10,
    tau: float = 0.5,
    T: int = 10_000,
    sigma: float = 0.1,
    variant: CyclicVariant = "flipped",
    known_safe_values: bool = True,
) -> StagewiseInstance:
    """E1: star-convex set of the d cyclic shifts of the flipped vector; x0 = 0, theta = v/|v|, mu = flip.

    ``v = (0, 1, ..., d-1)``. ``variant="flipped"`` (default, the authors' code; reproduces the 0.561 of
    Figure 1's caption): vertex k has entries ``((d-1) - i + k) mod d / |v|``. ``variant="literal"``:
    the cyclic shifts of ``v`` itself, as the text reads. Gaussian noise of standard deviation ``sigma``.
    """
    d = check_int(d, "d", low=2)
    tau = check_interval(tau, "tau", low=0.0, high=np.inf, closed="neither")
    check_choice(variant, "variant", CyclicVariant)
    v = np.arange(d, dtype=np.float64)
    norm = np.linalg.norm(v)
    i = np.arange(d)[:, None]
    k = np.arange(d)[None, :]
    if variant == "flipped":
        cols = (((d - 1) - i + k) % d) / norm  # column k = vertex k
    else:
        cols = ((i - k) % d) / norm  # column k = v shifted by k
    arms = np.ascontiguousarray(cols.T)
    return StagewiseInstance(
        arms=arms,
        safe_action=np.zeros(d),
        reward_param=v / norm,
        cost_params=(v[::-1] / norm)[None, :],
        threshold=np.array([tau]),
        noise=make_noise("gaussian", sigma),
        action_set="star",
        horizon=check_int(T, "T", low=1),
        known_safe_values=bool(known_safe_values),
        name="stagewise/cyclic",
    )


@register_instance("stagewise/ball", random=True)
def ball(
    *,
    rng: np.random.Generator,
    d: int = 5,
    n_rays: int = 100,
    T: int = 10_000,
    sigma: float = 0.1,
    known_safe_values: bool = True,
) -> StagewiseInstance:
    """E2: the unit ball approximated by ``n_rays`` random rays from x0 = 0; theta, mu uniform on the
    sphere and tau ~ U(0, 1), drawn afresh for every replicate (Sec. 4.5)."""
    d = check_int(d, "d", low=1)
    n_rays = check_int(n_rays, "n_rays", low=1)
    theta = _unit(rng, 1, d)[0]
    mu = _unit(rng, 1, d)
    tau = rng.uniform(0.0, 1.0)
    while tau <= 0.0:  # pragma: no cover - probability zero
        tau = rng.uniform(0.0, 1.0)
    arms = _unit(rng, n_rays, d)
    return StagewiseInstance(
        arms=arms,
        safe_action=np.zeros(d),
        reward_param=theta,
        cost_params=mu,
        threshold=np.array([tau]),
        noise=make_noise("gaussian", sigma),
        action_set="star",
        horizon=check_int(T, "T", low=1),
        known_safe_values=bool(known_safe_values),
        name="stagewise/ball",
    )


def _mab(
    rewards: np.ndarray,
    costs: np.ndarray,
    tau: float,
    T: int,
    known: bool,
    name: str,
    noise: str = "bernoulli",
    sigma: float = 0.1,
) -> StagewiseInstance:
    k = rewards.shape[0]
    return StagewiseInstance(
        arms=np.eye(k),
        safe_action=np.eye(k)[0],
        reward_param=rewards,
        cost_params=costs[None, :],
        threshold=np.array([tau]),
        noise=make_noise("bernoulli") if noise == "bernoulli" else make_noise(noise, sigma),
        action_set="simplex",
        horizon=check_int(T, "T", low=1),
        known_safe_values=bool(known),
        name=name,
    )


@register_instance("stagewise/random-mab", random=True)
def random_mab(
    *,
    rng: np.random.Generator,
    K: int = 10,
    tau: float = 0.5,
    T: int = 10_000,
    known_safe_values: bool = True,
) -> StagewiseInstance:
    """E3: K Bernoulli arms; arm 0 safe with reward and cost 0, the others' means uniform on [0, 1]."""
    k = check_int(K, "K", low=2)
    tau = check_interval(tau, "tau", low=0.0, high=1.0, closed="neither")
    rewards = np.concatenate([[0.0], rng.uniform(0.0, 1.0, k - 1)])
    costs = np.concatenate([[0.0], rng.uniform(0.0, 1.0, k - 1)])
    return _mab(rewards, costs, tau, T, known_safe_values, "stagewise/random-mab")


#: Means of the fixed four-armed instance (E4, Sec. 5.4): arm 0 is safe.
FOUR_ARM_REWARDS = (0.1, 0.2, 0.4, 0.7)
FOUR_ARM_COSTS = (0.0, 0.4, 0.5, 0.2)


MabNoise = Literal["bernoulli", "clipped-gaussian"]


@register_instance("stagewise/four-arm")
def four_arm(
    *,
    tau: float = 0.8,
    T: int = 10_000,
    known_safe_values: bool = True,
    noise: MabNoise = "bernoulli",
    sigma: float = 0.1,
) -> StagewiseInstance:
    """E4: rewards (0.1, 0.2, 0.4, 0.7) and costs (0, 0.4, 0.5, 0.2); arm 0 is safe.

    ``noise="bernoulli"`` (default, the paper's Bernoulli arms); ``"clipped-gaussian"``: the authors'
    code's ``SimpleGaussianArm(mean, sigma, truncated=True)``, a Gaussian of standard deviation
    ``sigma`` (0.1 there) clipped to ``[0, 1]`` (issue 31; ``docs/decisions/stagewise.md``)."""
    tau = check_interval(tau, "tau", low=0.0, high=1.0, closed="neither")
    check_choice(noise, "noise", MabNoise)
    return _mab(
        np.array(FOUR_ARM_REWARDS), np.array(FOUR_ARM_COSTS), tau, T, known_safe_values,
        "stagewise/four-arm", noise, check_positive(sigma, "sigma"),
    )  # fmt: skip


@register_instance("stagewise/lower-bound")
def lower_bound(
    *,
    gap: float = 0.1,
    tau: float = 0.5,
    safe_reward: float = 0.5,
    K: int = 4,
    variant: LowerBoundVariant = "nu",
    T: int = 10_000,
    known_safe_values: bool = True,
) -> StagewiseInstance:
    """The constrained-MAB pair of the lower bound (Thm. 21, second term; Thm. 34), Gaussian unit noise.

    ``c = gap = tau - c0``, ``Delta = (1 - r0) / 7``, ``D = (8 r0 - 1) / 7`` (needs ``r0 >= 1/8``).
    Instance ``"nu"``: costs ``(tau - c, tau + 2c, tau - c, tau + 2c, ..., tau + 2c)``, rewards
    ``(D + Delta, D + 8 Delta, D, D + 4 Delta, ..., D + 4 Delta)`` (optimal policy 2/3 on arm 0, 1/3 on
    arm 1); ``"nu-prime"``: arm 3's cost is ``tau - c`` (optimal: arm 3). Arm 0 is the safe arm
    (``r0``, ``c0 = tau - c``).
    """
    c = check_positive(gap, "gap")
    tau = check_interval(tau, "tau", low=0.0, high=1.0, closed="neither")
    r0 = check_interval(safe_reward, "safe_reward", low=0.125, high=1.0, closed="left")
    k = check_int(K, "K", low=4)
    variant = check_choice(variant, "variant", LowerBoundVariant)
    if c >= tau:
        raise ConfigError(
            f"The 'gap' parameter must be below tau = {tau} (c0 = tau - gap > 0). Got {c} instead."
        )
    delta, d = (1.0 - r0) / 7.0, (8.0 * r0 - 1.0) / 7.0
    rewards = np.full(k, d + 4.0 * delta)
    rewards[:3] = (d + delta, d + 8.0 * delta, d)
    costs = np.full(k, tau + 2.0 * c)
    costs[0] = costs[2] = tau - c
    if variant == "nu-prime":
        costs[3] = tau - c
    return StagewiseInstance(
        arms=np.eye(k),
        safe_action=np.eye(k)[0],
        reward_param=rewards,
        cost_params=costs[None, :],
        threshold=np.array([tau]),
        noise=make_noise("gaussian", 1.0),
        action_set="simplex",
        horizon=check_int(T, "T", low=1),
        known_safe_values=bool(known_safe_values),
        name=f"stagewise/lower-bound ({variant})",
    )


@register_instance("stagewise/random-linear", random=True)
def random_linear(
    *,
    rng: np.random.Generator,
    d: int = 5,
    n_arms: int = 20,
    n_constraints: int = 2,
    action_set: RandomLinearActionSet = "points",
    T: int = 10_000,
    sigma: float = 0.1,
    known_safe_values: bool = True,
) -> StagewiseInstance:
    """Random instance with several constraints (ours, for tests and multi-constraint studies).

    Vertices uniform in the positive orthant of the unit sphere, x0 = 0.2 e_1 / 1, theta and each
    mu_i uniform on the positive orthant of the sphere, tau_i = c0_i + U(0.1, 0.6).
    """
    d = check_int(d, "d", low=1)
    n = check_int(n_arms, "n_arms", low=1)
    m = check_int(n_constraints, "n_constraints", low=1)
    check_positive(sigma, "sigma")
    arms = np.abs(_unit(rng, n, d))
    x0 = np.zeros(d)
    x0[0] = 0.2
    theta = np.abs(_unit(rng, 1, d)[0])
    mu = np.abs(_unit(rng, m, d))
    tau = mu @ x0 + rng.uniform(0.1, 0.6, m)
    return StagewiseInstance(
        arms=arms,
        safe_action=x0,
        reward_param=theta,
        cost_params=mu,
        threshold=tau,
        noise=make_noise("gaussian", sigma),
        action_set=check_choice(action_set, "action_set", RandomLinearActionSet),
        horizon=check_int(T, "T", low=1),
        known_safe_values=bool(known_safe_values),
        name="stagewise/random-linear",
    )
