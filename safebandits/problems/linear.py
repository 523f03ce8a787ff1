"""Constrained linear best-arm identification (CBAI) instances (Lindner et al. 2022, Def. 1).

A CBAI instance ``(X, theta, phi, tau)`` has a finite arm set ``X`` (rows of ``arms``), a *known*
reward parameter ``theta``, an *unknown* constraint parameter ``phi`` and a threshold ``tau``.
Arm ``x`` is feasible iff ``phi^T x <= tau``; the goal is ``argmax_{feasible x} theta^T x``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from safebandits._validation import check_array, check_interval
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.environment import ArmEnvironment
from safebandits.problems.noise import GaussianNoise, NoiseModel
from safebandits.types import ArmSetMixin, BoolArray, FloatArray

__all__ = ["CBAIInfo", "CBAIPrivilegedInfo", "LinearCBAIInstance"]


@dataclass(frozen=True, slots=True)
class CBAIInfo(ArmSetMixin):
    """What a CBAI learner may see: the arms, the known reward parameter and the threshold.

    Attributes
    ----------
    arms : ndarray of shape (n_arms, d)
    reward_param : ndarray of shape (d,)
        Known reward parameter theta.
    threshold : float
        Threshold tau (0 when the threshold is learned through a constant feature).
    noise : str
        Name of the feedback model (for information; widths assume 1-sub-Gaussian noise).
    reward_values : ndarray of shape (n_arms,) or None
        Known rewards when they are not ``theta^T x`` of the constraint features (the driving
        instances rescale constraint features only; ``None``: ``theta^T x``).
    """

    arms: FloatArray
    reward_param: FloatArray
    threshold: float = 0.0
    noise: str = "gaussian"
    reward_values: FloatArray | None = None

    @property
    def rewards(self) -> FloatArray:
        """Known reward of every arm: ``reward_values`` if given, else theta^T x."""
        if self.reward_values is not None:
            return self.reward_values
        return self.arms @ self.reward_param


@dataclass(frozen=True, slots=True)
class CBAIPrivilegedInfo(CBAIInfo):
    """Learner view plus the true constraint parameter: only for oracle baselines.

    Learners never see an oracle, except the baselines whose definition needs one (the Oracle
    allocation of Lindner et al., App. B.1). The registry marks them ``privileged=True`` and the
    runner hands them this view.
    """

    constraint_param: FloatArray = field(default_factory=lambda: np.zeros(0))


# slots=False so that cached_property works on the frozen dataclass.
@dataclass(frozen=True, kw_only=True)
class LinearCBAIInstance(ArmSetMixin):
    """A CBAI problem with its ground truth and oracle answers.

    Parameters
    ----------
    arms : array-like of shape (n_arms, d)
    reward_param : array-like of shape (d,)
    constraint_param : array-like of shape (d,)
    threshold : float
    noise : NoiseModel, default GaussianNoise(1.0)
    name : str
    reward_values : array-like of shape (n_arms,), optional
        Known rewards that are not ``theta^T x`` (arms rescaled for the constraint only); the
        learners read them through :attr:`CBAIInfo.rewards`.
    """

    arms: FloatArray
    reward_param: FloatArray
    constraint_param: FloatArray
    threshold: float = 0.0
    noise: NoiseModel = field(default_factory=GaussianNoise)
    name: str = "cbai"
    reward_values: FloatArray | None = None

    def __post_init__(self) -> None:
        owner = "LinearCBAIInstance"
        arms = check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner)
        if arms.shape[1] < 1:
            raise ConfigError("The 'arms' parameter of LinearCBAIInstance must have at least one column.")
        d = arms.shape[1]
        theta = check_array(self.reward_param, "reward_param", shape=(d,), owner=owner)
        phi = check_array(self.constraint_param, "constraint_param", shape=(d,), owner=owner)
        tau = check_interval(self.threshold, "threshold", owner=owner)
        for name, value in (("arms", arms), ("reward_param", theta), ("constraint_param", phi)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "threshold", tau)
        if self.reward_values is not None:
            rv = check_array(self.reward_values, "reward_values", shape=(arms.shape[0],), owner=owner)
            rv.setflags(write=False)
            object.__setattr__(self, "reward_values", rv)
        if not np.any(self.feasible):
            raise InfeasibleInstanceError(
                f"Instance {self.name!r} has no feasible arm (min constraint value "
                f"{self.constraint_values.min():.4g} > threshold {tau:.4g})."
            )
        self.noise.check_means(self.constraint_values)

    # -- public view -------------------------------------------------------------------------
    def public_info(self) -> CBAIInfo:
        return CBAIInfo(
            arms=self.arms,
            reward_param=self.reward_param,
            threshold=self.threshold,
            noise=self.noise.name,
            reward_values=self.reward_values,
        )

    def privileged_info(self) -> CBAIPrivilegedInfo:
        return CBAIPrivilegedInfo(
            arms=self.arms,
            reward_param=self.reward_param,
            threshold=self.threshold,
            noise=self.noise.name,
            reward_values=self.reward_values,
            constraint_param=self.constraint_param,
        )

    def environment(self, rng: np.random.Generator) -> ArmEnvironment:
        return ArmEnvironment(self.constraint_values[:, None], None, self.noise, rng)

    # -- oracle --------------------------------------------------------------------------------
    @cached_property
    def rewards(self) -> FloatArray:
        if self.reward_values is not None:
            return self.reward_values
        return self.arms @ self.reward_param

    @cached_property
    def constraint_values(self) -> FloatArray:
        return self.arms @ self.constraint_param

    @cached_property
    def margins(self) -> FloatArray:
        """``phi^T x - tau`` for every arm (negative or zero: feasible)."""
        return self.constraint_values - self.threshold

    @cached_property
    def feasible(self) -> BoolArray:
        return self.margins <= 0.0

    @cached_property
    def optimal_arm(self) -> int:
        """Constrained optimum (lowest index among ties)."""
        r = np.where(self.feasible, self.rewards, -np.inf)
        return int(np.argmax(r))

    @property
    def optimal_reward(self) -> float:
        return float(self.rewards[self.optimal_arm])

    @cached_property
    def gaps(self) -> FloatArray:
        """Reward gap ``theta^T x* - theta^T x`` of every arm (negative for better infeasible arms)."""
        return self.optimal_reward - self.rewards

    @cached_property
    def competing_arms(self) -> np.ndarray:
        """Indices of X_theta(x*): arms with reward no less than the optimum's."""
        return np.flatnonzero(self.rewards >= self.optimal_reward)

    @property
    def min_abs_margin(self) -> float:
        """C+_min = min_x ``|phi^T x - tau|``."""
        return float(np.min(np.abs(self.margins)))

    def is_correct(self, arm: int | None) -> bool:
        """Whether ``arm`` is a constrained optimum (reward ties count as correct)."""
        return arm is not None and bool(self.feasible[arm]) and self.rewards[arm] >= self.optimal_reward

    def is_feasible(self, arm: int | None) -> bool:
        return arm is not None and bool(self.feasible[arm])

    # -- transformations ---------------------------------------------------------------------
    def with_learned_threshold(self) -> LinearCBAIInstance:
        """Unknown-threshold form: append a constant feature 1, ``phi' = (phi, -tau)``, ``tau' = 0``."""
        ones = np.ones((self.n_arms, 1))
        return LinearCBAIInstance(
            arms=np.hstack([self.arms, ones]),
            reward_param=np.append(self.reward_param, 0.0),
            constraint_param=np.append(self.constraint_param, -self.threshold),
            threshold=0.0,
            noise=self.noise,
            name=self.name,
            reward_values=self.reward_values,
        )

    def with_noise(self, noise: NoiseModel) -> LinearCBAIInstance:
        return LinearCBAIInstance(
            arms=self.arms,
            reward_param=self.reward_param,
            constraint_param=self.constraint_param,
            threshold=self.threshold,
            noise=noise,
            name=self.name,
            reward_values=self.reward_values,
        )

    def describe(self) -> dict[str, object]:
        """Oracle summary (JSON-serialisable)."""
        return {
            "name": self.name,
            "n_arms": self.n_arms,
            "dim": self.dim,
            "threshold": self.threshold,
            "noise": self.noise.name,
            "n_feasible": int(self.feasible.sum()),
            "optimal_arm": self.optimal_arm,
            "optimal_reward": self.optimal_reward,
            "min_abs_margin": self.min_abs_margin,
        }
