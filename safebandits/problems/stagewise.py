"""Stage-wise constrained bandits (Pacchiano, Ghavamzadeh & Bartlett): ground truth, oracles, feedback.

Setting (spec ``stagewise.md`` section 1). Each round the learner plays ``X_t`` in an action set
``A_t``, observes a reward ``<X_t, theta*> + noise`` and ``m`` costs ``<X_t, mu*_i> + noise``, and must
keep every cost below its threshold ``tau_i``:

* **per round, with high probability** (LC-LUCB, Safe-LTS): ``<X_t, mu*_i> <= tau_i`` every round;
* **in expectation over the played policy** (OPLB, OPB, OPNLB): ``E_{X ~ pi_t} <X, mu*_i> <= tau_i``.

A known safe action ``x0`` (cost ``c0 < tau``, reward ``r0``) is always available. Action sets are

* ``"star"``: the finite star-convex set ``union_i [x0, x_i]`` given by its vertices ``x_i`` (rows of
  ``arms``); any point of a segment may be played (Def. 13);
* ``"points"``: the finite point set ``{x0} u {x_i}``;
* ``"simplex"``: the K-armed bandit (Sec. 5.2), written as a linear problem with ``arms = I_K``,
  ``theta* = mean rewards``, ``mu* = mean costs`` and ``x0 = e_0`` (arm 0 is the safe arm).

Oracles: the best feasible *action* (per-round setting) and the best feasible *policy* (a linear
programme over the vertices, in-expectation setting), their values and costs. The learner sees only
:class:`StagewiseInfo`.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy.optimize import linprog

from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_array,
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.environment import VariateStream
from safebandits.problems.feedback import CompiledFeedback, compiled_feedback
from safebandits.problems.noise import NoiseModel
from safebandits.types import ArmSetMixin, Decision, FloatArray, Observation

__all__ = [
    "ACTION_SETS",
    "LinearFeedbackEnvironment",
    "StagewiseInfo",
    "StagewiseInstance",
    "checked_stagewise_info",
    "policy_mean_points",
    "row_means",
    "solve_policy_lp",
]

ActionSet = Literal["star", "points", "simplex"]
ACTION_SETS: tuple[str, ...] = typing.get_args(ActionSet)

#: Tolerance of the oracles' feasibility tests (true costs above ``tau + TOL`` count as violations).
TOL = 1e-9


def _read_only_copy(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out.flags.writeable = False
    return out


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a`` if it is read-only, else a read-only copy (a record's arrays cannot change under it)."""
    return _read_only_copy(a) if a.flags.writeable else a


def checked_stagewise_info(info: Any) -> StagewiseInfo:
    """``info`` itself if it is a :class:`StagewiseInfo` (checked when built), else a
    :class:`StagewiseInfo` of its attributes (checked now; a missing optional one takes its default)."""
    if type(info) is StagewiseInfo:
        return info
    fields = dataclasses.fields(StagewiseInfo)
    defaults = {f.name: None if f.default is dataclasses.MISSING else f.default for f in fields}
    return StagewiseInfo(**{name: getattr(info, name, default) for name, default in defaults.items()})


def check_safe_cost(
    safe_cost: Any, threshold: Any, *, owner: str, error: type[ConfigError] = ConfigError
) -> None:
    """Assumption 5 of the stage-wise paper, the one check of it: the safe action's cost ``c0 < tau``.

    Every stage-wise learner (LC-LUCB, Safe-LTS, OPLB, OPB, OPNLB) relies on it through the information
    it is given (:class:`StagewiseInfo`, :class:`~safebandits.problems.function_class.FunctionClassInfo`
    check it when built), and the instances and declarations check it on their truth; ``alpha_r =
    (1 - r0) / (tau - c0)`` and the exploration scale need the gap ``tau - c0 > 0``.
    """
    c0 = np.atleast_1d(np.asarray(safe_cost, dtype=np.float64))
    tau = np.atleast_1d(np.asarray(threshold, dtype=np.float64))
    if np.any(c0 >= tau):
        raise error(
            f"{owner}: the safe action's cost must be below every threshold, c0 < tau (Assumption 5 of the "
            f"stage-wise paper; the gap tau - c0 sets the learners' exploration scale). Got c0 = "
            f"{c0.tolist()}, tau = {tau.tolist()}. Change the safe action (safe_arm / safe_action) to one "
            "whose cost is strictly below the thresholds, or the thresholds."
        )


@dataclass(frozen=True, slots=True)
class StagewiseInfo(ArmSetMixin):
    """What a stage-wise constrained learner is told about the problem (never the truth).

    Attributes
    ----------
    arms : ndarray of shape (n_arms, d)
        Vertices ``x_i`` of the action set (rays from ``x0`` for ``"star"``; points for ``"points"``;
        ``I_K`` for ``"simplex"``). A learner's ``ask(context)`` may be given another vertex matrix
        for the round (contextual action sets); ``None`` means these arms.
    safe_action : ndarray of shape (d,)
        The known safe action ``x0`` (``e_0`` for the K-armed problem).
    threshold : ndarray of shape (m,)
        Thresholds ``tau_i``.
    safe_reward : float or None
        ``r0 = <x0, theta*>``; ``None`` if unknown (estimate it with the warm start, Alg. 5).
    safe_cost : ndarray of shape (m,) or None
        ``c0_i = <x0, mu*_i>``, below ``tau_i`` (Assumption 5, checked here: :func:`check_safe_cost`);
        ``None`` if unknown.
    action_set : {"star", "points", "simplex"}
    horizon : int
        Number of rounds ``T`` (some confidence levels use it).
    noise_bound : float
        Sub-Gaussian constant ``R`` of the reward and cost noise.
    param_norm_bound : float
        ``S >= ||theta*||, ||mu*_i||``.
    arm_norm_bound : float
        ``L >= ||x||`` for every action.
    safe_arm : int or None
        Row of ``arms`` equal to ``x0`` (``0`` for the K-armed problem), else ``None``.
    noise_kind : {"gaussian", "binary", "bernoulli"}
        Feedback model (``"gaussian"`` stands for any sub-Gaussian noise); learners refuse observations
        it makes impossible (e.g. a Bernoulli cost of 0.5).
    mean_bound : float or None, default None
        The declared bound on the reward and cost means, ``|<x, theta*>|, |<x, mu*_i>| <= mean_bound``
        (a problem declaration's ``mean_bound``, or the range of bounded feedback); ``None``: not declared
        (the paper's means in ``[0, 1]`` are taken on trust). Learners whose analysis assumes means at most
        1 refuse a larger one (:func:`~safebandits.algorithms.assumptions.check_unit_means`).
    declared : bool, default False
        A view of the user's problem declaration (:mod:`safebandits.problems.declare`), whose feedback
        ``noise_kind`` the user declared: the options whose default follows the declared problem read it
        (OPB's ``bound="auto"``: the tightest valid bound for outcomes in ``[0, 1]``). ``False``: a paper's
        instance, whose learners keep the papers' defaults.
    """

    arms: FloatArray
    safe_action: FloatArray
    threshold: FloatArray
    safe_reward: float | None
    safe_cost: FloatArray | None
    action_set: ActionSet = "star"
    horizon: int = 10_000
    noise_bound: float = 1.0
    param_norm_bound: float = 1.0
    arm_norm_bound: float = 1.0
    safe_arm: int | None = None
    noise_kind: str = "gaussian"
    mean_bound: float | None = None
    declared: bool = False

    def __post_init__(self) -> None:
        """Check every field once, here: a learner trusts a built :class:`StagewiseInfo` (frozen, its
        arrays read-only float64; writable arrays given are copied) and checks other objects by building
        one (:func:`checked_stagewise_info`)."""
        owner = "StagewiseInfo"
        arms = _read_only(check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner))
        d = arms.shape[1]
        x0 = _read_only(check_array(self.safe_action, "safe_action", shape=(d,), owner=owner))
        tau = _read_only(check_array(np.atleast_1d(self.threshold), "threshold", ndim=1, owner=owner))
        check_literal_fields(self, owner=owner)
        c0 = self.safe_cost
        if c0 is not None:
            c0 = _read_only(check_array(np.atleast_1d(c0), "safe_cost", shape=tau.shape, owner=owner))
            check_safe_cost(c0, tau, owner=owner)
        if self.safe_reward is not None:
            object.__setattr__(
                self, "safe_reward", check_interval(self.safe_reward, "safe_reward", owner=owner)
            )
        if self.safe_arm is not None:
            safe_arm = check_int(self.safe_arm, "safe_arm", low=0, high=arms.shape[0] - 1, owner=owner)
            object.__setattr__(self, "safe_arm", safe_arm)
        object.__setattr__(
            self, "horizon", check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        )
        check_positive(self.noise_bound, "noise_bound", owner=owner)
        object.__setattr__(
            self, "declared", bool(check_choice(self.declared, "declared", (True, False), owner=owner))
        )
        check_positive(self.arm_norm_bound, "arm_norm_bound", owner=owner)
        check_positive(self.param_norm_bound, "param_norm_bound", owner=owner, allow_zero=True)
        if self.mean_bound is not None:
            object.__setattr__(self, "mean_bound", check_positive(self.mean_bound, "mean_bound", owner=owner))
        for name, value in (("arms", arms), ("safe_action", x0), ("threshold", tau), ("safe_cost", c0)):
            object.__setattr__(self, name, value)

    @property
    def n_constraints(self) -> int:
        return int(self.threshold.shape[0])

    @property
    def known_safe_values(self) -> bool:
        return self.safe_reward is not None and self.safe_cost is not None


def _star_best(
    arms_r: FloatArray, arms_c: FloatArray, r0: float, c0: FloatArray, tau: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Largest feasible mixing coefficient ``a_i`` along each ray ``[x0, x_i]`` and its reward.

    The true cost along a ray is affine, ``(1 - a) c0 + a c_i``; with ``c0 < tau`` the feasible part is
    ``a <= min_j (tau_j - c0_j) / (c_ij - c0_j)`` over the constraints with ``c_ij > tau_j``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(arms_c > tau[None, :], (tau - c0)[None, :] / (arms_c - c0[None, :]), np.inf)
    a = np.minimum(1.0, ratio.min(axis=1))
    return a, r0 + a * (arms_r - r0)


def solve_policy_lp(
    rewards: FloatArray, costs: FloatArray, tau: FloatArray
) -> tuple[float, FloatArray] | None:
    """``max_pi pi . rewards`` s.t. ``pi . costs[:, i] <= tau_i``, ``pi`` in the simplex (HiGHS).

    Parameters
    ----------
    rewards : ndarray of shape (k,)
    costs : ndarray of shape (k, m)
    tau : ndarray of shape (m,)

    Returns
    -------
    (value, pi) or None if infeasible.
    """
    k = rewards.shape[0]
    res = linprog(
        -rewards,
        A_ub=costs.T,
        b_ub=tau,
        A_eq=np.ones((1, k)),
        b_eq=np.ones(1),
        bounds=[(0.0, None)] * k,
        method="highs",
    )
    if res.status != 0:
        return None
    pi = np.clip(res.x, 0.0, None)
    pi /= pi.sum()
    return float(pi @ rewards), pi


def policy_mean_points(
    probs: FloatArray, arms: FloatArray, safe_action: FloatArray, safe_arm: int | None
) -> FloatArray:
    """Mean actions ``x_pi`` of policies given as probabilities over ``arms`` (rows of ``probs``).

    Where ``x0`` is not a row of ``arms`` (``safe_arm is None``), the mass ``1 - probs.sum()`` is on ``x0``.
    """
    probs = np.atleast_2d(probs)
    mean = probs @ arms
    if safe_arm is None:
        mean += (1.0 - probs.sum(axis=1))[:, None] * safe_action[None, :]
    return mean


@dataclass(frozen=True, kw_only=True, slots=True)
class StagewiseInstance(ArmSetMixin):
    """Ground truth of a stage-wise constrained linear (or K-armed) bandit.

    Parameters
    ----------
    arms : ndarray of shape (n_arms, d)
        Vertices of the action set (see the module docstring).
    safe_action : ndarray of shape (d,)
        ``x0``.
    reward_param : ndarray of shape (d,)
        ``theta*``.
    cost_params : ndarray of shape (m, d)
        ``mu*_i`` (one row per constraint).
    threshold : ndarray of shape (m,)
        ``tau_i``; the safe action must satisfy ``c0_i < tau_i``.
    noise : NoiseModel
        Noise of the reward and every cost (Gaussian, or Bernoulli for the K-armed experiments).
    action_set : {"star", "points", "simplex"}
    horizon : int
        Rounds ``T``.
    noise_bound : float, optional
        ``R`` told to learners (default: the Gaussian sigma, 1/2 for Bernoulli feedback).
    param_norm_bound, arm_norm_bound : float, optional
        ``S`` and ``L`` told to learners (default: the true norms, rounded up to 1 when below).
    known_safe_values : bool
        Tell learners ``r0`` and ``c0`` (Assumption 5) or not (use the warm start, Alg. 5).
    name : str
    """

    arms: FloatArray
    safe_action: FloatArray
    reward_param: FloatArray
    cost_params: FloatArray
    threshold: FloatArray
    noise: NoiseModel
    action_set: ActionSet = "star"
    horizon: int = 10_000
    noise_bound: float | None = None
    param_norm_bound: float | None = None
    arm_norm_bound: float | None = None
    known_safe_values: bool = True
    name: str = "stagewise"
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "StagewiseInstance"
        arms = check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner)
        d = arms.shape[1]
        x0 = check_array(self.safe_action, "safe_action", shape=(d,), owner=owner)
        theta = check_array(self.reward_param, "reward_param", shape=(d,), owner=owner)
        mu = check_array(np.atleast_2d(self.cost_params), "cost_params", shape=(None, d), owner=owner)
        tau = check_array(np.atleast_1d(self.threshold), "threshold", shape=(mu.shape[0],), owner=owner)
        check_literal_fields(self, owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        for attr, val in (("arms", arms), ("safe_action", x0), ("reward_param", theta)):
            object.__setattr__(self, attr, val)
        object.__setattr__(self, "cost_params", mu)
        object.__setattr__(self, "threshold", tau)
        check_safe_cost(mu @ x0, tau, owner=owner, error=InfeasibleInstanceError)
        for attr in ("noise_bound", "param_norm_bound", "arm_norm_bound"):
            val = getattr(self, attr)
            if val is not None:
                check_positive(val, attr, owner=owner)
        self.noise.check_means(np.hstack([(arms @ theta)[:, None], arms @ mu.T]))

    # -- derived truth -------------------------------------------------------------------------
    @property
    def n_constraints(self) -> int:
        return int(self.threshold.shape[0])

    @property
    def safe_arm(self) -> int | None:
        """Row of ``arms`` equal to ``x0``, if any (computed once per instance)."""
        cache = self._cache
        if "safe_arm" not in cache:
            hits = np.flatnonzero(np.all(np.isclose(self.arms, self.safe_action[None, :]), axis=1))
            cache["safe_arm"] = int(hits[0]) if hits.size else None
        return cache["safe_arm"]

    @property
    def safe_reward(self) -> float:
        return float(self.reward_param @ self.safe_action)

    @property
    def safe_cost(self) -> FloatArray:
        return self.cost_params @ self.safe_action

    @property
    def arm_rewards(self) -> FloatArray:
        return self.arms @ self.reward_param

    @property
    def arm_costs(self) -> FloatArray:
        """True costs of every vertex, shape (n_arms, m)."""
        return self.arms @ self.cost_params.T

    def _told_bounds(self) -> tuple[float, float, float]:
        if "told" not in self._cache:
            self._cache["told"] = self._compute_told_bounds()
        return self._cache["told"]

    def _compute_told_bounds(self) -> tuple[float, float, float]:
        sigma = getattr(self.noise, "sigma", 0.5)
        r = self.noise_bound if self.noise_bound is not None else float(sigma)
        s_true = max(
            float(np.linalg.norm(self.reward_param)), float(np.linalg.norm(self.cost_params, axis=1).max())
        )
        s = self.param_norm_bound if self.param_norm_bound is not None else max(1.0, s_true)
        l_true = max(float(np.linalg.norm(self.arms, axis=1).max()), float(np.linalg.norm(self.safe_action)))
        big_l = self.arm_norm_bound if self.arm_norm_bound is not None else max(1.0, l_true)
        return r, s, big_l

    def public_info(self) -> StagewiseInfo:
        """The learner's view: vertices, ``x0``, thresholds, ``r0``/``c0`` if known, bounds, horizon.

        Built once per instance and shared (an instance is frozen): its arrays are read-only copies.
        """
        info = self._cache.get("public_info")
        if info is None:
            info = self._cache["public_info"] = self._public_info()
        return info

    def _public_info(self) -> StagewiseInfo:
        r, s, big_l = self._told_bounds()
        known = self.known_safe_values
        return StagewiseInfo(
            arms=_read_only_copy(self.arms),
            safe_action=_read_only_copy(self.safe_action),
            threshold=_read_only_copy(self.threshold),
            safe_reward=self.safe_reward if known else None,
            safe_cost=_read_only_copy(self.safe_cost) if known else None,
            action_set=self.action_set,
            horizon=int(self.horizon),
            noise_bound=r,
            param_norm_bound=s,
            arm_norm_bound=big_l,
            safe_arm=self.safe_arm,
            noise_kind=self.noise.name.split("(")[0],
        )

    def privileged_info(self) -> StagewiseInfo:
        return self.public_info()

    def with_horizon(self, horizon: int) -> StagewiseInstance:
        return dataclasses.replace(self, horizon=horizon)  # (a fresh _cache: init=False)

    # -- oracles -------------------------------------------------------------------------------
    def _action_optimum(self) -> tuple[float, FloatArray]:
        if "action" not in self._cache:
            r0, c0, tau = self.safe_reward, self.safe_cost, self.threshold
            rewards, costs = self.arm_rewards, self.arm_costs
            if self.action_set == "star":
                a, vals = _star_best(rewards, costs, r0, c0, tau)
                points = self.safe_action[None, :] + a[:, None] * (self.arms - self.safe_action[None, :])
            else:
                feasible = np.all(costs <= tau[None, :] + TOL, axis=1)
                vals = np.where(feasible, rewards, -np.inf)
                points = self.arms
            best = int(np.argmax(vals))
            if vals[best] > r0:
                self._cache["action"] = (float(vals[best]), points[best].copy())
            else:
                self._cache["action"] = (r0, self.safe_action.copy())
        return self._cache["action"]

    @property
    def optimal_value(self) -> float:
        """Best true reward of a feasible action (per-round constraint): ``<x*, theta*>``."""
        return self._action_optimum()[0]

    @property
    def optimal_action(self) -> FloatArray:
        """``x*``, the best feasible action (a scaled vertex for star sets; ``x0`` if nothing beats it)."""
        return self._action_optimum()[1].copy()

    @property
    def optimal_cost(self) -> FloatArray:
        return self.cost_params @ self._action_optimum()[1]

    def _policy_optimum(self) -> tuple[float, FloatArray]:
        if "policy" not in self._cache:
            vert = np.vstack([self.safe_action[None, :], self.arms])
            res = solve_policy_lp(vert @ self.reward_param, vert @ self.cost_params.T, self.threshold)
            if res is None:  # pragma: no cover - x0 alone is feasible by construction
                raise InfeasibleInstanceError("No feasible policy (the safe action should be one).")
            value, pi = res
            self._cache["policy"] = (max(value, self.safe_reward), pi @ vert)
        return self._cache["policy"]

    @property
    def optimal_policy_value(self) -> float:
        """Best expected reward of a policy whose expected costs are below the thresholds (an LP)."""
        return self._policy_optimum()[0]

    @property
    def optimal_policy_cost(self) -> FloatArray:
        return self.cost_params @ self._policy_optimum()[1]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "action_set": self.action_set,
            "n_arms": self.n_arms,
            "d": self.dim,
            "threshold": self.threshold.tolist(),
            "safe_reward": self.safe_reward,
            "safe_cost": self.safe_cost.tolist(),
            "optimal_value": self.optimal_value,
            "optimal_cost": self.optimal_cost.tolist(),
            "optimal_policy_value": self.optimal_policy_value,
            "optimal_policy_cost": self.optimal_policy_cost.tolist(),
            "noise": self.noise.name,
        }

    # -- feedback ------------------------------------------------------------------------------
    def environment(self, rng: np.random.Generator) -> LinearFeedbackEnvironment:
        return LinearFeedbackEnvironment(self.arms, self.reward_param, self.cost_params, self.noise, rng)


def row_means(arms: FloatArray, params: FloatArray) -> FloatArray:
    """``arms[k] @ params`` for every row ``k`` (shape ``(n_arms, 1 + m)``, read-only): the means
    :meth:`LinearFeedbackEnvironment.play` meets when an arm is played, computed row by row as it does,
    so bit for bit (a single ``arms @ params`` may round differently). Both arrays float64 and
    C-contiguous. Cached by value: every replicate of a problem asks for the same table."""
    return _row_means(arms.shape, arms.tobytes(), params.shape, params.tobytes())


@functools.lru_cache(maxsize=64)
def _row_means(
    arms_shape: tuple[int, ...], arms_bytes: bytes, params_shape: tuple[int, ...], params_bytes: bytes
) -> FloatArray:
    arms = np.frombuffer(arms_bytes).reshape(arms_shape)
    params = np.frombuffer(params_bytes).reshape(params_shape)
    out = np.array([arms[k] @ params for k in range(arms.shape[0])]).reshape(arms.shape[0], -1)
    out.flags.writeable = False
    return out


class LinearFeedbackEnvironment(VariateStream):
    """Reward and costs of any played point: ``<x, theta*> + noise`` and ``mu* x + noise``.

    One row of ``1 + m`` standard variates per round (column 0: reward, then the costs), drawn in
    blocks from the environment's own generator, so that compiled loops (``take_variates``) and the
    ask / tell path (``play``) meet the same noise.

    Parameters
    ----------
    arms : ndarray of shape (n_arms, d)
        Vertices, for decisions that name an arm instead of a point.
    reward_param : ndarray of shape (d,)
    cost_params : ndarray of shape (m, d)
    noise : NoiseModel
    rng : numpy.random.Generator
    """

    def __init__(
        self,
        arms: FloatArray,
        reward_param: FloatArray,
        cost_params: FloatArray,
        noise: NoiseModel,
        rng: np.random.Generator,
    ) -> None:
        self.arms = np.ascontiguousarray(arms, dtype=np.float64)
        self.reward_param = np.ascontiguousarray(reward_param, dtype=np.float64)
        self.cost_params = np.ascontiguousarray(np.atleast_2d(cost_params), dtype=np.float64)
        # (d, 1 + m): column 0 the reward parameter, then one column per constraint.
        self.params = params = np.empty((self.reward_param.shape[0], 1 + self.cost_params.shape[0]))
        params[:, 0], params[:, 1:] = self.reward_param, self.cost_params.T
        self.noise = noise
        self.rng = rng
        self.n_samples = 0
        self._width = self.params.shape[1]
        self._init_stream()

    @property
    def n_constraints(self) -> int:
        return self.cost_params.shape[0]

    def compiled_feedback(self, plays: str) -> CompiledFeedback:
        """The record the shared compiled driver plays a learner's actions against
        (:mod:`safebandits.problems.feedback`): for ``"points"`` the parameters ``(d, 1 + m)``, for
        ``"arms"`` each vertex's means ``(n_arms, 1 + m)`` (:func:`row_means`: the values :meth:`play`
        meets), with the noise code and sigma."""
        if plays == "points":
            return compiled_feedback(self.params, self.noise, type(self).__name__)
        if plays == "arms":
            return compiled_feedback(row_means(self.arms, self.params), self.noise, type(self).__name__)
        raise ConfigError(f"A LinearFeedbackEnvironment plays arms or points, not {plays!r}.")

    def point_of(self, decision: Decision) -> FloatArray:
        if decision.point is not None:
            x = np.asarray(decision.point, dtype=np.float64)
            if x.shape != (self.arms.shape[1],) or not np.all(np.isfinite(x)):
                raise ConfigError(
                    f"A decision's point must be a finite vector of shape ({self.arms.shape[1]},). "
                    f"Got {decision.point!r} instead."
                )
            return x
        if decision.arm is None or not 0 <= decision.arm < self.arms.shape[0]:
            raise ConfigError(f"Decision arm must be in [0, {self.arms.shape[0]}). Got {decision.arm!r}.")
        return self.arms[decision.arm]

    def pull_point(self, x: FloatArray) -> Observation:
        """Play the action vector ``x`` once."""
        means = x @ self.params
        y = self.noise.observe(means, self.next_row())
        self.n_samples += 1
        return Observation(reward=float(y[0]), constraints=y[1:].copy())

    def play(self, decision: Decision) -> Observation:
        """Carry out a learner's decision (its ``point`` if set, else its ``arm``)."""
        if decision.counts is not None:
            raise ConfigError("Stage-wise environments play one action per round, not a batch.")
        return self.pull_point(self.point_of(decision))
