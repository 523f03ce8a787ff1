"""Stage-wise constrained bandits with non-linear rewards and costs from finite function classes.

Setting of Pacchiano, Ghavamzadeh & Bartlett, Sec. 5.3 (spec ``stagewise.md`` section 1.6). A finite
action set ``{0, ..., n-1}`` contains a known safe action ``x0`` (index ``safe_arm``). The mean reward
``theta*`` and the mean cost ``mu*`` belong to known finite classes ``G_r`` and ``G_c``; a function is
given by its values on the actions, so a class is a matrix of shape ``(|G|, n)`` (one row per function,
values in ``[0, 1]``, Assumption 35). Playing action ``a`` returns ``theta*(a) + noise`` and
``mu*(a) + noise``. The constraint holds in expectation over the played policy,
``E_{a ~ pi_t} mu*(a) <= tau`` (the only setting the paper considers for non-linear models, Remark 39),
and regret is measured on the policy's expected reward (eq. 38).

To reuse the stage-wise environment, oracles and regret loop, a problem is written as the K-armed
:class:`~safebandits.problems.stagewise.StagewiseInstance` (``action_set="simplex"``, ``arms = I_n``,
``safe_action = e_{safe_arm}``, ``reward_param = theta*`` and ``cost_params = mu*`` as vectors of
values on the actions): for a finite action set, a function *is* its value vector and a policy's
expected value is a dot product, so the policy LP oracle is exactly the optimum of eq. (38).
:class:`FunctionClassInstance` adds the two classes and tells them to learners through
:class:`FunctionClassInfo` (never the true indices).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits._limits import MAX_BUDGET
from safebandits._validation import check_array, check_int, check_interval, check_positive
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.noise import NoiseModel, make_noise
from safebandits.problems.stagewise import StagewiseInstance, check_safe_cost
from safebandits.types import FloatArray

__all__ = ["FunctionClassInfo", "FunctionClassInstance", "FunctionClassProblem"]


def _check_class(value: Any, name: str, n: int | None, owner: str) -> FloatArray:
    arr = check_array(value, name, ndim=2, min_rows=1, owner=owner)
    if n is not None and arr.shape[1] != n:
        raise ConfigError(
            f"The {name!r} parameter of {owner} must have one column per action ({n}). "
            f"Got an array of shape {arr.shape} instead."
        )
    if arr.shape[1] < 1:
        raise ConfigError(f"The {name!r} parameter of {owner} must have at least one column (action).")
    if np.any(arr < 0.0) or np.any(arr > 1.0):
        raise ConfigError(
            f"The {name!r} parameter of {owner} must have every value in [0, 1] (Assumption 35). "
            f"Got values in [{arr.min():.4g}, {arr.max():.4g}] instead."
        )
    return arr


@dataclass(frozen=True, slots=True)
class FunctionClassInfo:
    """What a learner is told about a finite-class stage-wise problem (never the true functions).

    Attributes
    ----------
    reward_class : ndarray of shape (n_reward_functions, n_actions)
        ``G_r``: row ``i`` holds the values of reward function ``i`` on the actions.
    cost_class : ndarray of shape (n_cost_functions, n_actions)
        ``G_c``, likewise.
    safe_arm : int
        Index of the safe action ``x0``.
    safe_reward : float
        ``r0 = theta*(x0)`` (known, Assumption 5).
    safe_cost : float
        ``c0 = mu*(x0) < tau`` (known, Assumption 5).
    threshold : float
        ``tau``.
    horizon : int
        Number of rounds ``T``.
    noise_bound : float
        Sub-Gaussian constant of the noise (1/2 for Bernoulli feedback, ``sigma`` for Gaussian).
    noise_kind : {"gaussian", "binary", "bernoulli"}
        Feedback model; learners refuse observations it makes impossible (a Bernoulli reward of 0.5).
    """

    reward_class: FloatArray
    cost_class: FloatArray
    safe_arm: int
    safe_reward: float
    safe_cost: float
    threshold: float
    horizon: int = 10_000
    noise_bound: float = 0.5
    noise_kind: str = "gaussian"

    def __post_init__(self) -> None:
        check_safe_cost(self.safe_cost, self.threshold, owner="FunctionClassInfo")

    @property
    def n_actions(self) -> int:
        return int(self.reward_class.shape[1])

    @property
    def n_arms(self) -> int:
        """Alias of :attr:`n_actions` (the vertices of the simplex are the actions)."""
        return self.n_actions

    @property
    def n_reward_functions(self) -> int:
        return int(self.reward_class.shape[0])

    @property
    def n_cost_functions(self) -> int:
        return int(self.cost_class.shape[0])


@dataclass(frozen=True, kw_only=True, slots=True)
class FunctionClassInstance(StagewiseInstance):
    """A :class:`StagewiseInstance` on the simplex that also holds the function classes.

    All ground truth, oracles (``optimal_policy_value`` ...) and the environment are those of the
    parent class with ``arms = I_n``; only :meth:`public_info` differs: it returns a
    :class:`FunctionClassInfo` carrying ``G_r`` and ``G_c``.

    Parameters
    ----------
    reward_class : ndarray of shape (n_reward_functions, n_actions)
        ``G_r``.
    cost_class : ndarray of shape (n_cost_functions, n_actions)
        ``G_c``.
    **kwargs
        The :class:`StagewiseInstance` fields (``arms`` must be ``I_n``, one constraint).

    Notes
    -----
    Realisability (``theta*`` a row of ``G_r``, ``mu*`` a row of ``G_c``) is guaranteed by
    :class:`FunctionClassProblem` but not checked here, so that misspecified classes can be studied.
    Build instances with :meth:`FunctionClassProblem.instance`.
    """

    reward_class: FloatArray
    cost_class: FloatArray

    def __post_init__(self) -> None:
        StagewiseInstance.__post_init__(self)
        owner = "FunctionClassInstance"
        n = self.arms.shape[0]
        if self.action_set != "simplex" or not np.array_equal(self.arms, np.eye(n)):
            raise ConfigError(f"{owner} needs action_set='simplex' and arms = I_n (one vertex per action).")
        if self.n_constraints != 1:
            raise ConfigError(f"{owner} has exactly one cost constraint; got {self.n_constraints}.")
        object.__setattr__(self, "reward_class", _check_class(self.reward_class, "reward_class", n, owner))
        object.__setattr__(self, "cost_class", _check_class(self.cost_class, "cost_class", n, owner))

    def public_info(self) -> FunctionClassInfo:  # type: ignore[override]
        """The learner's view: the classes, ``x0``, ``r0``, ``c0``, ``tau``, the horizon."""
        r, _, _ = self._told_bounds()
        safe = self.safe_arm
        assert safe is not None  # arms = I_n and x0 = e_safe
        return FunctionClassInfo(
            reward_class=self.reward_class.copy(),
            cost_class=self.cost_class.copy(),
            safe_arm=safe,
            safe_reward=float(self.safe_reward),
            safe_cost=float(self.safe_cost[0]),
            threshold=float(self.threshold[0]),
            horizon=int(self.horizon),
            noise_bound=float(r),
            noise_kind=self.noise.name.split("(")[0],
        )

    def privileged_info(self) -> FunctionClassInfo:  # type: ignore[override]
        return self.public_info()

    def describe(self) -> dict[str, Any]:
        out = StagewiseInstance.describe(self)
        out.update(
            n_reward_functions=int(self.reward_class.shape[0]),
            n_cost_functions=int(self.cost_class.shape[0]),
        )
        return out


@dataclass(frozen=True, kw_only=True)
class FunctionClassProblem:
    """A stage-wise constrained bandit with finite reward and cost classes (Sec. 5.3).

    Parameters
    ----------
    reward_class : array-like of shape (n_reward_functions, n_actions)
        ``G_r``; values in ``[0, 1]``.
    cost_class : array-like of shape (n_cost_functions, n_actions)
        ``G_c``; values in ``[0, 1]``.
    true_reward : int
        Row of ``reward_class`` that is ``theta*``.
    true_cost : int
        Row of ``cost_class`` that is ``mu*``.
    threshold : float
        ``tau``; the safe action must satisfy ``c0 = mu*(x0) < tau``.
    safe_arm : int, default 0
        Index of ``x0``.
    noise : {"bernoulli", "gaussian"} or NoiseModel, default "bernoulli"
        Feedback law. Bernoulli observations lie in ``{0, 1}`` as Assumption 35 requires; Gaussian
        ones (standard deviation ``sigma``) are sub-Gaussian but unbounded, which the regret analysis
        does not cover (it still applies to the least-squares confidence sets up to constants).
    sigma : float, default 0.1
        Standard deviation of the Gaussian noise.
    horizon : int, default 10_000
    name : str, default "function-class"

    Examples
    --------
    >>> g_r = np.array([[0.1, 0.9, 0.5], [0.1, 0.2, 0.8]])
    >>> g_c = np.array([[0.0, 0.9, 0.3], [0.0, 0.3, 0.9]])
    >>> inst = FunctionClassProblem(reward_class=g_r, cost_class=g_c, true_reward=0, true_cost=0,
    ...                             threshold=0.5).instance()
    >>> round(inst.optimal_policy_value, 4)  # best policy: mix arms 1 and 2 to expected cost 0.5
    0.6333
    """

    reward_class: Any
    cost_class: Any
    true_reward: int
    true_cost: int
    threshold: float
    safe_arm: int = 0
    noise: Any = "bernoulli"
    sigma: float = 0.1
    horizon: int = 10_000
    name: str = "function-class"

    def __post_init__(self) -> None:
        owner = "FunctionClassProblem"
        g_r = _check_class(self.reward_class, "reward_class", None, owner)
        g_c = _check_class(self.cost_class, "cost_class", g_r.shape[1], owner)
        object.__setattr__(self, "reward_class", g_r)
        object.__setattr__(self, "cost_class", g_c)
        n = g_r.shape[1]
        check_int(self.true_reward, "true_reward", low=0, high=g_r.shape[0] - 1, owner=owner)
        check_int(self.true_cost, "true_cost", low=0, high=g_c.shape[0] - 1, owner=owner)
        check_int(self.safe_arm, "safe_arm", low=0, high=n - 1, owner=owner)
        check_interval(self.threshold, "threshold", low=0.0, high=np.inf, closed="neither", owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        if isinstance(self.noise, str):
            if self.noise not in ("bernoulli", "gaussian"):
                raise ConfigError(
                    f"The 'noise' parameter of {owner} must be one of 'bernoulli', 'gaussian' or a "
                    f"NoiseModel. Got {self.noise!r} instead."
                )
            check_positive(self.sigma, "sigma", owner=owner)
        check_safe_cost(
            g_c[self.true_cost, self.safe_arm], self.threshold, owner=owner, error=InfeasibleInstanceError
        )

    @property
    def n_actions(self) -> int:
        return int(self.reward_class.shape[1])

    def noise_model(self) -> NoiseModel:
        if isinstance(self.noise, str):
            return make_noise(self.noise, self.sigma)
        return self.noise

    def instance(self) -> FunctionClassInstance:
        """The ground truth as a simplex :class:`StagewiseInstance` holding the classes."""
        n = self.n_actions
        eye = np.eye(n)
        return FunctionClassInstance(
            arms=eye,
            safe_action=eye[self.safe_arm].copy(),
            reward_param=self.reward_class[self.true_reward].copy(),
            cost_params=self.cost_class[self.true_cost][None, :].copy(),
            threshold=np.array([float(self.threshold)]),
            noise=self.noise_model(),
            action_set="simplex",
            horizon=int(self.horizon),
            known_safe_values=True,
            name=self.name,
            reward_class=self.reward_class.copy(),
            cost_class=self.cost_class.copy(),
        )

    def public_info(self) -> FunctionClassInfo:
        """Shortcut for ``self.instance().public_info()``."""
        return self.instance().public_info()
