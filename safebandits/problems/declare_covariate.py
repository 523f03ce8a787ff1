"""Dose finding and its kin: K actions, each with a covariate (a dose, a setting, a position), a known safe
action, and a limit on the mean of a cost outcome (toxicity) -- declared for the per-round-safe learners.

A :class:`CovariateProblem` holds what a trial designer knows before the first patient: the covariate of
each action (``covariates``, one row per action), the limit ``threshold`` on the cost mean, the action known
to be safe (``safe_action``), the feedback (Bernoulli efficacy and toxicity outcomes by default) and the
smoothness model that links the actions: a kernel on the covariates with bounds on the RKHS norms of the
efficacy and toxicity curves. It holds no ground truth: :meth:`CovariateProblem.simulate` adds the true
means per action.

Views (``problem.kinds``):

* ``"kernel"`` (:class:`~safebandits.problems.kernel.KernelInfo`): reward ``f`` = efficacy mean, constraint
  ``g`` = toxicity mean - threshold, the kernel on the covariates, the bounds ``B`` and ``G``, the
  sub-Gaussian proxy of the feedback, the safe action as the safe seed. The per-round-safe learners
  **StageOpt** and **SGP-UCB** (safe in every round with probability ``1 - delta`` when ``||g||_k <= G``
  and the noise bound hold) and the soft-constraint **CKB** read it.
* ``"k-armed"`` (:class:`~safebandits.problems.stagewise.StagewiseInfo` on the simplex): the K actions as
  unstructured arms (the covariates unused), for the in-expectation learners **OPB** and **OPLB**.

Not offered, with the reason in :meth:`CovariateProblem.why_not`: Safe-LUCB and GSLUCB (their constraint
is read off the reward parameter; efficacy and toxicity are separate unknown curves here), the linear
stage-wise learners LC-LUCB and Safe-LTS (a linear model in features: declare a
:class:`~safebandits.problems.declare.LinearProblem` with ``arms`` = the features), the identification
learners (a :class:`~safebandits.problems.declare.LinearProblem` too).

Defaults (``docs/decisions/engine.md``, "Covariate declarations"): the kernel is squared-exponential with
lengthscale :data:`DEFAULT_LENGTHSCALE` (0.5) in units of each covariate's range (covariates are scaled to
``[0, 1]`` per column first), variance 1 (``k(x, x) <= 1``, Assumption 2 of Zhou & Ji). Without a declared
``reward_bound`` / ``constraint_bound`` the bound is the largest RKHS norm any function with the feedback's
range of means can have on these points, ``sqrt(K / lambda_min(Gram)) * M``: always valid, hence no
structure -- the per-round-safe learners then can certify little beyond the safe action. A bound of one's
own (the belief that toxicity is smooth in the dose) lets them expand; it is an assumption of their
guarantee, and :meth:`CovariateProblem.simulate` warns (:class:`AssumptionWarning`) when the simulated truth
breaks it.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from safebandits._cost import Cost, check_cost, eigen_cost, kernel_matrix_cost, solve_cost
from safebandits._limits import MAX_BUDGET
from safebandits._validation import (
    check_array,
    check_choice,
    check_int,
    check_interval,
    check_positive,
    ragged_row,
)
from safebandits.exceptions import ConfigError, user_stacklevel
from safebandits.problems.declare import (
    INFO_KINDS,
    Feedback,
    Problem,
    SimulatedProblem,
    seeded_kernel_instance,
)
from safebandits.problems.dose import (
    checked_structure,
    dose_info,
    dose_view_reason,
    step_values,
    structure_violations,
)
from safebandits.types import FloatArray

__all__ = ["DEFAULT_LENGTHSCALE", "AssumptionWarning", "CovariateProblem"]

#: Default kernel lengthscale, in units of each covariate's range (covariates are scaled to [0, 1]).
DEFAULT_LENGTHSCALE = 0.5

#: Kernels a covariate declaration takes (variance 1, on the covariates scaled to [0, 1]).
CovariateKernel = Literal["se", "matern"]

#: The info kinds a covariate declaration offers, best first.
COVARIATE_KINDS = ("kernel", "k-armed", "dose")


class AssumptionWarning(UserWarning):
    """A simulated truth breaks an assumption the learners' guarantees rest on (e.g. an RKHS norm bound)."""


def _owner_fail(name: str, expected: str, got: Any) -> ConfigError:
    return ConfigError(f"The {name!r} parameter of CovariateProblem must be {expected}. Got {got!r} instead.")


@dataclass(frozen=True, kw_only=True)
class CovariateProblem(Problem):
    """K actions with a covariate each, a known safe action and a limit on the mean cost (dose finding).

    Action ``i`` (row ``covariates[i]``) has an efficacy (reward) mean ``f_i`` and a toxicity (cost) mean
    ``c_i``; it is *above the limit* iff ``c_i > threshold``. ``f`` and ``c`` are unknown; they are smooth
    in the covariate in the sense of the kernel (RKHS norms at most ``reward_bound`` and
    ``constraint_bound``).

    Parameters
    ----------
    covariates : array-like of shape (K,) or (K, p)
        The covariate(s) of each action (e.g. the dose levels). Scaled to ``[0, 1]`` per column for the
        kernel (a constant column is left at 0).
    threshold : float
        The limit on the cost mean (e.g. the highest acceptable toxicity probability).
    safe_action : int
        The action known to be below the limit (e.g. the lowest dose).
    safe_reward, safe_cost : float, optional
        Known efficacy and toxicity means of the safe action (``safe_cost < threshold``). ``safe_cost``
        gives the default Slater constant; OPB and OPLB use both when given (else they estimate them).
    slater : float in (0, 1], optional
        A lower bound on ``threshold - c_safe`` told to the kernel learners (default
        ``min(1, threshold - safe_cost)``; one of the two is needed for the kernel view).
    feedback : Feedback, str or mapping, default "bernoulli"
        Outcomes of efficacy and toxicity: Bernoulli ``{0, 1}`` (means in ``[0, 1]``), binary
        ``{-1, +1}``, or (sub-)Gaussian. Bounded outcomes are sub-Gaussian with proxy ``(b - a) / 2``
        (1/2 for Bernoulli), the noise bound told to the learners.
    kernel : mapping, optional
        ``{"name": "se" | "matern", "lengthscale": l, "nu": ...}`` on the scaled covariates, ``l`` in
        units of the covariates' range (default ``{"name": "se", "lengthscale": 0.5}``); variance 1.
    reward_bound, constraint_bound : float, optional
        ``B >= ||f||_k`` and ``G >= ||c - threshold||_k`` (and the sup norms): the assumptions of the
        kernel learners' guarantees; StageOpt's Lipschitz constant is ``G`` in the kernel metric
        (``|g(x) - g(x')| <= ||g||_k d_k(x, x')``), so no separate constant is needed. Default: the
        worst case ``sqrt(K / lambda_min) * M`` over all means in the feedback's range (module docstring).
    lipschitz : float, optional
        ``L``: a bound on ``|c(x) - c(x')| / ||x - x'||`` (toxicity change per unit of the covariates as
        written, e.g. per mg). StageOpt then certifies an action ``x'`` from a safe ``x`` when the upper
        confidence bound of ``c(x) - threshold`` plus ``L ||x - x'||`` is at most 0. Default: none, and
        StageOpt uses ``G`` in the kernel metric (implied by the RKHS bound).
    mean_bound : float, default 1.0
        ``M``: bound on ``|f|`` and ``|c|`` for (sub-)Gaussian feedback (bounded feedback: its range).
    monotone_cost : bool, default False
        Toxicity is non-decreasing in the dose (one covariate, listed in increasing order).
    max_increase : float or list of float, optional
        The largest toxicity increase per dose step (one value, or one per step ``j -> j + 1``): what a
        clinician states as prior knowledge. With it the declaration offers the ``"dose"`` view
        (:class:`~safebandits.problems.dose.DoseInfo`) to the dose-escalation learner, which certifies a
        dose from the data of the doses below it plus these steps (``docs/decisions/bounds.md``).
    horizon : int, default 10_000
        Rounds (patients) ``T``.

    Examples
    --------
    >>> p = CovariateProblem(covariates=[10, 20, 40, 80], threshold=0.3, safe_action=0, safe_cost=0.05)
    >>> p.kinds
    ('kernel', 'k-armed')
    >>> round(p.view("kernel").slater, 3), p.view("kernel").noise_bound
    (0.25, 0.5)
    """

    setting = "covariate"

    covariates: Any
    threshold: float
    safe_action: int
    safe_reward: float | None = None
    safe_cost: float | None = None
    slater: float | None = None
    feedback: Any = "bernoulli"
    kernel: Any = None
    reward_bound: float | None = None
    constraint_bound: float | None = None
    lipschitz: float | None = None
    mean_bound: float = 1.0
    monotone_cost: bool = False
    max_increase: Any = None
    horizon: int = 10_000

    def __post_init__(self) -> None:
        owner = "CovariateProblem"
        ragged = ragged_row(self.covariates)
        if ragged is not None:
            raise ConfigError(
                f"The 'covariates' parameter of CovariateProblem must be rows of one length: {ragged}."
            )
        raw = np.asarray(self.covariates, dtype=object)
        if raw.ndim == 1:
            raw = raw[:, None]
        cov = check_array(raw, "covariates", ndim=2, min_rows=1, owner=owner)
        k = cov.shape[0]
        object.__setattr__(self, "covariates", cov)
        object.__setattr__(self, "threshold", check_interval(self.threshold, "threshold", owner=owner))
        object.__setattr__(
            self, "safe_action", check_int(self.safe_action, "safe_action", low=0, high=k - 1, owner=owner)
        )
        object.__setattr__(self, "feedback", Feedback.coerce(self.feedback, owner))
        object.__setattr__(self, "mean_bound", check_positive(self.mean_bound, "mean_bound", owner=owner))
        low, high = self._mean_range()
        if self.safe_reward is not None:
            object.__setattr__(
                self,
                "safe_reward",
                check_interval(
                    self.safe_reward, "safe_reward", low=low, high=high, closed="both", owner=owner
                ),
            )
        if self.safe_cost is not None:
            c0 = check_interval(self.safe_cost, "safe_cost", low=low, high=high, closed="both", owner=owner)
            if not c0 < self.threshold:
                raise _owner_fail(
                    "safe_cost", f"below the threshold {self.threshold:g} (the safe action)", c0
                )
            object.__setattr__(self, "safe_cost", c0)
        if self.slater is not None:
            check_interval(self.slater, "slater", low=0.0, high=1.0, closed="right", owner=owner)
        for attr in ("reward_bound", "constraint_bound", "lipschitz"):
            if getattr(self, attr) is not None:
                object.__setattr__(self, attr, check_positive(getattr(self, attr), attr, owner=owner))
        object.__setattr__(self, "kernel", self._kernel_spec(self.kernel))
        self._check_structure(owner)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        check_cost(  # (before the K x K matrix)
            self._cost(),
            f"A CovariateProblem of {k:,} actions",
            work_hint="or declare reward_bound and constraint_bound (no eigen-decomposition then)"
            if self.reward_bound is None or self.constraint_bound is None
            else "",
        )
        object.__setattr__(self, "_gram", self._make_gram())
        object.__setattr__(self, "_lam_min", None)
        object.__setattr__(self, "_norms", {})

    def _check_structure(self, owner: str) -> None:
        """``monotone_cost`` and ``max_increase`` (:func:`~safebandits.problems.dose.checked_structure`)."""
        mono, steps = checked_structure(
            self.monotone_cost, self.max_increase, self.covariates, self._mean_range()
        )
        object.__setattr__(self, "monotone_cost", mono)
        object.__setattr__(self, "max_increase", steps)

    @property
    def steps(self) -> tuple[float, ...] | None:
        """``max_increase`` per dose step (``K - 1`` values), or ``None`` when not declared."""
        return step_values(self.max_increase, self.n_actions, self._mean_range())

    def _cost(self) -> Cost:
        """The estimated memory and work of this declaration: its kernel matrix, and the eigen-decomposition
        of the default RKHS bounds (when one is not declared)."""
        k, p = self.covariates.shape
        cost = kernel_matrix_cost(k, p)
        if self.reward_bound is None or self.constraint_bound is None:
            cost = cost + eigen_cost(
                k, "the default reward_bound / constraint_bound (an eigen-decomposition of the kernel matrix)"
            )
        return cost

    # -- the model --------------------------------------------------------------------------------
    @staticmethod
    def _kernel_spec(spec: Any) -> dict[str, Any]:
        if spec is None:
            return {"name": "se", "lengthscale": DEFAULT_LENGTHSCALE}
        if not isinstance(spec, Mapping):
            raise _owner_fail("kernel", "a mapping {'name': 'se' | 'matern', 'lengthscale': ...}", spec)
        out = dict(spec)
        name = out.setdefault("name", "se")
        check_choice(name, "kernel.name", CovariateKernel, owner="CovariateProblem")
        allowed = {"name", "lengthscale"} | ({"nu"} if name == "matern" else set())
        unknown = sorted(set(out) - allowed)
        if unknown:
            raise _owner_fail("kernel", f"a {name!r} kernel with keys among {sorted(allowed)}", unknown)
        out["lengthscale"] = check_positive(
            out.get("lengthscale", DEFAULT_LENGTHSCALE), "kernel.lengthscale", owner="CovariateProblem"
        )
        return out

    @property
    def n_actions(self) -> int:
        return int(self.covariates.shape[0])

    @property
    def points(self) -> FloatArray:
        """The covariates scaled to ``[0, 1]`` per column (a constant column: 0)."""
        cov = self.covariates
        span = np.ptp(cov, axis=0)
        return (cov - cov.min(axis=0)) / np.where(span > 0, span, 1.0)

    def _make_gram(self) -> FloatArray:
        from safebandits.estimators.gp import matern_kernel, se_kernel

        spec = dict(self.kernel)
        name = spec.pop("name")
        fn = se_kernel if name == "se" else matern_kernel
        return np.asarray(fn(self.points, **spec), dtype=np.float64)

    @property
    def gram(self) -> FloatArray:
        """The kernel matrix on the actions (read-only copy)."""
        return self._gram.copy()  # type: ignore[attr-defined]

    def _mean_range(self) -> tuple[float, float]:
        if self.feedback.kind == "bernoulli":
            return 0.0, 1.0
        if self.feedback.kind == "binary":
            return -1.0, 1.0
        return -float(self.mean_bound), float(self.mean_bound)

    def worst_case_norm(self, sup: float) -> float:
        """``sqrt(K / lambda_min(Gram)) * sup``: a bound on ``||h||_k`` for every ``h`` with ``|h| <= sup``
        on the actions (``h^T Gram^-1 h <= |h|^2 / lambda_min``)."""
        lam = self._lam_min  # type: ignore[attr-defined]
        if lam is None:  # (once: the bounds are read many times)
            lam = float(np.linalg.eigvalsh(self._gram).min())  # type: ignore[attr-defined]
            object.__setattr__(self, "_lam_min", lam)
        if lam <= 1e-12:
            return math.inf
        return math.sqrt(self.n_actions / lam) * sup

    def _sups(self) -> tuple[float, float]:
        low, high = self._mean_range()
        tau = float(self.threshold)
        return max(abs(low), abs(high)), max(abs(low - tau), abs(high - tau))

    @property
    def told_reward_bound(self) -> float:
        """``B``: the declared ``reward_bound`` or the worst case (module docstring)."""
        if self.reward_bound is not None:
            return float(self.reward_bound)
        return self.worst_case_norm(self._sups()[0])

    @property
    def told_constraint_bound(self) -> float:
        """``G``: the declared ``constraint_bound`` or the worst case (module docstring)."""
        if self.constraint_bound is not None:
            return float(self.constraint_bound)
        return self.worst_case_norm(self._sups()[1])

    def told_slater(self) -> float | None:
        if self.slater is not None:
            return float(self.slater)
        if self.safe_cost is not None:
            return float(min(1.0, self.threshold - self.safe_cost))
        return None

    def rkhs_norm(self, values: Any) -> float:
        """``||h||_k`` of the smallest-norm function with these values on the actions,
        ``sqrt(h^T K^-1 h)``."""
        return self.rkhs_norms(values)[0]

    def rkhs_norms(self, *values: Any) -> tuple[float, ...]:
        """:meth:`rkhs_norm` of each vector, with one factorisation of the kernel matrix (its cost checked
        first: :class:`~safebandits.exceptions.TooLargeError` above the work limit) and remembered: a
        truth is checked once, however many learners read it."""
        from safebandits.estimators.gp import rkhs_norms

        h = np.column_stack([np.asarray(v, dtype=np.float64) for v in values])
        key = hashlib.sha256(np.ascontiguousarray(h).tobytes()).hexdigest() + str(h.shape)
        cache = self._norms  # type: ignore[attr-defined]
        if key not in cache:
            check_cost(
                solve_cost(self.n_actions, "the truth's RKHS norms: a least-squares solve"),
                f"Checking a truth against this CovariateProblem of {self.n_actions:,} actions",
            )
            cache.clear()  # (one truth at a time)
            cache[key] = rkhs_norms(self._gram, *values)  # type: ignore[attr-defined]
        return cache[key]

    def statement(self) -> list[str]:
        """The assumptions the learners are told, in words (for reports): feedback, kernel, bounds."""
        spec = self.kernel
        ks = f"{spec['name'].upper()} kernel, lengthscale {spec['lengthscale']:g} x the covariate range"
        lines = [
            f"{self.n_actions} actions; limit {self.threshold:g} on the cost mean; action {self.safe_action} "
            "known to be below it",
            self.feedback.describe(),
            ks + (" (default)" if spec == {"name": "se", "lengthscale": DEFAULT_LENGTHSCALE} else ""),
        ]
        for name, told, given in (
            ("B >= ||efficacy||_k", self.told_reward_bound, self.reward_bound),
            ("G >= ||toxicity - limit||_k", self.told_constraint_bound, self.constraint_bound),
        ):
            lines.append(
                f"{name} = {told:.4g}"
                + (" (your value)" if given is not None else " (default: the worst case over all means; no "
                   "smoothness assumed, so the per-round-safe learners can certify little beyond the safe "
                   "action)")
            )  # fmt: skip
        if self.lipschitz is not None:
            lines.append(
                f"L >= |toxicity(x) - toxicity(x')| / ||x - x'|| = {self.lipschitz:g} per unit of the "
                "covariates (your value; StageOpt's safe expansion)"
            )
        if self.monotone_cost or self.max_increase is not None:
            told = "not declared" if self.max_increase is None else f"{self.max_increase}"
            mono = "non-decreasing" if self.monotone_cost else "not declared monotone"
            lines.append(
                f"toxicity {mono} in the dose; "
                f"largest increase per dose step {told} (your values; the dose-escalation learner's "
                "certification)"
            )
        slater = self.told_slater()
        if slater is not None:
            why = (
                "your value" if self.slater is not None else "limit minus the safe action's cost, capped at 1"
            )
            lines.append(f"Slater constant {slater:.4g} ({why})")
        return lines

    # -- views ------------------------------------------------------------------------------------
    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in COVARIATE_KINDS if self.why_not(k) is None)

    def why_not(self, kind: str) -> str | None:
        if kind not in INFO_KINDS:
            return f"unknown info kind {kind!r}; kinds: {', '.join(INFO_KINDS)}"
        if kind == "kernel":
            if self.told_slater() is None:
                return "kernel learners need the Slater constant: give slater or safe_cost"
            if not math.isfinite(self.told_constraint_bound) or not math.isfinite(self.told_reward_bound):
                return (
                    "the kernel matrix is singular (two actions with the same covariates?), so the default "
                    "RKHS bounds are infinite: give reward_bound and constraint_bound"
                )
            return None
        if kind == "k-armed":
            return None
        if kind == "dose":
            return dose_view_reason(self.covariates, self.feedback.kind, self.max_increase)
        if kind in ("safe-linear", "safe-linear-arms"):
            return (
                "Safe-LUCB and GSLUCB read the constraint off the reward parameter (cost = theta^T M x); "
                "here efficacy and toxicity are separate unknown curves"
            )
        if kind == "stagewise":
            return (
                "the linear stage-wise learners (LC-LUCB, Safe-LTS) need efficacy and toxicity linear in "
                "features: declare a LinearProblem with arms = the features and safe_arm"
            )
        if kind in ("cbai", "transductive"):
            return "identification learners read a LinearProblem (arms = the features, or the identity)"
        return f"the {kind!r} kind needs another declaration"

    def _view(self, kind: str, horizon: int) -> Any:
        r = self.feedback.noise_bound
        if kind == "dose":
            return dose_info(self, horizon)
        if kind == "kernel":
            from safebandits.problems.kernel import KernelInfo

            return KernelInfo(
                kernel=self.gram,
                constraint_kernel=self.gram,
                points=self.covariates.copy(),
                reward_bound=self.told_reward_bound,
                constraint_bound=self.told_constraint_bound,
                noise_bound=r,
                constraint_noise_bound=r,
                slater=float(self.told_slater()),  # type: ignore[arg-type]
                horizon=horizon,
                safe_seed=(self.safe_action,),
                lipschitz=self.lipschitz,
            )
        from safebandits.problems.stagewise import StagewiseInfo

        k = self.n_actions
        eye = np.eye(k)
        return StagewiseInfo(
            arms=eye,
            safe_action=eye[self.safe_action].copy(),
            threshold=np.array([float(self.threshold)]),
            safe_reward=self.safe_reward,
            safe_cost=None if self.safe_cost is None else np.array([float(self.safe_cost)]),
            action_set="simplex",
            horizon=horizon,
            noise_bound=r,
            param_norm_bound=max(1.0, self._sups()[0] * math.sqrt(k)),
            arm_norm_bound=1.0,
            safe_arm=self.safe_action,
            noise_kind=self.feedback.kind,
            mean_bound=self._sups()[0],
            declared=True,
        )

    # -- truth ------------------------------------------------------------------------------------
    def simulate(
        self,
        *,
        reward: Any = None,
        cost: Any = None,
        efficacy: Any = None,
        toxicity: Any = None,
        sigma: float | None = None,
        name: str = "declared",
    ) -> SimulatedProblem:
        """Add the true means per action: ``reward`` (or ``efficacy``) and ``cost`` (or ``toxicity``).

        ``sigma`` overrides the noise scale of (sub-)Gaussian feedback in simulation.
        """
        truth = {"reward": reward, "cost": cost, "efficacy": efficacy, "toxicity": toxicity, "sigma": sigma}
        return SimulatedProblem(
            problem=self, truth={k: v for k, v in truth.items() if v is not None}, name=name
        )

    def _truth(self, truth: Mapping[str, Any]) -> tuple[FloatArray, FloatArray]:
        owner = "CovariateProblem.simulate"
        k = self.n_actions
        out = []
        for key, alias in (("reward", "efficacy"), ("cost", "toxicity")):
            given = [n for n in (key, alias) if truth.get(n) is not None]
            if len(given) != 1:
                raise ConfigError(
                    f"{owner} needs the true {key} means per action ({key!r} or {alias!r}, {k} values); "
                    f"got {'both' if given else 'neither'}."
                )
            out.append(check_array(truth[given[0]], given[0], shape=(k,), owner=owner))
        f, c = out
        low, high = self._mean_range()
        for name, v in (("reward", f), ("cost", c)):
            if np.any(v < low - 1e-12) or np.any(v > high + 1e-12):
                raise ConfigError(
                    f"{owner}: {self.feedback.kind} feedback needs every {name} mean in [{low:g}, {high:g}]; "
                    f"got values in [{float(v.min()):.4g}, {float(v.max()):.4g}]."
                )
        s = self.safe_action
        if not c[s] < self.threshold:
            raise ConfigError(
                f"{owner}: the declared safe action {s} has cost {c[s]:.4g}, not below the threshold "
                f"{self.threshold:g}."
            )
        for name, declared, true in (
            ("safe_cost", self.safe_cost, c[s]),
            ("safe_reward", self.safe_reward, f[s]),
        ):
            if declared is not None and not math.isclose(declared, float(true), abs_tol=1e-9):
                raise ConfigError(f"{owner}: the declared {name} {declared} differs from the truth's {true}.")
        slater = self.told_slater()
        if slater is not None and self.threshold - c[s] < slater - 1e-12:
            raise ConfigError(
                f"{owner}: the declared slater {slater:g} exceeds the truth's margin at the safe action, "
                f"threshold - cost = {self.threshold - c[s]:.4g}."
            )
        return f, c

    def check_assumptions(self, truth: Mapping[str, Any]) -> list[str]:
        """The kernel learners' assumptions this truth breaks (empty: none), in words."""
        f, c = self._truth(truth)
        out = []
        f_norm, c_norm = self.rkhs_norms(f, c - self.threshold)
        for what, norm, bound, attr in (
            ("efficacy", f_norm, self.told_reward_bound, "reward_bound"),
            ("toxicity - limit", c_norm, self.told_constraint_bound, "constraint_bound"),
        ):
            if norm > bound * (1 + 1e-9):
                out.append(
                    f"the simulated {what} has RKHS norm {norm:.4g} > {attr} = {bound:.4g}: the kernel "
                    "learners' guarantees (per-round safety of StageOpt and SGP-UCB) do not hold for this "
                    "truth"
                )
        if self.lipschitz is not None:
            true_l = self.lipschitz_of(c)
            if true_l > self.lipschitz * (1 + 1e-9):
                out.append(
                    f"the simulated toxicity changes by up to {true_l:.4g} per unit of the covariates > "
                    f"lipschitz = {self.lipschitz:g}: StageOpt's per-round safety does not hold for this "
                    "truth"
                )
        if self.monotone_cost or self.max_increase is not None:
            out += structure_violations(c, self.monotone_cost, self.steps)
        return out

    def truth_violations(self, truth: Mapping[str, Any]) -> list[str]:
        """Where ``truth`` breaks the declared bounds: means outside the feedback's range are refused by
        :meth:`simulate` itself; here the RKHS and Lipschitz bounds (:meth:`check_assumptions`)."""
        return self.check_assumptions(truth)

    def lipschitz_of(self, values: Any) -> float:
        """``max |h_i - h_j| / ||x_i - x_j||`` over pairs of actions with distinct covariates."""
        h = np.asarray(values, dtype=np.float64)
        x = self.covariates
        dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        diff = np.abs(h[:, None] - h[None, :])
        mask = dist > 0
        return float(np.max(diff[mask] / dist[mask])) if mask.any() else 0.0

    def _instance(self, kind: str, truth: Mapping[str, Any], horizon: int, name: str) -> Any:
        f, c = self._truth(truth)
        sigma = truth.get("sigma")
        fb = self.feedback if sigma is None else Feedback(self.feedback.kind, sigma)
        tau = float(self.threshold)
        if kind == "kernel":
            check_cost(  # (the instance checks its kernel matrix: an eigen-decomposition)
                eigen_cost(self.n_actions, "the kernel matrix's check (an eigen-decomposition)"),
                f"Simulating this CovariateProblem of {self.n_actions:,} actions",
            )
            for text in self.check_assumptions(truth):
                warnings.warn(AssumptionWarning(f"CovariateProblem: {text}."), stacklevel=user_stacklevel())
            info = self._view("kernel", horizon)
            return seeded_kernel_instance(info, f, c - tau, fb, tau, info.points, self.safe_action, name)
        from safebandits.problems.stagewise import StagewiseInstance

        info = self._view("k-armed", horizon)  # (the "dose" view plays the same K arms, one per patient)
        if kind == "dose":
            for text in structure_violations(c, self.monotone_cost, self.steps):
                warnings.warn(AssumptionWarning(f"CovariateProblem: {text}."), stacklevel=user_stacklevel())
        eye = np.eye(self.n_actions)
        return StagewiseInstance(
            arms=eye,
            safe_action=eye[self.safe_action].copy(),
            reward_param=f,
            cost_params=c[None, :],
            threshold=np.array([tau]),
            noise=fb.model(),
            action_set="simplex",
            horizon=horizon,
            noise_bound=info.noise_bound,
            param_norm_bound=info.param_norm_bound,
            arm_norm_bound=1.0,
            known_safe_values=self.safe_cost is not None and self.safe_reward is not None,
            name=name,
        )

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if out.get("covariates") is not None and self.covariates.shape[1] == 1:
            out["covariates"] = self.covariates[:, 0].tolist()
        return out
