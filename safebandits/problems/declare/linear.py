"""Finite arms, linear reward and linear constraints: :class:`LinearProblem` (the cbai, transductive,
safe-linear-arms, stagewise, k-armed and kernel views)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_array,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.exceptions import ConfigError
from safebandits.problems.declare.base import (
    DEFAULT_EPSILON_FRACTION,
    INFO_KINDS,
    Feedback,
    Problem,
    SimulatedProblem,
    Tolerance,
    _owner_fail,
    _Proxy,
    seeded_kernel_instance,
)
from safebandits.problems.declare.linear_conservative import (
    conservative_instance,
    conservative_view,
    why_not_conservative,
    with_conservative_record,
)
from safebandits.problems.stagewise import check_safe_cost
from safebandits.types import FloatArray

__all__ = ["LinearProblem"]


@dataclass(frozen=True, kw_only=True)
class LinearProblem(Problem):
    """Finite arms with a linear reward and linear constraint(s), declared from public parts only.

    Arm ``x`` (a row of ``arms``) has reward ``theta^T x`` and costs ``mu_i^T x``; it is *safe* iff
    ``mu_i^T x <= tau_i`` for every ``i``. ``theta`` and ``mu`` are unknown unless ``reward_param`` is given.

    Parameters
    ----------
    arms : array-like of shape (K, d)
        The actions (rows).
    threshold : float or array-like of shape (m,)
        Thresholds ``tau_i`` (one per constraint).
    safe_arm : int, optional
        Row of ``arms`` known to be safe (``x0``). Needed by the per-round and in-expectation settings.
    safe_reward, safe_cost : float / array-like of shape (m,), optional
        Known reward and costs of the safe arm (Assumption 5 of the stage-wise paper); without them the
        stage-wise learners estimate them (warm start).
    reward_param : array-like of shape (d,), optional
        A *known* reward parameter (feasibility best-arm identification, ACOL family).
    cost_matrix : array-like of shape (d, d), optional
        ``M`` when the constraint is read off the reward parameter itself: ``cost(x) = theta^T M x``
        (Safe-LUCB's ``mu^T B x <= c`` with ``mu = -theta``, ``B = -M``). Needs one constraint.
    decisions : array-like of shape (n, d), optional
        Decision set ``Z`` of transductive identification (default: the arms).
    epsilon : float, optional
        Tolerance of identification answers (BESIDE's ``Z_eps``): an answer of the transductive learners
        is correct if its cost is at most ``threshold + epsilon`` and its reward within ``epsilon`` of the
        best safe one, so **it may exceed your threshold by up to epsilon**. Give it in the units of your
        costs. Left out, it is :data:`DEFAULT_EPSILON_FRACTION` (1%) of ``mean_bound`` (the bound on
        ``|mu_i^T x|``, i.e. the scale of the costs), announced with a
        :class:`~safebandits.exceptions.DefaultToleranceWarning` and printed at the start of
        ``safebandits run`` and in the report (:attr:`answer_tolerance`).
    action_set : {"points", "star"}, default "points"
        ``"points"``: only the arms may be played; ``"star"``: any point of a segment ``[x0, x_i]`` may be
        played (stage-wise learners only).
    feedback : Feedback, str or mapping, default "gaussian" with sigma 1
    param_norm_bound : float, default 1.0
        ``S >= ||theta||, ||mu_i||``.
    arm_norm_bound : float, optional
        ``L >= ||x||`` (default: the largest arm norm, which is public).
    mean_bound : float, default 1.0
        ``B >= |theta^T x|, |mu_i^T x|``: the transductive learners' sample sizes read it, the stage-wise
        learners (whose analysis assumes means at most 1) refuse a problem with ``mean_bound > 1`` (divide
        rewards and costs by it), and a simulated truth is checked against it
        (:meth:`truth_violations`).
    slater : float, optional
        Slater constant told to kernel learners (default ``min(1, min_i tau_i - c0_i)`` from ``safe_cost``).
    safety_gap : float, optional
        Safe-LUCB's ``Delta = tau - cost(x*)`` when known (its default rule ``t_prime="t_delta"`` reads it;
        without it choose ``t_prime="t0"``).
    horizon : int, default 10_000
        Rounds ``T`` of regret learners.

    Examples
    --------
    >>> p = LinearProblem(arms=[[0, 0], [1, 0], [0, 1]], threshold=0.5, safe_arm=0)
    >>> p.kinds
    ('transductive', 'stagewise', 'k-armed')
    >>> p.why_not("kernel")
    'kernel learners need the Slater constant: give slater or safe_cost'
    >>> sim = p.simulate(reward_param=[0.5, 0.9], cost_params=[[0.2, 0.8]])
    >>> round(sim.instance("stagewise", horizon=100).optimal_value, 3)  # arm 1: cost 0.2, reward 0.5
    0.5
    """

    setting = "linear"

    arms: Any
    threshold: Any
    safe_arm: int | None = None
    safe_reward: float | None = None
    safe_cost: Any = None
    reward_param: Any = None
    cost_matrix: Any = None
    decisions: Any = None
    epsilon: float | None = None
    action_set: Literal["points", "star"] = "points"
    feedback: Any = "gaussian"
    param_norm_bound: float = 1.0
    arm_norm_bound: float | None = None
    mean_bound: float = 1.0
    slater: float | None = None
    safety_gap: float | None = None
    horizon: int = 10_000

    def __post_init__(self) -> None:
        owner = "LinearProblem"
        arms = check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner)
        if arms.shape[1] < 1:
            raise _owner_fail(owner, "arms", "an array with at least one column", f"shape {arms.shape}")
        k, d = arms.shape
        tau = check_array(
            np.atleast_1d(np.asarray(self.threshold, dtype=object)),
            "threshold",
            ndim=1,
            min_rows=1,
            owner=owner,
        )
        m = tau.shape[0]
        object.__setattr__(self, "arms", arms)
        object.__setattr__(self, "threshold", tau)
        if self.safe_arm is not None:
            object.__setattr__(
                self, "safe_arm", check_int(self.safe_arm, "safe_arm", low=0, high=k - 1, owner=owner)
            )
        if self.safe_reward is not None:
            object.__setattr__(
                self, "safe_reward", check_interval(self.safe_reward, "safe_reward", owner=owner)
            )
        if self.safe_cost is not None:
            c0 = check_array(
                np.atleast_1d(np.asarray(self.safe_cost, dtype=object)), "safe_cost", shape=(m,), owner=owner
            )
            check_safe_cost(c0, tau, owner=owner)
            object.__setattr__(self, "safe_cost", c0)
        if (self.safe_reward is not None or self.safe_cost is not None) and self.safe_arm is None:
            raise ConfigError(
                "LinearProblem: safe_reward and safe_cost describe the safe arm; set safe_arm too."
            )
        if self.reward_param is not None:
            object.__setattr__(
                self, "reward_param", check_array(self.reward_param, "reward_param", shape=(d,), owner=owner)
            )
        if self.cost_matrix is not None:
            mat = check_array(self.cost_matrix, "cost_matrix", shape=(d, d), owner=owner)
            if m != 1:
                raise _owner_fail(owner, "cost_matrix", "given with exactly one threshold", f"{m} thresholds")
            object.__setattr__(self, "cost_matrix", mat)
        if self.decisions is not None:
            z = check_array(self.decisions, "decisions", shape=(None, d), min_rows=1, owner=owner)
            object.__setattr__(self, "decisions", z)
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon", owner=owner))
        check_literal_fields(self, owner=owner)
        if self.action_set == "star" and self.safe_arm is None:
            raise ConfigError("LinearProblem: action_set='star' (segments [x0, x_i]) needs safe_arm.")
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        object.__setattr__(
            self, "param_norm_bound", check_positive(self.param_norm_bound, "param_norm_bound", owner=owner)
        )
        if self.arm_norm_bound is not None:
            check_positive(self.arm_norm_bound, "arm_norm_bound", owner=owner)
        object.__setattr__(self, "mean_bound", check_positive(self.mean_bound, "mean_bound", owner=owner))
        if self.slater is not None:
            check_interval(self.slater, "slater", low=0.0, high=1.0, closed="right", owner=owner)
        if self.safety_gap is not None:
            check_positive(self.safety_gap, "safety_gap", owner=owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        arm_norm = self.told_arm_norm
        if not math.isfinite(self.param_norm_bound * arm_norm * math.sqrt(self.n_arms)):
            raise ConfigError(
                f"LinearProblem: param_norm_bound x the arms' norm bound x sqrt(number of arms) must be "
                f"finite (the learners' confidence widths scale with it). Got param_norm_bound = "
                f"{self.param_norm_bound:g}, arm norm bound = {arm_norm:g}, {self.n_arms} arms: "
                "declare a smaller param_norm_bound or arm_norm_bound, or rescale the arms."
            )

    # -- shape ------------------------------------------------------------------------------------
    @property
    def n_arms(self) -> int:
        return int(self.arms.shape[0])

    @property
    def dim(self) -> int:
        return int(self.arms.shape[1])

    @property
    def n_constraints(self) -> int:
        return int(self.threshold.shape[0])

    @property
    def answer_tolerance(self) -> Tolerance:
        """The tolerance of identification answers: the declared ``epsilon`` or the documented default."""
        if self.epsilon is not None:
            return Tolerance("epsilon", float(self.epsilon), "given")
        value = DEFAULT_EPSILON_FRACTION * float(self.mean_bound)
        return Tolerance(
            "epsilon",
            value,
            f"default: {DEFAULT_EPSILON_FRACTION:.0%} of mean_bound = {self.mean_bound:g}, the scale of the "
            "costs; set epsilon in the problem to choose it",
        )

    @property
    def told_arm_norm(self) -> float:
        return float(self.arm_norm_bound or max(1e-12, np.linalg.norm(self.arms, axis=1).max()))

    # -- views ------------------------------------------------------------------------------------
    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in INFO_KINDS if self._why(k) is None)

    def why_not(self, kind: str) -> str | None:
        if kind not in INFO_KINDS:
            return f"unknown info kind {kind!r}; kinds: {', '.join(INFO_KINDS)}"
        return self._why(kind)

    def _why(self, kind: str) -> str | None:
        finite = self.action_set == "points"
        if kind == "safe-linear":
            return "a LinearProblem has finitely many arms: its Safe-LUCB view is 'safe-linear-arms'"
        if kind == "dose":
            return (
                "the dose-escalation learner reads a CovariateProblem (setting = 'covariate') with ordered "
                "doses and max_increase"
            )
        if kind == "conservative":
            return (
                "the conservative kind (a default arm and a tolerance alpha on the cumulative reward) needs "
                "a ConservativeProblem"
            )
        if kind == "conservative-linear":  # (the constraint the reward's own: linear_conservative.py)
            return why_not_conservative(self)
        if kind in ("function-class", "pool"):
            return (
                f"the {kind!r} kind needs a {'FunctionClassProblemSpec' if kind[0] == 'f' else 'PoolProblem'}"
            )
        if kind == "cbai":
            if self.reward_param is None:
                return "feasibility identification (ACOL family) needs a known reward_param"
            if self.n_constraints != 1:
                return "feasibility identification (ACOL family) handles one constraint"
        if kind == "transductive" and np.unique(self.threshold).size != 1:
            return "transductive identification (BESIDE) needs one threshold shared by all constraints"
        if kind in ("cbai", "transductive", "k-armed", "kernel", "safe-linear-arms") and not finite:
            return f"the {kind!r} kind plays finitely many arms; action_set='star' is for stage-wise learners"
        if kind in ("stagewise", "k-armed") and self.safe_arm is None:
            return "stage-wise learners need a known safe arm (safe_arm)"
        if kind == "kernel":
            if self.safe_arm is None:
                return (
                    "kernel learners need a known safe arm (safe_arm) for the Slater constant and safe seed"
                )
            if self.slater is None and self.safe_cost is None:
                return "kernel learners need the Slater constant: give slater or safe_cost"
            if self.n_constraints != 1:
                return "kernel learners handle one constraint"
        if kind == "safe-linear-arms":
            if self.cost_matrix is None:
                return (
                    "Safe-LUCB needs the constraint read off the reward: cost(x) = theta^T M x (cost_matrix)"
                )
            if self.safe_arm is None:
                return "Safe-LUCB needs a known safe arm (safe_arm)"
            if not np.allclose(self.arms[self.safe_arm], 0.0) and (
                self.safe_cost is None or self.safe_reward is None
            ):
                return (
                    "Safe-LUCB's safe action is the origin: with a safe arm x0 != 0 the problem is shifted "
                    "by "
                    "x0, which needs safe_reward and safe_cost"
                )
            if self._shifted_threshold() <= 0:
                return "Safe-LUCB needs tau - c0 > 0"
        return None

    def coordinates_note(self, kind: str) -> str | None:
        if kind != "safe-linear-arms":
            return None
        x0 = json.dumps((np.round(self._x0(), 6) + 0.0).tolist())
        return (
            f"Safe-LUCB works in coordinates centred at your safe arm: x = (your arm) - x0 with x0 = {x0}, "
            f"B = -cost_matrix and c = threshold - safe_cost = {self._shifted_threshold():g}; so its set "
            "D^w = {x : ||B x|| <= c/S} is, in your terms, the arms a with "
            f"||cost_matrix (a - x0)|| <= {self._shifted_threshold():g} / param_norm_bound"
        )

    def user_actions(self, kind: str, rows: Any) -> FloatArray:
        rows = np.asarray(rows, dtype=float)
        return rows + self._x0()[None, :] if kind == "safe-linear-arms" else rows

    def _shifted_threshold(self) -> float:
        c0 = 0.0 if self.safe_cost is None else float(self.safe_cost[0])
        return float(self.threshold[0]) - c0

    def _x0(self) -> FloatArray:
        return self.arms[self.safe_arm].copy()

    def _view(self, kind: str, horizon: int) -> Any:
        fb = self.feedback
        if kind == "conservative-linear":
            return conservative_view(self, horizon)
        if kind == "cbai":
            from safebandits.problems.linear import CBAIInfo

            return CBAIInfo(
                arms=self.arms,
                reward_param=self.reward_param,
                threshold=float(self.threshold[0]),
                noise=fb.model().name,
            )
        if kind == "transductive":
            from safebandits.problems.transductive import TransductiveInfo

            return TransductiveInfo(
                arms=self.arms,
                decisions=self.arms if self.decisions is None else self.decisions,
                threshold=float(self.threshold[0]),
                n_constraints=self.n_constraints,
                epsilon=self.answer_tolerance.value,
                noise_sd=fb.noise_bound,
                noise_kind="gaussian" if fb.kind == "subgaussian" else fb.kind,
                mean_bound=self.mean_bound,
            )
        if kind == "safe-linear-arms":
            from safebandits.problems.safe_linear import DecisionSet, SafeLinearInfo

            shifted = self.arms - self._x0()[None, :]
            return SafeLinearInfo(
                decision_set=DecisionSet("arms", arms=shifted),
                b_mat=-self.cost_matrix,
                threshold=self._shifted_threshold(),
                horizon=horizon,
                noise_bound=fb.noise_bound,
                param_norm_bound=self.param_norm_bound,
                arm_norm_bound=float(max(1e-12, np.linalg.norm(shifted, axis=1).max())),
                safety_gap=self.safety_gap,
            )
        from safebandits.problems.stagewise import StagewiseInfo

        if kind == "stagewise":
            return StagewiseInfo(
                arms=self.arms.copy(),
                safe_action=self._x0(),
                threshold=self.threshold.copy(),
                safe_reward=self.safe_reward,
                safe_cost=None if self.safe_cost is None else self.safe_cost.copy(),
                action_set=self.action_set,
                horizon=horizon,
                noise_bound=fb.noise_bound,
                param_norm_bound=self.param_norm_bound,
                arm_norm_bound=self.told_arm_norm,
                safe_arm=self.safe_arm,
                noise_kind=fb.kind,
                mean_bound=self.mean_bound,
                declared=True,
            )
        if kind == "k-armed":
            k = self.n_arms
            bound = self.param_norm_bound * self.told_arm_norm
            return StagewiseInfo(
                arms=np.eye(k),
                safe_action=np.eye(k)[self.safe_arm],
                threshold=self.threshold.copy(),
                safe_reward=self.safe_reward,
                safe_cost=None if self.safe_cost is None else self.safe_cost.copy(),
                action_set="simplex",
                horizon=horizon,
                noise_bound=fb.noise_bound,
                param_norm_bound=max(1.0, bound * math.sqrt(k)),
                arm_norm_bound=1.0,
                safe_arm=self.safe_arm,
                noise_kind=fb.kind,
                mean_bound=self.mean_bound,
                declared=True,
            )
        if kind == "kernel":
            from safebandits.problems.kernel import KernelInfo

            gram = self.linear_kernel()
            s, big_l = self.param_norm_bound, self.told_arm_norm
            # f = theta^T x and g = mu^T x - tau under k(x, y) = x^T y + 1: ||f||_k <= S,
            # ||g||_k <= sqrt(S^2 + tau^2); sup|f| <= S L, sup|g| <= S L + |tau|.
            tau = float(np.max(np.abs(self.threshold)))
            return KernelInfo(
                kernel=gram,
                constraint_kernel=gram,
                points=self.arms.copy(),
                reward_bound=s * max(1.0, big_l),
                constraint_bound=max(s * big_l + tau, math.hypot(s, tau)),
                noise_bound=fb.noise_bound,
                constraint_noise_bound=fb.noise_bound,
                slater=self.told_slater(),
                horizon=horizon,
                safe_seed=(int(self.safe_arm),),
            )
        raise AssertionError(kind)  # pragma: no cover - _why screens the kinds

    def linear_kernel(self) -> FloatArray:
        """``k(x, y) = x^T y + 1`` on the arms (the constant feature holds the threshold of ``g``)."""
        return self.arms @ self.arms.T + 1.0

    def told_slater(self) -> float:
        if self.slater is not None:
            return float(self.slater)
        return float(min(1.0, np.min(self.threshold - self.safe_cost)))

    def simulate(
        self,
        *,
        reward_param: Any = None,
        cost_params: Any = None,
        sigma: float | None = None,
        name: str = "declared",
    ) -> SimulatedProblem:
        """Add a ground truth: ``theta`` (unless declared) and ``mu`` (rows; implied by ``cost_matrix``).

        ``sigma`` overrides the declared feedback's noise scale in simulation (e.g. a sub-Gaussian bound
        ``R`` simulated with a smaller Gaussian noise).
        """
        return SimulatedProblem(
            problem=self,
            truth={"reward_param": reward_param, "cost_params": cost_params, "sigma": sigma},
            name=name,
        )

    # -- truth -> instances -------------------------------------------------------------------------
    def _truth(self, truth: Mapping[str, Any]) -> tuple[FloatArray, FloatArray]:
        owner = "LinearProblem.simulate"
        d, m = self.dim, self.n_constraints
        raw_theta = truth.get("reward_param")
        if self.reward_param is not None:
            if raw_theta is not None and not np.allclose(
                np.asarray(raw_theta, dtype=float), self.reward_param
            ):
                raise ConfigError(
                    f"{owner}: the reward parameter is declared known; do not give another one."
                )
            theta = self.reward_param
        elif raw_theta is None:
            raise ConfigError(f"{owner} needs the true reward_param (shape ({d},)).")
        else:
            theta = check_array(raw_theta, "reward_param", shape=(d,), owner=owner)
        raw_mu = truth.get("cost_params")
        if self.cost_matrix is not None:
            if raw_mu is not None:
                raise ConfigError(
                    f"{owner}: the costs are theta^T M x (cost_matrix); do not give cost_params."
                )
            mu = (self.cost_matrix.T @ theta)[None, :]
        elif raw_mu is None:
            raise ConfigError(f"{owner} needs the true cost_params (shape ({m}, {d})).")
        else:
            mu = check_array(
                np.atleast_2d(np.asarray(raw_mu, dtype=object)), "cost_params", shape=(m, d), owner=owner
            )
        if self.safe_arm is not None:
            x0 = self.arms[self.safe_arm]
            c0 = mu @ x0
            where = f"{owner}: the declared safe arm {self.safe_arm} is not safe under this truth"
            check_safe_cost(c0, self.threshold, owner=where)
            if self.safe_cost is not None and not np.allclose(c0, self.safe_cost, atol=1e-9):
                raise ConfigError(
                    f"{owner}: the declared safe_cost {self.safe_cost.tolist()} differs from the "
                    f"truth's {c0.tolist()}."
                )
            if self.safe_reward is not None and not math.isclose(
                float(theta @ x0), self.safe_reward, abs_tol=1e-9
            ):
                raise ConfigError(
                    f"{owner}: the declared safe_reward {self.safe_reward} differs from the "
                    f"truth's {float(theta @ x0)}."
                )
        return np.asarray(theta, dtype=float), mu

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """Where ``truth`` breaks the declared bounds: a reward or cost mean ``|theta^T x|``, ``|mu_i^T x|``
        (arms and decisions) above ``mean_bound``, ``||theta||`` or ``||mu_i||`` above ``param_norm_bound``
        (``mu`` only when given: with ``cost_matrix`` the costs follow from ``theta``)."""
        theta, mu = self._truth(truth)
        points = self.arms if self.decisions is None else np.vstack([self.arms, self.decisions])
        out = []
        b, s = float(self.mean_bound), float(self.param_norm_bound)
        tol = 1e-9
        for what, field, values in (
            (
                "reward",
                "reward_param" + (" (declared in [problem])" if self.reward_param is not None else ""),
                points @ theta,
            ),
            *(
                (f"cost{'' if self.n_constraints == 1 else f' {i + 1}'}", "cost_params", points @ mu[i])
                for i in range(self.n_constraints)
            ),
        ):
            a = int(np.argmax(np.abs(values)))
            if abs(values[a]) > b * (1 + tol):
                out.append(
                    f"{field}: the {what} mean of arm {a} is {values[a]:.6g}, beyond mean_bound = {b:g} "
                    f"(|mean| <= mean_bound); declare mean_bound >= {abs(values[a]):.6g} or change the truth"
                )
        known = " (declared in [problem])" if self.reward_param is not None else ""
        norms = [(f"reward_param{known}", "||theta||", float(np.linalg.norm(theta)))]
        if self.cost_matrix is None:
            norms += [
                ("cost_params", f"||mu_{i + 1}||", float(np.linalg.norm(row))) for i, row in enumerate(mu)
            ]
        for field, name, norm in norms:
            if norm > s * (1 + tol):
                out.append(
                    f"{field}: {name} = {norm:.6g} exceeds param_norm_bound = {s:g}; declare "
                    f"param_norm_bound >= {norm:.6g} or change the truth"
                )
        return out

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        theta, _ = self._truth(truth)
        inst = self._kind_instance(kind, truth, horizon, name)
        return with_conservative_record(self, kind, inst, theta)  # (the cumulative margin too, if it fits)

    def _safe_linear_arms(
        self, theta: np.ndarray, mu: np.ndarray, noise: Any, horizon: int, name: str
    ) -> Any:
        """The ``safe-linear-arms`` view (Safe-LUCB's instance over the arms shifted by ``x0``), with the best
        policy's value in expectation."""
        from safebandits.problems.safe_linear import DecisionSet, SafeLinearInstance
        from safebandits.problems.stagewise import solve_policy_lp

        x0 = self._x0()
        shifted = self.arms - x0[None, :]
        inst = SafeLinearInstance(
            decision_set=DecisionSet("arms", arms=shifted),
            mu=-theta,
            b_mat=-self.cost_matrix,
            threshold=self._shifted_threshold(),
            noise=noise,
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            param_norm_bound=self.param_norm_bound,
            arm_norm_bound=float(max(1e-12, np.linalg.norm(shifted, axis=1).max())),
            name=name,
        )
        # The best policy in expectation (an LP over the arms), in the shifted coordinates, so that
        # policy regret means the same for every learner of the problem (SafeLinearInstance has none).
        lp = solve_policy_lp(shifted @ theta, (shifted @ mu.T), self.threshold - mu @ x0)
        value = max(inst.optimal_value, lp[0] if lp is not None else -np.inf)
        return _Proxy(inst, optimal_policy_value=value)

    def _k_armed(self, theta: np.ndarray, mu: np.ndarray, noise: Any, horizon: int, name: str) -> Any:
        """The ``k-armed`` view: each arm a unit vector, its reward and costs the arms' means."""
        from safebandits.problems.stagewise import StagewiseInstance

        info = self._view("k-armed", horizon)
        eye = np.eye(self.n_arms)
        return StagewiseInstance(
            arms=eye,
            safe_action=eye[self.safe_arm],
            reward_param=self.arms @ theta,
            cost_params=(self.arms @ mu.T).T,
            threshold=self.threshold,
            noise=noise,
            action_set="simplex",
            horizon=horizon,
            noise_bound=info.noise_bound,
            param_norm_bound=info.param_norm_bound,
            arm_norm_bound=1.0,
            known_safe_values=self.safe_cost is not None and self.safe_reward is not None,
            name=name,
        )

    def _kind_instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        theta, mu = self._truth(truth)
        sigma = truth.get("sigma")
        fb = self.feedback if sigma is None else Feedback(self.feedback.kind, sigma)
        noise = fb.model()
        if kind == "conservative-linear":
            return conservative_instance(self, theta, noise, horizon, name)
        if kind == "cbai":
            from safebandits.problems.linear import LinearCBAIInstance

            return LinearCBAIInstance(
                arms=self.arms,
                reward_param=theta,
                constraint_param=mu[0],
                threshold=float(self.threshold[0]),
                noise=noise,
                name=name,
            )
        if kind == "transductive":
            from safebandits.problems.transductive import TransductiveInstance

            return TransductiveInstance(
                arms=self.arms,
                decisions=self.arms if self.decisions is None else self.decisions,
                reward_param=theta,
                constraint_params=mu,
                threshold=float(self.threshold[0]),
                epsilon=self.answer_tolerance.value,
                noise=noise,
                mean_bound=self.mean_bound,
                name=name,
            )
        if kind == "safe-linear-arms":
            return self._safe_linear_arms(theta, mu, noise, horizon, name)
        from safebandits.problems.stagewise import StagewiseInstance

        if kind == "stagewise":
            return StagewiseInstance(
                arms=self.arms,
                safe_action=self._x0(),
                reward_param=theta,
                cost_params=mu,
                threshold=self.threshold,
                noise=noise,
                action_set=self.action_set,
                horizon=horizon,
                noise_bound=self.feedback.noise_bound,
                param_norm_bound=self.param_norm_bound,
                arm_norm_bound=self.told_arm_norm,
                known_safe_values=self.safe_cost is not None and self.safe_reward is not None,
                name=name,
            )
        if kind == "k-armed":
            return self._k_armed(theta, mu, noise, horizon, name)
        if kind == "kernel":
            if self.n_constraints != 1:
                raise ConfigError(
                    f"Kernel learners handle one constraint; this problem declares {self.n_constraints}."
                )
            info = self._view("kernel", horizon)
            tau = float(self.threshold[0])
            reward, constraint = self.arms @ theta, self.arms @ mu[0] - tau
            return seeded_kernel_instance(
                info, reward, constraint, fb, tau, self.arms, int(self.safe_arm), name
            )
        raise AssertionError(kind)  # pragma: no cover
