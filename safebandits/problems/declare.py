"""Declare a problem of one's own from its public parts, then hand each learner the view it needs.

A *declaration* holds what a learner may know before it plays: the actions, the thresholds, the
feedback model, a known safe action, norm bounds. It holds no ground truth. One declaration can fit
several settings of the library; :meth:`Problem.view` turns it into the problem-information type a
family of learners reads (the "info kinds" of :data:`INFO_KINDS`):

================ ============================================== ======================================
kind             learner input                                  learners
================ ============================================== ======================================
cbai             ``CBAIInfo``                                   ACOL, G-ACOL and their baselines
transductive     ``TransductiveInfo``                           BESIDE, RAGE and their baselines
safe-linear      ``SafeLinearInfo`` (ball or polytope)          Safe-LUCB
safe-linear-arms ``SafeLinearInfo`` (finite arms)               Safe-LUCB, GSLUCB
stagewise        ``StagewiseInfo`` (finite points or star set)  LC-LUCB, Safe-LTS, OPLB
k-armed          ``StagewiseInfo`` (``action_set="simplex"``)   OPB (and OPLB)
kernel           ``KernelInfo``                                 CKB, StageOpt, SGP-UCB
function-class   ``FunctionClassInfo``                          OPNLB
pool             ``PoolInfo``                                   FDR-constrained active classification
================ ============================================== ======================================

Five declarations cover the settings: :class:`LinearProblem` (finite arms, linear reward and linear
constraints: cbai, transductive, safe-linear-arms, stagewise, k-armed and kernel views),
:class:`SafeLinearProblem` (a ball or polytope whose loss parameter also sets the constraint:
Safe-LUCB), :class:`KernelProblem` (a finite domain with kernels), :class:`FunctionClassProblemSpec`
(finite reward and cost function classes) and :class:`PoolProblem` (records of a data frame to label
under an FDR constraint). ``simulate(...)`` adds a ground truth and
returns a :class:`SimulatedProblem`, whose :meth:`~SimulatedProblem.instance` builds the instance of a
kind (with its oracle and environment) for :func:`safebandits.run`, :func:`safebandits.run_regret` and
the experiment runner. Which learners fit a declaration: :func:`safebandits.compatible_learners`.

How a K-armed linear problem maps onto each kind is recorded in ``docs/decisions/engine.md`` ("One problem,
many settings").
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from safebandits._validation import (
    check_array,
    check_choice,
    check_int,
    check_interval,
    check_literal_fields,
    check_positive,
)
from safebandits.exceptions import ConfigError, DefaultToleranceWarning, Fix, user_stacklevel
from safebandits.problems.noise import BernoulliNoise, BinaryNoise, GaussianNoise, NoiseModel
from safebandits.problems.stagewise import check_safe_cost
from safebandits.types import FloatArray

__all__ = [
    "DEFAULT_EPSILON_FRACTION",
    "FEEDBACK_KINDS",
    "INFO_KINDS",
    "TOLERANCE_KINDS",
    "Feedback",
    "FunctionClassProblemSpec",
    "KernelProblem",
    "LinearProblem",
    "PoolProblem",
    "Problem",
    "SafeLinearProblem",
    "SimulatedProblem",
    "Tolerance",
    "info_kind",
]

#: Info kinds: name -> what a learner of that kind is told.
INFO_KINDS: dict[str, str] = {
    "cbai": "CBAIInfo: finite arms, known linear reward, one unknown linear constraint (feasibility BAI)",
    "transductive": "TransductiveInfo: measurement and decision sets, unknown reward and constraints (BAI)",
    "safe-linear": "SafeLinearInfo: loss parameter also in the constraint, convex decision set, safe origin",
    "safe-linear-arms": "SafeLinearInfo (finite arms): loss parameter also in the constraint, safe origin",
    "stagewise": "StagewiseInfo: linear reward and costs, known safe action, finite points or star set",
    "k-armed": "StagewiseInfo (simplex): K unstructured arms with reward and cost, known safe arm",
    "kernel": "KernelInfo: finite domain, kernels, RKHS and noise bounds, soft constraint g <= 0",
    "function-class": "FunctionClassInfo: finite reward and cost function classes, known safe arm",
    "pool": "PoolInfo: pool of records to label under an FDR level q",
}

#: Feedback models a declaration may name.
FeedbackKind = Literal["gaussian", "subgaussian", "bernoulli", "binary"]
FEEDBACK_KINDS: tuple[str, ...] = get_args(FeedbackKind)


def _plain(value: Any) -> Any:
    return value.tolist() if isinstance(value, np.ndarray) else value


def info_kind(info: Any) -> str | None:
    """The kind of a problem-information object (``None`` if it is none of :data:`INFO_KINDS`)."""
    name = type(info).__name__
    if name in ("CBAIInfo", "CBAIPrivilegedInfo"):
        return "cbai"
    if name == "TransductiveInfo":
        return "transductive"
    if name == "SafeLinearInfo":
        return "safe-linear-arms" if getattr(info.decision_set, "kind", None) == "arms" else "safe-linear"
    if name == "StagewiseInfo":
        return "k-armed" if getattr(info, "action_set", None) == "simplex" else "stagewise"
    if name == "KernelInfo":
        return "kernel"
    if name == "FunctionClassInfo":
        return "function-class"
    if name == "PoolInfo":
        return "pool"
    return None


def _owner_fail(owner: str, name: str, expected: str, got: Any) -> ConfigError:
    return ConfigError(f"The {name!r} parameter of {owner} must be {expected}. Got {got!r} instead.")


@dataclass(frozen=True, slots=True)
class Feedback:
    """How an observation is drawn around its mean (the learner knows the model, not the means).

    Parameters
    ----------
    kind : {"gaussian", "subgaussian", "bernoulli", "binary"}, default "gaussian"
        ``"gaussian"``: mean plus ``N(0, sigma^2)``; ``"subgaussian"``: mean plus noise that is
        ``sigma``-sub-Gaussian (simulated as Gaussian with standard deviation ``sigma``);
        ``"bernoulli"``: ``{0, 1}`` with mean in ``[0, 1]``; ``"binary"``: ``{-1, +1}`` with mean in
        ``[-1, 1]``.
    sigma : float, default 1.0
        Standard deviation (Gaussian) or sub-Gaussian constant ``R``; ignored for Bernoulli / binary.
    """

    kind: FeedbackKind = "gaussian"
    sigma: float = 1.0

    def __post_init__(self) -> None:
        check_literal_fields(self, owner="Feedback")
        object.__setattr__(self, "sigma", check_positive(self.sigma, "sigma", owner="Feedback"))

    @classmethod
    def coerce(cls, value: Any, owner: str, allowed: Mapping[str, str] | None = None) -> Feedback:
        """A :class:`Feedback` from itself, a kind name or a mapping ``{"kind": ..., "sigma": ...}``.

        ``allowed`` (kind -> its name in the message) restricts the kinds a declaration accepts.
        """
        if isinstance(value, Feedback):
            fb = value
        elif isinstance(value, str):
            fb = cls(value)
        elif isinstance(value, Mapping):
            unknown = set(value) - {"kind", "sigma"}
            if unknown:
                raise _owner_fail(owner, "feedback", "a mapping with keys 'kind' and 'sigma'", dict(value))
            fb = cls(**dict(value))
        else:
            raise _owner_fail(owner, "feedback", f"a Feedback, one of {FEEDBACK_KINDS} or a mapping", value)
        if allowed is not None and fb.kind not in allowed:
            raise _owner_fail(owner, "feedback", " or ".join(allowed.values()), fb.kind)
        return fb

    @property
    def noise_bound(self) -> float:
        """Sub-Gaussian constant told to learners: ``sigma``, 1/2 (Bernoulli) or 1 (binary)."""
        if self.kind == "bernoulli":
            return 0.5
        if self.kind == "binary":
            return 1.0
        return self.sigma

    def describe(self) -> str:
        """The feedback and the sub-Gaussian constant told to learners, in words (for reports)."""
        if self.kind in ("bernoulli", "binary"):
            a, b = (0, 1) if self.kind == "bernoulli" else (-1, 1)
            return (
                f"{self.kind.capitalize()} outcomes in {{{a}, {b}}}: bounded, hence sub-Gaussian with "
                f"proxy R = (b - a) / 2 = {self.noise_bound:g} (Hoeffding's lemma), the noise bound told to "
                "learners"
            )
        word = (
            "Gaussian noise with standard deviation" if self.kind == "gaussian" else "sub-Gaussian noise, R ="
        )
        return f"{word} {self.sigma:g}, the noise bound told to learners"

    def model(self) -> NoiseModel:
        """The noise model used in simulation."""
        if self.kind == "bernoulli":
            return BernoulliNoise()
        if self.kind == "binary":
            return BinaryNoise()
        return GaussianNoise(sigma=self.sigma)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "sigma": self.sigma}


#: Default identification tolerance of a declared problem, as a fraction of its cost scale ``mean_bound``.
DEFAULT_EPSILON_FRACTION = 0.01

#: Info kinds whose learners' answers are relaxed by the declaration's ``epsilon``.
TOLERANCE_KINDS = ("transductive",)


@dataclass(frozen=True, slots=True)
class Tolerance:
    """A tolerance that relaxes a guarantee: its name, value and where it comes from.

    ``source`` is ``"given"`` (the user's value) or a sentence stating the default and its rule.
    """

    name: str
    value: float
    source: str

    @property
    def is_default(self) -> bool:
        return self.source != "given"

    def describe(self) -> str:
        where = "your value" if not self.is_default else self.source
        return f"{self.name} = {self.value:g} ({where})"


def kernel_feedback(feedback: Feedback, *, constraint_shift: float = 0.0) -> Any:
    """The kernel environment's feedback of a declared :class:`Feedback`: Gaussian draws (sub-Gaussian
    feedback simulated as Gaussian with standard deviation ``sigma``), or bounded Bernoulli / binary
    outcomes (:class:`~safebandits.problems.kernel.BoundedFeedback`; the constraint observed as
    ``outcome + constraint_shift``)."""
    from safebandits.problems.kernel import BoundedFeedback, GaussianFeedback

    if feedback.kind in ("bernoulli", "binary"):
        return BoundedFeedback(feedback.kind, constraint_shift=constraint_shift)
    return GaussianFeedback(sigma=feedback.sigma)


class Problem:
    """Base of the declarations: ``kinds``, ``view(kind)``, ``simulate(...)``, ``to_dict()``."""

    def tolerance(self, kind: str) -> Tolerance | None:
        """The tolerance that relaxes the guarantee of learners of ``kind`` (``None``: none relaxes it)."""
        if kind in TOLERANCE_KINDS and hasattr(self, "answer_tolerance"):
            return self.answer_tolerance  # type: ignore[no-any-return]
        return None

    setting: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        """Info kinds this declaration can be viewed as, best first."""
        raise NotImplementedError

    def why_not(self, kind: str) -> str | None:
        """``None`` if :meth:`view` can give ``kind``, else the reason it cannot."""
        if kind not in INFO_KINDS:
            return f"unknown info kind {kind!r}; kinds: {', '.join(INFO_KINDS)}"
        return None if kind in self.kinds else f"a {type(self).__name__} has no {kind!r} view"

    def view(self, kind: str, *, horizon: int | None = None) -> Any:
        """The learner input of ``kind`` (see :data:`INFO_KINDS`); ``horizon`` overrides the declared one."""
        reason = self.why_not(kind)
        if reason is not None:
            raise ConfigError(f"{type(self).__name__} cannot be viewed as {kind!r}: {reason}.")
        tol = self.tolerance(kind)
        if tol is not None and tol.is_default:
            warnings.warn(
                DefaultToleranceWarning(
                    f"{type(self).__name__}: the {kind!r} learners' answers may exceed your threshold by "
                    f"up to {tol.describe()}."
                ),
                stacklevel=user_stacklevel(),
            )
        return self._view(kind, self._horizon(horizon))

    # -- start-up fixes, in the declaration's own words and coordinates ------------------------------
    def coordinates_note(self, kind: str) -> str | None:
        """How the view of ``kind`` differs from this declaration's coordinates (``None``: it does not)."""
        return None

    def user_actions(self, kind: str, rows: Any) -> FloatArray:
        """Actions given in the coordinates of the view ``kind``, in this declaration's coordinates."""
        return np.asarray(rows, dtype=float)

    def fix_text(self, kind: str, fix: Fix) -> str:
        """A :class:`~safebandits.exceptions.Fix` of a learner reading the view ``kind``, in this
        declaration's terms (the parameter to set, the actions to add as you would write them)."""
        if fix.kind == "option":
            return f"the learner option {fix.text}"
        if fix.kind == "learner":
            return f"the learner {fix.text}"
        if fix.kind == "problem":
            return f"in the problem, {fix.text}"
        rows = np.round(self.user_actions(kind, fix.value), 6) + 0.0  # (+ 0.0: no "-0.0" shown)
        shown = json.dumps(rows.tolist())
        return f"add these rows to arms: {shown}" + (f" ({fix.detail})" if fix.detail else "")

    def apply_fix(self, kind: str, fix: Fix) -> Problem:
        """This declaration with a ``"problem"`` or ``"add_actions"`` fix applied (other kinds: itself)."""
        if fix.kind == "problem":
            return dataclasses.replace(self, **{fix.name: fix.value})  # type: ignore[type-var]
        if fix.kind == "add_actions":
            arms = np.vstack([np.asarray(self.arms, dtype=float), self.user_actions(kind, fix.value)])  # type: ignore[attr-defined]
            return dataclasses.replace(self, arms=arms)  # type: ignore[type-var]
        return self

    def _horizon(self, horizon: int | None) -> int:
        h = getattr(self, "horizon", 10_000) if horizon is None else horizon
        return check_int(h, "horizon", low=1, owner=type(self).__name__)

    def _view(self, kind: str, horizon: int) -> Any:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """Plain-value form (the ``[problem]`` table of an experiment file); inverse of
        :func:`~safebandits.problems.settings.problem_from_dict`."""
        out: dict[str, Any] = {"setting": self.setting}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if isinstance(value, Feedback):
                value = value.to_dict()
            elif isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, tuple):
                value = list(value)
            if value is not None:
                out[f.name] = value
        return out


# ------------------------------------------------------------------------------------------------
# finite arms, linear reward and constraints
# ------------------------------------------------------------------------------------------------
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
        ``B >= |theta^T x|, |mu_i^T x|`` (transductive learners).
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
        check_int(self.horizon, "horizon", low=1, owner=owner)

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

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        theta, mu = self._truth(truth)
        sigma = truth.get("sigma")
        fb = self.feedback if sigma is None else Feedback(self.feedback.kind, sigma)
        noise = fb.model()
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


class _Proxy:
    """An instance with some attributes replaced (the rest delegated to the wrapped instance)."""

    def __init__(self, inst: Any, **overrides: Any) -> None:
        self._inst = inst
        self.__dict__.update(overrides)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inst, name)


def seeded_kernel_instance(
    info: Any, reward: Any, constraint: Any, feedback: Feedback, tau: float, points: Any, safe: int, name: str
) -> Any:
    """The kernel instance of a declaration's ``kernel`` view: ``g = cost - tau`` (observed as the outcome
    minus ``tau`` for bounded feedback), the view's kernels and bounds, the declared safe action as its
    seed."""
    from safebandits.problems.kernel import KernelInstance

    inst = KernelInstance(
        reward=reward,
        constraint=constraint,
        kernel=info.kernel,
        constraint_kernel=info.constraint_kernel,
        feedback=kernel_feedback(feedback, constraint_shift=-tau),
        horizon=info.horizon,
        points=points,
        reward_bound=info.reward_bound,
        constraint_bound=info.constraint_bound,
        noise_bound=info.noise_bound,
        constraint_noise_bound=info.constraint_noise_bound,
        slater_cap=info.slater,
        n_seed=1,
        name=name,
    )
    return _KernelWithSeed(inst, safe)


class _KernelWithSeed(_Proxy):
    """A :class:`~safebandits.problems.kernel.KernelInstance` whose safe seed is the declared safe arm."""

    def __init__(self, inst: Any, safe_arm: int) -> None:
        super().__init__(inst, safe_arm=safe_arm, safe_action=inst.arms[safe_arm])

    def public_info(self) -> Any:
        return dataclasses.replace(self._inst.public_info(), safe_seed=(self.safe_arm,))

    privileged_info = public_info


# ------------------------------------------------------------------------------------------------
# a convex decision set with the loss parameter in the constraint (Safe-LUCB)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class SafeLinearProblem(Problem):
    """A linear bandit on a convex (or finite) decision set, safe at every round (Safe-LUCB, GSLUCB).

    Each round the learner plays ``x`` in ``D0`` and observes the loss ``mu^T x + noise``; every played
    ``x`` must satisfy ``mu^T B x <= c`` with the same unknown ``mu`` (Amani et al. 2019). The origin is
    the known safe action.

    Parameters
    ----------
    decision_set : DecisionSet or mapping
        ``{"kind": "ball", "center": [...], "radius": r}``, ``{"kind": "polytope", "g_mat": [[...]],
        "h_vec": [...]}`` (``G x <= h``) or ``{"kind": "arms", "arms": [[...]]}``; convex sets must hold the
        origin in their interior.
    b_mat : array-like of shape (d, d)
        ``B`` of the constraint.
    threshold : float
        ``c > 0``.
    feedback : Feedback, str or mapping, default gaussian with sigma 0.1
    param_norm_bound : float, default 1.0
        ``S >= ||mu||``.
    arm_norm_bound : float, optional
        ``L >= max ||x||`` (default: computed from the decision set, which is public).
    safety_gap : float, optional
        ``Delta`` when known (Safe-LUCB's default ``t_prime="t_delta"`` reads it).
    horizon : int, default 10_000
    """

    setting = "safe-linear"

    decision_set: Any
    b_mat: Any
    threshold: float
    feedback: Any = field(default_factory=lambda: {"kind": "gaussian", "sigma": 0.1})
    param_norm_bound: float = 1.0
    arm_norm_bound: float | None = None
    safety_gap: float | None = None
    horizon: int = 10_000

    def __post_init__(self) -> None:
        from safebandits.problems.safe_linear import DecisionSet

        owner = "SafeLinearProblem"
        ds = self.decision_set
        if isinstance(ds, Mapping):
            values = dict(ds)
            allowed = {"kind", "arms", "center", "radius", "g_mat", "h_vec"}
            if set(values) - allowed or "kind" not in values:
                raise _owner_fail(
                    owner, "decision_set", f"a mapping with 'kind' and keys among {sorted(allowed)}", dict(ds)
                )
            ds = DecisionSet(**values)
        if not isinstance(ds, DecisionSet):
            raise _owner_fail(owner, "decision_set", "a DecisionSet or a mapping", ds)
        object.__setattr__(self, "decision_set", ds)
        d = ds.dim
        object.__setattr__(self, "b_mat", check_array(self.b_mat, "b_mat", shape=(d, d), owner=owner))
        object.__setattr__(self, "threshold", check_positive(self.threshold, "threshold", owner=owner))
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        check_positive(self.param_norm_bound, "param_norm_bound", owner=owner)
        for attr in ("arm_norm_bound", "safety_gap"):
            if getattr(self, attr) is not None:
                check_positive(getattr(self, attr), attr, owner=owner)
        check_int(self.horizon, "horizon", low=1, owner=owner)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("safe-linear-arms",) if self.decision_set.kind == "arms" else ("safe-linear",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.safe_linear import SafeLinearInfo

        big_l = self.arm_norm_bound if self.arm_norm_bound is not None else self.decision_set.norm_bound()
        return SafeLinearInfo(
            decision_set=self.decision_set,
            b_mat=self.b_mat.copy(),
            threshold=self.threshold,
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            param_norm_bound=float(self.param_norm_bound),
            arm_norm_bound=float(big_l),
            safety_gap=self.safety_gap,
        )

    def simulate(self, *, mu: Any, sigma: float | None = None, name: str = "declared") -> SimulatedProblem:
        """Add the true loss parameter ``mu``."""
        return SimulatedProblem(problem=self, truth={"mu": mu, "sigma": sigma}, name=name)

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.safe_linear import SafeLinearInstance

        owner = "SafeLinearProblem.simulate"
        mu = check_array(truth.get("mu"), "mu", shape=(self.decision_set.dim,), owner=owner)
        sigma = truth.get("sigma")
        fb = self.feedback if sigma is None else Feedback(self.feedback.kind, sigma)
        return SafeLinearInstance(
            decision_set=self.decision_set,
            mu=mu,
            b_mat=self.b_mat,
            threshold=self.threshold,
            noise=fb.model(),
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            param_norm_bound=float(self.param_norm_bound),
            arm_norm_bound=self.arm_norm_bound,
            name=name,
        )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["decision_set"] = self.decision_set.describe()
        out["decision_set"].pop("d", None)
        return out


# ------------------------------------------------------------------------------------------------
# finite domain with kernels
# ------------------------------------------------------------------------------------------------
KernelName = Literal["se", "matern", "linear"]


def _gram(spec: Any, points: FloatArray | None, n: int | None, name: str, owner: str) -> FloatArray:
    from safebandits.estimators.gp import check_kernel_matrix, matern_kernel, se_kernel

    if isinstance(spec, Mapping):
        spec = dict(spec)
        kind = spec.pop("name", None)
        check_choice(kind, f"{name}.name", KernelName, owner=owner)
        if points is None:
            raise ConfigError(f"{owner}: a named kernel ({kind!r}) needs the domain's points.")
        allowed = {
            "se": {"lengthscale", "variance"},
            "matern": {"lengthscale", "variance", "nu"},
            "linear": set(),
        }
        unknown = set(spec) - allowed[kind]
        if unknown:
            raise _owner_fail(
                owner, name, f"a {kind!r} kernel with keys among {sorted(allowed[kind])}", sorted(unknown)
            )
        if kind == "se":
            return se_kernel(points, **spec)
        if kind == "matern":
            return matern_kernel(points, **spec)
        return points @ points.T + 1.0
    gram = check_kernel_matrix(check_array(spec, name, ndim=2, owner=owner), name, owner=owner)
    if n is not None and gram.shape != (n, n):
        raise _owner_fail(owner, name, f"an array of shape ({n}, {n})", f"array of shape {gram.shape}")
    return gram


@dataclass(frozen=True, kw_only=True)
class KernelProblem(Problem):
    """A finite domain with a reward ``f`` and a soft constraint ``g <= 0`` in known RKHSs (CKB setting).

    Parameters
    ----------
    kernel : array-like of shape (n, n) or mapping
        Gram matrix of ``k``, or ``{"name": "se" | "matern" | "linear", "lengthscale": ..., ...}`` on
        ``points``.
    points : array-like of shape (n, d), optional
        Coordinates of the domain (needed by named kernels and by StageOpt's metric).
    constraint_kernel : like ``kernel``, optional
        ``k~`` of the constraint (default ``k``).
    reward_bound, constraint_bound : float
        ``B`` and ``G``: bounds on ``|f|``, ``|g|`` and on their RKHS norms.
    slater : float in (0, 1]
        Slater constant ``delta`` (some point has ``g <= -delta``).
    safe_seed : sequence of int, default ()
        Points known to be safe (needed by the safe baselines StageOpt and SGP-UCB, not by CKB).
    feedback : Feedback, str or mapping, default gaussian with sigma 0.1
        Feedback of both ``f`` and ``g``: Gaussian, sub-Gaussian, or bounded outcomes (``"bernoulli"``
        ``{0, 1}``, ``"binary"`` ``{-1, +1}``), which are sub-Gaussian with proxy ``(b - a) / 2`` (1/2 and
        1), the noise bound told to the learners.
    constraint_shift : float, default 0.0
        With bounded feedback, the constraint is observed as ``c = Y + constraint_shift`` with ``Y`` the
        outcome (``E[Y] = g - constraint_shift``): for an outcome whose mean must stay at most ``tau``
        (``g = E[Y] - tau``) give ``-tau``. Ignored for Gaussian feedback.
    horizon : int, default 10_000
    domain : Box or mapping, optional
        A continuous domain instead of ``points``: the box ``{"lower": [...], "upper": [...]}``
        (:class:`~safebandits.problems.kernel_box.Box`: finite bounds, ``lower < upper``, at most
        20 dimensions). The kernels must then be named (``"se"`` or ``"matern"``), ``safe_seed`` lists
        points of the box (coordinates), and the truth given to :meth:`simulate` is a function on
        the box: ``{"centers": [...], "weights": [...], "offset": 0.0}`` (``sum_i w_i k(x, c_i) +
        offset``, :class:`~safebandits.problems.kernel_box.RKHSFunction`) or a vectorised callable.
        Learners play points of the box (``docs/decisions/ckb.md``, "Continuous domains").
    """

    setting = "kernel"

    kernel: Any
    reward_bound: float
    constraint_bound: float
    slater: float
    points: Any = None
    constraint_kernel: Any = None
    safe_seed: Sequence[Any] = ()
    feedback: Any = field(default_factory=lambda: {"kind": "gaussian", "sigma": 0.1})
    constraint_shift: float = 0.0
    horizon: int = 10_000
    domain: Any = None

    def __post_init__(self) -> None:
        owner = "KernelProblem"
        object.__setattr__(
            self, "constraint_shift", check_interval(self.constraint_shift, "constraint_shift", owner=owner)
        )
        if self.domain is not None:
            self._init_box(owner)
            return
        pts = (
            None
            if self.points is None
            else check_array(self.points, "points", ndim=2, min_rows=1, owner=owner)
        )
        object.__setattr__(self, "points", pts)
        gram = _gram(self.kernel, pts, None if pts is None else pts.shape[0], "kernel", owner)
        n = gram.shape[0]
        object.__setattr__(self, "_gram_k", gram)
        gk = (
            gram
            if self.constraint_kernel is None
            else _gram(self.constraint_kernel, pts, n, "constraint_kernel", owner)
        )
        object.__setattr__(self, "_gram_g", gk)
        for attr in ("reward_bound", "constraint_bound"):
            object.__setattr__(self, attr, check_positive(getattr(self, attr), attr, owner=owner))
        check_interval(self.slater, "slater", low=0.0, high=1.0, closed="right", owner=owner)
        if isinstance(self.safe_seed, (str, bytes)) or not isinstance(self.safe_seed, Sequence):
            raise _owner_fail(owner, "safe_seed", "a sequence of point indices", self.safe_seed)
        seed = tuple(check_int(i, "safe_seed", low=0, high=n - 1, owner=owner) for i in self.safe_seed)
        object.__setattr__(self, "safe_seed", seed)
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        check_int(self.horizon, "horizon", low=1, owner=owner)

    def _init_box(self, owner: str) -> None:
        """A continuous domain: the box, named kernels on it, the safe seed as points of the box."""
        from safebandits.problems.kernel_box import Box, box_kernel

        if self.points is not None:
            raise ConfigError(f"{owner}: give either points (a finite domain) or domain (a box), not both.")
        box = Box.coerce(self.domain, owner)
        object.__setattr__(self, "domain", box)
        k = box_kernel(self.kernel, box, owner)
        kg = k if self.constraint_kernel is None else box_kernel(self.constraint_kernel, box, owner)
        object.__setattr__(self, "_gram_k", k)
        object.__setattr__(self, "_gram_g", kg)
        for attr in ("reward_bound", "constraint_bound"):
            object.__setattr__(self, attr, check_positive(getattr(self, attr), attr, owner=owner))
        check_interval(self.slater, "slater", low=0.0, high=1.0, closed="right", owner=owner)
        if isinstance(self.safe_seed, (str, bytes)):
            raise _owner_fail(owner, "safe_seed", "a list of points of the box", self.safe_seed)
        seed = () if len(self.safe_seed) == 0 else box.check_points(self.safe_seed, "safe_seed", owner)
        object.__setattr__(self, "safe_seed", seed)
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        check_int(self.horizon, "horizon", low=1, owner=owner)

    @property
    def n_points(self) -> int:
        """Points of the finite domain (a box has none: 0)."""
        if self.domain is not None:
            return 0
        return int(self._gram_k.shape[0])  # type: ignore[attr-defined]

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("kernel",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.kernel import KernelInfo

        r = self.feedback.noise_bound
        if self.domain is not None:
            seed = self.safe_seed
            return KernelInfo(
                kernel=self._gram_k,  # type: ignore[attr-defined]
                constraint_kernel=self._gram_g,  # type: ignore[attr-defined]
                points=np.array(seed) if len(seed) else None,
                reward_bound=self.reward_bound,
                constraint_bound=self.constraint_bound,
                noise_bound=r,
                constraint_noise_bound=r,
                slater=float(self.slater),
                horizon=horizon,
                safe_seed=tuple(range(len(seed))),
                box=self.domain,
            )
        return KernelInfo(
            kernel=self._gram_k,
            constraint_kernel=self._gram_g,
            points=self.points,  # type: ignore[attr-defined]
            reward_bound=self.reward_bound,
            constraint_bound=self.constraint_bound,
            noise_bound=r,
            constraint_noise_bound=r,
            slater=float(self.slater),
            horizon=horizon,
            safe_seed=tuple(self.safe_seed),  # (empty: no point is assumed safe)
        )

    def why_not(self, kind: str) -> str | None:
        reason = super().why_not(kind)
        return reason

    def simulate(
        self, *, reward: Any, constraint: Any, sigma: float | None = None, name: str = "declared"
    ) -> SimulatedProblem:
        """Add the true ``f`` and ``g`` on the domain (``g <= 0`` feasible)."""
        return SimulatedProblem(
            problem=self, truth={"reward": reward, "constraint": constraint, "sigma": sigma}, name=name
        )

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.kernel import KernelInstance

        owner = "KernelProblem.simulate"
        if self.domain is not None:
            return self._box_instance(truth, horizon, name, owner)
        n = self.n_points
        f = check_array(truth.get("reward"), "reward", shape=(n,), owner=owner)
        g = check_array(truth.get("constraint"), "constraint", shape=(n,), owner=owner)
        for i in self.safe_seed:
            if g[i] > 0:
                raise ConfigError(f"{owner}: the declared safe seed point {i} has g = {g[i]:.4g} > 0.")
        sigma = truth.get("sigma")
        inst = KernelInstance(
            reward=f,
            constraint=g,
            kernel=self._gram_k,
            constraint_kernel=self._gram_g,  # type: ignore[attr-defined]
            feedback=kernel_feedback(
                self.feedback if sigma is None else Feedback(self.feedback.kind, sigma),
                constraint_shift=float(self.constraint_shift),
            ),
            horizon=horizon,
            points=self.points,
            reward_bound=self.reward_bound,
            constraint_bound=self.constraint_bound,
            noise_bound=self.feedback.noise_bound,
            constraint_noise_bound=self.feedback.noise_bound,
            slater_cap=float(self.slater),
            name=name,
        )
        return _KernelWithSeed(inst, self.safe_seed[0]) if self.safe_seed else inst

    def _box_instance(self, truth: Mapping[str, Any], horizon: int, name: str, owner: str) -> Any:
        from safebandits.problems.kernel_box import BoxKernelInstance, RKHSFunction

        def function(key: str, kernel: Any) -> Any:
            value = truth.get(key)
            if callable(value):
                return value
            if not isinstance(value, Mapping) or not {"centers", "weights"} <= set(value):
                raise ConfigError(
                    f"{owner}: on a box the truth's {key!r} is a function: {{centers = [[...]], weights = "
                    f"[...], offset = 0.0}} (sum_i w_i k(x, c_i) + offset) or a callable. Got {value!r:.80}."
                )
            unknown = set(value) - {"centers", "weights", "offset"}
            if unknown:
                raise ConfigError(f"{owner}: the truth's {key!r} has unknown keys {sorted(unknown)}.")
            return RKHSFunction(value["centers"], value["weights"], kernel, value.get("offset", 0.0))

        sigma = truth.get("sigma")
        return BoxKernelInstance(
            reward=function("reward", self._gram_k),  # type: ignore[attr-defined]
            constraint=function("constraint", self._gram_g),  # type: ignore[attr-defined]
            box=self.domain,
            kernel=self._gram_k,  # type: ignore[attr-defined]
            constraint_kernel=self._gram_g,  # type: ignore[attr-defined]
            feedback=kernel_feedback(
                self.feedback if sigma is None else Feedback(self.feedback.kind, sigma),
                constraint_shift=float(self.constraint_shift),
            ),
            horizon=horizon,
            safe_seed=np.array(self.safe_seed) if len(self.safe_seed) else None,
            reward_bound=self.reward_bound,
            constraint_bound=self.constraint_bound,
            noise_bound=self.feedback.noise_bound,
            constraint_noise_bound=self.feedback.noise_bound,
            slater_cap=float(self.slater),
            name=name,
        )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.domain is not None:
            out["domain"] = self.domain.to_dict()
        return out


# ------------------------------------------------------------------------------------------------
# finite function classes
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class FunctionClassProblemSpec(Problem):
    """Finite reward and cost function classes on ``n`` actions (OPNLB), declared without the truth.

    Parameters
    ----------
    reward_class, cost_class : array-like of shape (n_functions, n)
        Candidate reward and cost functions (values in ``[0, 1]``), one per row.
    threshold : float
        ``tau``.
    safe_arm : int
        Known safe action ``x0``.
    safe_reward, safe_cost : float
        Known ``r0`` and ``c0 < tau`` (Assumption 5).
    feedback : Feedback, str or mapping, default "bernoulli"
        Bernoulli (the paper's assumption) or Gaussian.
    horizon : int, default 10_000
    """

    setting = "function-class"

    reward_class: Any
    cost_class: Any
    threshold: float
    safe_arm: int
    safe_reward: float
    safe_cost: float
    feedback: Any = "bernoulli"
    horizon: int = 10_000

    def __post_init__(self) -> None:
        from safebandits.problems.function_class import _check_class

        owner = "FunctionClassProblemSpec"
        g_r = _check_class(self.reward_class, "reward_class", None, owner)
        g_c = _check_class(self.cost_class, "cost_class", g_r.shape[1], owner)
        object.__setattr__(self, "reward_class", g_r)
        object.__setattr__(self, "cost_class", g_c)
        check_int(self.safe_arm, "safe_arm", low=0, high=g_r.shape[1] - 1, owner=owner)
        tau = check_interval(self.threshold, "threshold", low=0.0, closed="neither", owner=owner)
        object.__setattr__(self, "threshold", tau)
        object.__setattr__(self, "safe_reward", check_interval(self.safe_reward, "safe_reward", owner=owner))
        c0 = check_interval(self.safe_cost, "safe_cost", owner=owner)
        check_safe_cost(c0, tau, owner=owner)
        object.__setattr__(self, "safe_cost", c0)
        allowed = {"bernoulli": "Bernoulli", "gaussian": "Gaussian"}
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner, allowed))
        check_int(self.horizon, "horizon", low=1, owner=owner)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("function-class",)

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.problems.function_class import FunctionClassInfo

        return FunctionClassInfo(
            reward_class=self.reward_class.copy(),
            cost_class=self.cost_class.copy(),
            safe_arm=self.safe_arm,
            safe_reward=self.safe_reward,
            safe_cost=self.safe_cost,
            threshold=self.threshold,
            horizon=horizon,
            noise_bound=self.feedback.noise_bound,
            noise_kind=self.feedback.kind,
        )

    def simulate(self, *, true_reward: int, true_cost: int, name: str = "declared") -> SimulatedProblem:
        """The truth: which row of each class is the true function."""
        return SimulatedProblem(
            problem=self, truth={"true_reward": true_reward, "true_cost": true_cost}, name=name
        )

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.problems.function_class import FunctionClassProblem

        owner = "FunctionClassProblemSpec.simulate"
        i = check_int(
            truth.get("true_reward"), "true_reward", low=0, high=self.reward_class.shape[0] - 1, owner=owner
        )
        j = check_int(
            truth.get("true_cost"), "true_cost", low=0, high=self.cost_class.shape[0] - 1, owner=owner
        )
        r0, c0 = self.reward_class[i, self.safe_arm], self.cost_class[j, self.safe_arm]
        if not (
            math.isclose(r0, self.safe_reward, abs_tol=1e-9)
            and math.isclose(c0, self.safe_cost, abs_tol=1e-9)
        ):
            raise ConfigError(
                f"{owner}: the declared safe values (r0={self.safe_reward}, c0={self.safe_cost}) "
                f"differ from the truth's (r0={r0}, c0={c0})."
            )
        return FunctionClassProblem(
            reward_class=self.reward_class,
            cost_class=self.cost_class,
            true_reward=i,
            true_cost=j,
            threshold=self.threshold,
            safe_arm=self.safe_arm,
            noise=self.feedback.kind,
            sigma=self.feedback.sigma,
            horizon=horizon,
            name=name,
        ).instance()


# ------------------------------------------------------------------------------------------------
# a pool of records to label under an FDR constraint
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class PoolProblem(Problem):
    """Records to label under a false-discovery-rate level ``q`` (Algorithm 2 of Camilleri et al. 2022).

    Parameters
    ----------
    features : array-like of shape (n, d)
        One row per record (numeric). Use :meth:`from_frame` for a pandas data frame.
    q : float in (0, 1)
        FDR level.
    feature_names : sequence of str, optional
    """

    setting = "pool"

    features: Any
    q: float
    feature_names: Sequence[str] = ()

    def __post_init__(self) -> None:
        owner = "PoolProblem"
        x = check_array(self.features, "features", ndim=2, min_rows=2, owner=owner)
        object.__setattr__(self, "features", x)
        check_interval(self.q, "q", low=0.0, high=1.0, owner=owner)
        names = tuple(str(n) for n in self.feature_names)
        if names and len(names) != x.shape[1]:
            raise _owner_fail(owner, "feature_names", f"{x.shape[1]} names", list(names))
        object.__setattr__(self, "feature_names", names)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        q: float,
        features: Sequence[str] | None = None,
        label: str | None = None,
        standardize: bool = True,
    ) -> PoolProblem | tuple[PoolProblem, FloatArray]:
        """A pool from a pandas data frame: numeric columns as they are, others one-hot encoded.

        Parameters
        ----------
        frame : pandas.DataFrame
        q : float
        features : sequence of str, optional
            Columns to use (default: every column but ``label``).
        label : str, optional
            A 0/1 column: then ``(problem, labels)`` is returned, ``labels`` for simulation only.
        standardize : bool, default True
            Scale numeric columns to zero mean and unit variance.
        """
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"PoolProblem.from_frame expects a pandas DataFrame, got {type(frame).__name__}.")
        cols = list(features) if features is not None else [c for c in frame.columns if c != label]
        missing = [c for c in [*cols, *([label] if label else [])] if c not in frame.columns]
        if missing:
            raise ConfigError(f"PoolProblem.from_frame: column(s) {missing} are not in the frame.")
        x = frame[cols]
        num = x.select_dtypes("number")
        if standardize and not num.empty:
            sd = num.std(ddof=0).replace(0.0, 1.0)
            num = (num - num.mean()) / sd
        cat = x.drop(columns=num.columns)
        parts = [num] + ([pd.get_dummies(cat.astype(str), dtype=float)] if not cat.empty else [])
        table = pd.concat(parts, axis=1)
        problem = cls(
            features=table.to_numpy(dtype=float), q=q, feature_names=[str(c) for c in table.columns]
        )
        if label is None:
            return problem
        y = frame[label].to_numpy()
        if not np.isin(y, (0, 1)).all():
            raise ConfigError(f"PoolProblem.from_frame: the label column {label!r} must hold 0/1 values.")
        return problem, y.astype(float)

    @property
    def kinds(self) -> tuple[str, ...]:
        return ("pool",)

    def _horizon(self, horizon: int | None) -> int:
        return 1

    def _view(self, kind: str, horizon: int) -> Any:
        from safebandits.classification.problem import PoolInfo

        return PoolInfo(features=self.features, q=float(self.q))

    def simulate(self, *, eta: Any, name: str = "declared") -> SimulatedProblem:
        """The truth: ``P(Y = 1 | x)`` per record (0/1 labels for a labelled data set)."""
        return SimulatedProblem(problem=self, truth={"eta": eta}, name=name)

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        from safebandits.classification.data import Pool
        from safebandits.classification.problem import PoolInstance

        n = self.features.shape[0]
        eta = check_array(truth.get("eta"), "eta", shape=(n,), owner="PoolProblem.simulate")
        if np.any(eta < 0) or np.any(eta > 1):
            raise ConfigError("PoolProblem.simulate: eta must lie in [0, 1].")
        names = self.feature_names or tuple(f"x{i}" for i in range(self.features.shape[1]))
        return PoolInstance(pool=Pool(self.features, eta, names, name), q=float(self.q))


# ------------------------------------------------------------------------------------------------
# declaration + truth
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SimulatedProblem:
    """A declaration with its ground truth: builds the instance of each info kind.

    ``instance(kind)`` returns the library's instance class of that kind (``LinearCBAIInstance``,
    ``TransductiveInstance``, ``SafeLinearInstance``, ``StagewiseInstance``, ``KernelInstance``,
    ``FunctionClassInstance``, ``PoolInstance``) with the oracle and ``environment(rng)`` that
    :func:`safebandits.run`, :func:`safebandits.run_regret` and the runner use; its ``public_info()`` is
    the declaration's view (a learner never sees what the truth would add, e.g. Safe-LUCB's safety gap).
    """

    problem: Problem
    truth: dict[str, Any]
    name: str = "declared"

    def __post_init__(self) -> None:
        # Fail now on a bad truth (the first kind that builds checks it).
        kinds = self.problem.kinds
        if kinds:
            self.instance(kinds[0])

    def instance(self, kind: str, *, horizon: int | None = None) -> Any:
        reason = self.problem.why_not(kind)
        if reason is not None:
            raise ConfigError(f"{type(self.problem).__name__} cannot be simulated as {kind!r}: {reason}.")
        h = self.problem._horizon(horizon)
        inst = self.problem._instance(kind, self.truth, h, self.name)  # type: ignore[attr-defined]
        # Learners see the declaration's view, never what the instance would derive from the truth.
        view = self.problem._view(kind, h)  # type: ignore[attr-defined]
        return _Proxy(inst, public_info=lambda: view)

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.problem.kinds
