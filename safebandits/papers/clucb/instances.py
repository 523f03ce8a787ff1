"""The instance of Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy (2017)'s simulation (Sec. 5, as read
from a reproducibility page quoting it; the digest ``docs/clucb.md``): a time-independent set of 100
actions with features in ``R^4``; the features and ``theta*`` drawn from ``N(0, I_4)`` "such that the mean
reward associated to each arm is positive"; ``N(0, 1)`` reward noise; the baseline policy plays the 10th
best action."""

from __future__ import annotations

import numpy as np

from safebandits._validation import check_int, check_interval, check_positive
from safebandits.problems.conservative_linear import ConservativeLinearInstance
from safebandits.problems.noise import GaussianNoise
from safebandits.problems.registry import register_instance

__all__ = ["hundred_arm"]


@register_instance("clucb/hundred-arm", random=True)
def hundred_arm(
    *,
    rng: np.random.Generator,
    alpha: float = 0.1,
    T: int = 40_000,
    K: int = 100,
    d: int = 4,
    baseline_rank: int = 10,
    sigma: float = 1.0,
    S: float | None = None,
) -> ConservativeLinearInstance:
    """Kazerouni et al. (2017): K fixed actions in R^d, features and theta from N(0, I) (each action's mean
    made positive), N(0, sigma^2) noise, the baseline the ``baseline_rank``-th best action (known means).

    The conditioning "such that the mean reward of each arm is positive" is ours to make concrete: an
    action whose drawn feature has ``<x, theta> < 0`` takes ``-x`` instead (by the symmetry of ``N(0, I)``
    the same law as redrawing it until positive; redrawing ``theta`` and all ``K`` features together
    would almost never succeed). ``S`` (told to the learners as ``||theta*||``'s bound): ``None`` is
    ``||theta*||`` rounded up to 0.1 (ours; an unstated setting with a declared range).
    """
    k = check_int(K, "K", low=2, high=10_000)
    dim = check_int(d, "d", low=1, high=64)
    rank = check_int(baseline_rank, "baseline_rank", low=1, high=k)
    theta = rng.standard_normal(dim)
    arms = rng.standard_normal((k, dim))
    arms[arms @ theta < 0.0] *= -1.0
    means = arms @ theta
    baseline = int(np.argsort(-means, kind="stable")[rank - 1])
    return ConservativeLinearInstance(
        theta=theta,
        arms=arms,
        n_actions=k,
        alpha=check_interval(alpha, "alpha", low=0.0, high=1.0, closed="both"),
        baseline_action=baseline,
        known_baseline=True,
        noise=GaussianNoise(sigma=check_positive(sigma, "sigma")),
        horizon=check_int(T, "T", low=1),
        param_bound=None if S is None else check_positive(S, "S"),
        name="clucb/hundred-arm",
    )
