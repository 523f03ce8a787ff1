"""Random finite-class instances for OPNLB (Pacchiano, Ghavamzadeh & Bartlett, Sec. 5.3).

The paper has no OPNLB experiment; this family is ours (recorded in ``docs/decisions/stagewise.md``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from safebandits._validation import check_choice, check_int, check_interval, check_positive
from safebandits.problems.function_class import FunctionClassInstance, FunctionClassProblem
from safebandits.problems.registry import register_instance

__all__ = ["finite_class"]


ClassNoise = Literal["bernoulli", "gaussian"]


@register_instance("stagewise/finite-class", random=True)
def finite_class(
    *,
    rng: np.random.Generator,
    n_actions: int = 5,
    n_functions: int = 20,
    tau: float = 0.5,
    T: int = 10_000,
    noise: ClassNoise = "bernoulli",
    sigma: float = 0.1,
) -> FunctionClassInstance:
    """Finite reward and cost classes of ``n_functions`` random functions on ``n_actions`` actions.

    Action 0 is safe. Every function of ``G_r`` takes the value ``r0 ~ U(0, 0.3)`` on it and every
    function of ``G_c`` the value ``c0 ~ U(0, tau / 2)`` (so ``r0`` and ``c0`` are known, Assumption 5);
    the other values are uniform on ``[0, 1]``. ``theta*`` and ``mu*`` are rows of the classes drawn
    uniformly. Bernoulli feedback by default (observations in ``[0, 1]``, Assumption 35).
    """
    n = check_int(n_actions, "n_actions", low=2)
    k = check_int(n_functions, "n_functions", low=1)
    tau = check_interval(tau, "tau", low=0.0, high=1.0, closed="right")
    check_choice(noise, "noise", ClassNoise)
    check_positive(sigma, "sigma")
    r0 = rng.uniform(0.0, 0.3)
    c0 = rng.uniform(0.0, 0.5 * tau)
    g_r = rng.uniform(0.0, 1.0, (k, n))
    g_c = rng.uniform(0.0, 1.0, (k, n))
    g_r[:, 0] = r0
    g_c[:, 0] = c0
    true_r = int(rng.integers(k))
    true_c = int(rng.integers(k))
    return FunctionClassProblem(
        reward_class=g_r,
        cost_class=g_c,
        true_reward=true_r,
        true_cost=true_c,
        threshold=tau,
        safe_arm=0,
        noise=noise,
        sigma=sigma,
        horizon=check_int(T, "T", low=1),
        name="stagewise/finite-class",
    ).instance()
