"""What every problem declaration shares: the info kinds, the feedback model, the tolerance, the base
class :class:`Problem` and :class:`SimulatedProblem` (a declaration with its ground truth).

The settings' declarations build on it, one module each (:mod:`.linear`, :mod:`.safe_linear`,
:mod:`.kernel`, :mod:`.function_class`, :mod:`.pool`); :mod:`safebandits.problems.declare` is the public
face that names them all.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_int,
    check_literal_fields,
    check_positive,
)
from safebandits.exceptions import ConfigError, DefaultToleranceWarning, Fix, user_stacklevel
from safebandits.problems.noise import BernoulliNoise, BinaryNoise, GaussianNoise, NoiseModel
from safebandits.types import FloatArray

__all__ = [
    "DEFAULT_EPSILON_FRACTION",
    "FEEDBACK_KINDS",
    "INFO_KINDS",
    "TOLERANCE_KINDS",
    "Feedback",
    "Problem",
    "SimulatedProblem",
    "Tolerance",
    "info_kind",
    "kernel_feedback",
    "seeded_kernel_instance",
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
    "dose": "DoseInfo: ordered doses, bounded toxicity outcomes, monotone toxicity and a declared step bound",
    "conservative": "ConservativeInfo: K arms, a default arm (mean known or not) and a tolerance alpha",
    "conservative-linear": "ConservativeLinearInfo: contexts of K linear actions, a baseline policy, alpha",
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
    if name == "DoseInfo":
        return "dose"
    if name == "ConservativeInfo":
        return "conservative"
    if name == "ConservativeLinearInfo":
        return "conservative-linear"
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

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """Where a simulation truth breaks the bounds this declaration states (empty: nowhere), one line
        each naming the field, the value and the bound (``safebandits run FILE.toml`` refuses such a
        ``[truth]`` before anything runs). The base class states no bounds."""
        return []

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
        return check_int(h, "horizon", low=1, high=MAX_BUDGET, owner=type(self).__name__)

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
    #: Where the truth breaks the declared bounds, kept on purpose (:meth:`Problem.truth_violations`; an
    #: experiment file's ``truth_outside_bounds = "flag"``): every run raises the "assumption contradicted"
    #: flag at round 0 (:mod:`safebandits.experiments.watch`).
    flags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Built once per kind and horizon: an instance checks the truth (a kernel matrix's check is an
        # eigen-decomposition), and every learner of the kind reads the same one.
        object.__setattr__(self, "_instances", {})
        # Fail now on a bad truth (the first kind that builds checks it).
        kinds = self.problem.kinds
        if kinds:
            self.instance(kinds[0])

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_instances"}  # (rebuilt where unpickled)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_instances", {})

    def instance(self, kind: str, *, horizon: int | None = None) -> Any:
        reason = self.problem.why_not(kind)
        if reason is not None:
            raise ConfigError(f"{type(self.problem).__name__} cannot be simulated as {kind!r}: {reason}.")
        h = self.problem._horizon(horizon)
        built = self._instances.get((kind, h))  # type: ignore[attr-defined]
        if built is None:
            built = self._build(kind, h)
            self._instances[(kind, h)] = built  # type: ignore[attr-defined]
        return built

    def _build(self, kind: str, h: int) -> Any:
        inst = self.problem._instance(kind, self.truth, h, self.name)  # type: ignore[attr-defined]
        # Learners see the declaration's view, never what the instance would derive from the truth. The
        # flags mark the instance as a declaration's: the assumption watcher checks its runs.
        view = self.problem._view(kind, h)  # type: ignore[attr-defined]
        return _Proxy(inst, public_info=lambda: view, assumption_flags=tuple(self.flags))

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.problem.kinds
