"""Safe transductive best-arm identification (STBAI; Camilleri et al., NeurIPS 2022, Section 1).

An instance ``(X, Z, theta, mu, gamma, epsilon)`` has a finite *measurement set* ``X`` (rows of ``arms``:
what the learner can pull), a finite *decision set* ``Z`` (rows of ``decisions``: among which the answer
is chosen; ``X = Z`` allowed), an unknown reward parameter ``theta`` and ``m`` unknown constraint rows
``mu_i`` with a known threshold ``gamma``. Pulling ``x`` returns the reward ``theta^T x + w`` and all ``m``
constraint values ``mu_i^T x + w_i`` at once (one :class:`~safebandits.types.Observation` with ``reward``
and ``constraints`` of shape ``(m,)``; batches return per-arm sums, drawn exactly in law).

``z`` is *safe* iff ``mu_i^T z <= gamma`` for every ``i``; the goal is
``z* = argmax_{safe z} theta^T z``. The ``epsilon``-relaxed target set is (Definition 1)

    Z_eps = {z : theta^T z >= theta^T z* - eps  and  mu_i^T z <= gamma + eps for all i},

and a run is scored correct iff the recommended decision lies in ``Z_eps`` (:meth:`is_correct`).
A :class:`~safebandits.types.Recommendation`'s ``arm`` of these learners indexes ``Z`` (the decisions),
whereas a :class:`~safebandits.types.Decision`'s ``arm`` / ``counts`` index ``X`` (the measurements).

Oracle quantities (Section 1 and eq. (1)): gaps ``Delta(z) = theta^T (z* - z)``, safety gaps
``Delta^i_safe(z) = gamma - mu_i^T z`` and the ``eps``-safe optimality gap
``Delta^eps(z) = max_{z' : min_i Delta^i_safe(z') >= eps} (z' - z)^T theta`` (``-inf`` if no decision has
minimum safety gap at least ``eps``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from safebandits._validation import check_array, check_interval, check_positive
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.environment import ArmEnvironment
from safebandits.problems.noise import GaussianNoise, NoiseModel
from safebandits.types import ArmSetMixin, BoolArray, FloatArray, IntArray

__all__ = ["TransductiveInfo", "TransductiveInstance", "positive_part"]


def positive_part(x: FloatArray) -> FloatArray:
    """``p(x) = max(x, 0)`` elementwise (the paper's fraktur p)."""
    return np.maximum(x, 0.0)


@dataclass(frozen=True, slots=True)
class TransductiveInfo(ArmSetMixin):
    """What a safe transductive learner may see.

    Attributes
    ----------
    arms : ndarray of shape (n_arms, d)
        Measurement set X (decisions of the learner index its rows).
    decisions : ndarray of shape (n_decisions, d)
        Decision set Z (recommendations index its rows).
    threshold : float
        Known threshold gamma.
    n_constraints : int
        Number m of constraint rows (every pull observes all of them).
    epsilon : float
        Tolerance of the task: the answer must lie in ``Z_eps`` (learners default to it).
    noise_sd : float
        Known noise scale sigma (the paper assumes 1-sub-Gaussian noise, sigma = 1).
    noise_kind : str
        ``"gaussian"``, ``"binary"`` or ``"bernoulli"``.
    mean_bound : float
        Known bound ``B >= |theta^T x|, |mu_i^T x|`` for every ``x`` in X (the paper's normalisation gives
        ``B = 1``); RIPS's variance proxy uses it.
    """

    arms: FloatArray
    decisions: FloatArray
    threshold: float
    n_constraints: int
    epsilon: float
    noise_sd: float = 1.0
    noise_kind: str = "gaussian"
    mean_bound: float = 1.0

    @property
    def n_decisions(self) -> int:
        return self.decisions.shape[0]


# slots=False so that cached_property works on the frozen dataclass.
@dataclass(frozen=True, kw_only=True)
class TransductiveInstance(ArmSetMixin):
    """A safe transductive BAI problem with its ground truth and oracle answers.

    Parameters
    ----------
    arms : array-like of shape (n_arms, d)
        Measurement set X.
    decisions : array-like of shape (n_decisions, d)
        Decision set Z; every decision must lie in the row span of X.
    reward_param : array-like of shape (d,)
        theta.
    constraint_params : array-like of shape (m, d)
        Rows mu_i (m >= 1).
    threshold : float
        gamma.
    epsilon : float > 0
        Tolerance used to score answers (membership in ``Z_eps``) and handed to learners.
    noise : NoiseModel, default GaussianNoise(1.0)
    mean_bound : float or None, default None
        Bound B announced to learners; default ``max(1, max_x |theta^T x|, max_{x,i} |mu_i^T x|)``.
    name : str
    """

    arms: FloatArray
    decisions: FloatArray
    reward_param: FloatArray
    constraint_params: FloatArray
    threshold: float = 0.0
    epsilon: float = 0.1
    noise: NoiseModel = field(default_factory=GaussianNoise)
    mean_bound: float | None = None
    name: str = "transductive"

    def __post_init__(self) -> None:
        owner = "TransductiveInstance"
        arms = check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner)
        d = arms.shape[1]
        if d < 1:
            raise ConfigError(f"The 'arms' parameter of {owner} must have at least one column.")
        z = check_array(self.decisions, "decisions", ndim=2, shape=(None, d), min_rows=1, owner=owner)
        theta = check_array(self.reward_param, "reward_param", shape=(d,), owner=owner)
        mu = check_array(self.constraint_params, "constraint_params", owner=owner)
        if mu.ndim == 1:
            mu = mu.reshape(1, -1)
        if mu.ndim != 2 or mu.shape[1] != d or mu.shape[0] < 1:
            raise ConfigError(
                f"The 'constraint_params' parameter of {owner} must be an array of shape (m, {d}) with "
                f"m >= 1. Got array of shape {mu.shape} instead."
            )
        gamma = check_interval(self.threshold, "threshold", owner=owner)
        eps = check_positive(self.epsilon, "epsilon", owner=owner)
        _check_span(arms, z, owner)
        for name, value in (("arms", arms), ("decisions", z), ("reward_param", theta)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        mu.setflags(write=False)
        object.__setattr__(self, "constraint_params", mu)
        object.__setattr__(self, "threshold", gamma)
        object.__setattr__(self, "epsilon", eps)
        if self.mean_bound is None:
            means = np.hstack([(arms @ theta)[:, None], arms @ mu.T])
            object.__setattr__(self, "mean_bound", float(max(1.0, np.max(np.abs(means)))))
        else:
            object.__setattr__(self, "mean_bound", check_positive(self.mean_bound, "mean_bound", owner=owner))
        if not np.any(self.safe):
            raise InfeasibleInstanceError(
                f"Instance {self.name!r} has no safe decision (smallest maximum constraint value "
                f"{self.safety_values.max(axis=1).min():.4g} > threshold {gamma:.4g})."
            )
        self.noise.check_means(self.measurement_means)

    # -- public view -------------------------------------------------------------------------
    @property
    def n_decisions(self) -> int:
        return self.decisions.shape[0]

    @property
    def n_constraints(self) -> int:
        return self.constraint_params.shape[0]

    @property
    def noise_sd(self) -> float:
        """Noise scale announced to learners (sigma of Gaussian noise, 1 for binary / Bernoulli)."""
        return float(getattr(self.noise, "sigma", 1.0))

    def public_info(self) -> TransductiveInfo:
        kind = type(self.noise).__name__.removesuffix("Noise").lower()
        return TransductiveInfo(
            arms=self.arms,
            decisions=self.decisions,
            threshold=self.threshold,
            n_constraints=self.n_constraints,
            epsilon=self.epsilon,
            noise_sd=self.noise_sd,
            noise_kind=kind,
            mean_bound=float(self.mean_bound),  # type: ignore[arg-type]
        )

    def privileged_info(self) -> TransductiveInfo:
        """No oracle baseline exists for STBAI: the same view as :meth:`public_info`."""
        return self.public_info()

    @cached_property
    def measurement_means(self) -> FloatArray:
        """``[theta^T x, mu_1^T x, ..., mu_m^T x]`` of every measurement, shape ``(n_arms, 1 + m)``."""
        return np.hstack([(self.arms @ self.reward_param)[:, None], self.arms @ self.constraint_params.T])

    def environment(self, rng: np.random.Generator) -> ArmEnvironment:
        """Feedback of a pull of ``x``: reward and all ``m`` constraint values."""
        means = self.measurement_means
        return ArmEnvironment(means[:, 1:], means[:, 0], self.noise, rng)

    # -- oracle --------------------------------------------------------------------------------
    @cached_property
    def values(self) -> FloatArray:
        """``theta^T z`` of every decision."""
        return self.decisions @ self.reward_param

    @cached_property
    def safety_values(self) -> FloatArray:
        """``mu_i^T z``, shape ``(n_decisions, m)``."""
        return self.decisions @ self.constraint_params.T

    @cached_property
    def safety_gaps(self) -> FloatArray:
        """``Delta^i_safe(z) = gamma - mu_i^T z``, shape ``(n_decisions, m)`` (negative: violates i)."""
        return self.threshold - self.safety_values

    @cached_property
    def min_safety_gap(self) -> FloatArray:
        """``min_i Delta^i_safe(z)`` of every decision."""
        return self.safety_gaps.min(axis=1)

    @cached_property
    def safe(self) -> BoolArray:
        return self.min_safety_gap >= 0.0

    @cached_property
    def optimal_arm(self) -> int:
        """Index of ``z*`` in Z (lowest index among value ties)."""
        return int(np.argmax(np.where(self.safe, self.values, -np.inf)))

    @property
    def optimal_value(self) -> float:
        return float(self.values[self.optimal_arm])

    @cached_property
    def gaps(self) -> FloatArray:
        """``Delta(z) = theta^T (z* - z)`` (negative for better, hence unsafe, decisions)."""
        return self.optimal_value - self.values

    def eps_safe_gap(self, eps: float) -> FloatArray:
        """``Delta^eps(z) = max_{z': min_i Delta^i_safe(z') >= eps} (z' - z)^T theta`` (eq. (1)).

        ``-inf`` for every ``z`` when no decision has minimum safety gap at least ``eps``.
        """
        ok = self.min_safety_gap >= eps
        if not np.any(ok):
            return np.full(self.n_decisions, -np.inf)
        return float(self.values[ok].max()) - self.values

    def good_set(self, eps: float | None = None) -> IntArray:
        """Indices of ``Z_eps``: ``eps``-good and ``eps``-safe decisions (default: the instance's eps)."""
        return np.flatnonzero(self._in_good_set(self.epsilon if eps is None else float(eps)))

    def _in_good_set(self, eps: float) -> BoolArray:
        good = self.values >= self.optimal_value - eps
        safe = np.all(self.safety_values <= self.threshold + eps, axis=1)
        return good & safe

    def is_correct(self, arm: int | None) -> bool:
        """Whether the recommended decision ``arm`` (an index into Z) lies in ``Z_eps`` (Definition 1)."""
        return arm is not None and bool(self._in_good_set(self.epsilon)[arm])

    def is_feasible(self, arm: int | None) -> bool:
        """Whether decision ``arm`` is safe (every constraint at most gamma)."""
        return arm is not None and bool(self.safe[arm])

    def with_epsilon(self, eps: float) -> TransductiveInstance:
        """The same instance scored (and announced) at tolerance ``eps``."""
        return TransductiveInstance(
            arms=self.arms,
            decisions=self.decisions,
            reward_param=self.reward_param,
            constraint_params=self.constraint_params,
            threshold=self.threshold,
            epsilon=eps,
            noise=self.noise,
            mean_bound=self.mean_bound,
            name=self.name,
        )

    def describe(self) -> dict[str, object]:
        """Oracle summary (JSON-serialisable)."""
        return {
            "name": self.name,
            "n_arms": self.n_arms,
            "n_decisions": self.n_decisions,
            "dim": self.dim,
            "n_constraints": self.n_constraints,
            "threshold": self.threshold,
            "epsilon": self.epsilon,
            "noise": self.noise.name,
            "n_safe": int(self.safe.sum()),
            "optimal_arm": self.optimal_arm,
            "optimal_value": self.optimal_value,
            "n_good": int(self.good_set().size),
        }


def _check_span(arms: FloatArray, decisions: FloatArray, owner: str) -> None:
    """Every decision must be in the row span of X (otherwise it can never be estimated)."""
    _, sing, vt = np.linalg.svd(arms, full_matrices=False)
    if sing[0] == 0.0:
        raise ConfigError(f"The 'arms' parameter of {owner} must not be all zero.")
    basis = vt[sing > 1e-10 * sing[0]]
    resid = np.linalg.norm(decisions - (decisions @ basis.T) @ basis, axis=1)
    bad = resid > 1e-8 * np.maximum(np.linalg.norm(decisions, axis=1), 1e-300)
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise ConfigError(
            f"The 'decisions' parameter of {owner} must lie in the row span of 'arms'. Got decision {k} "
            "outside it instead; add measurements that span it."
        )
