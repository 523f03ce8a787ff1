"""Kernelized bandits with a soft constraint on a continuous domain: a box in ``R^d``.

The setting of :mod:`safebandits.problems.kernel` (Zhou & Ji, NeurIPS 2022, Section 2) with the domain
``X = [lower_1, upper_1] x ... x [lower_d, upper_d]`` instead of a finite point set: a decision is a
point of the box (``Decision(point=x)``), the feedback is ``r = f(x) + eta``, ``c = g(x) + eta~``.

* :class:`Box`: the validated bounds (finite, ``lower < upper``, ``1 <= d <=`` :data:`MAX_BOX_DIMENSION`).
* :class:`RKHSFunction`: a ground truth in the kernel's RKHS, ``h(x) = sum_i w_i k(x, c_i) + offset``
  (its RKHS norm ``sqrt(w^T K_cc w)`` is known; the offset is outside the RKHS of a stationary kernel
  and is reported apart), or any vectorised callable ``(m, d) -> (m,)`` through the Python API.
* :class:`BoxKernelInstance`: the truth and its oracles, computed once on a deterministic design
  (a scrambled Sobol' sequence with a fixed seed, :data:`ORACLE_POINTS` points, refined by SLSQP
  from the best feasible design points): ``x* = argmax_{g <= 0} f``, the optimal policy's value (a
  linear programme on the design and the refined points) and the Slater constant ``-min g``.
* :class:`BoxKernelEnvironment`: the coupled noisy feedback at a played point.

Link to the regret tracker (:class:`~safebandits.experiments.regret_loop.RegretTracker`): a played point
``x`` is scored through the feature vector ``(f(x), g(x))`` with ``reward_param = (1, 0)``,
``cost_params = [(0, 1)]`` and ``threshold = 0``, so the tracker's regret is ``f(x*) - f(x_t)``, its
violations the rounds with ``g(x_t) > 0`` and ``positive_cost`` the sum of ``[g(x_t)]_+``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from safebandits._limits import MAX_BOX_DIMENSION, MAX_BUDGET
from safebandits._validation import check_array, check_int, check_interval, check_positive
from safebandits.estimators.gp import PointKernel
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.environment import VariateStream
from safebandits.problems.kernel import BoundedFeedback, GaussianFeedback, KernelInfo, told_bounds
from safebandits.problems.stagewise import TOL, solve_policy_lp
from safebandits.types import Decision, FloatArray, Observation

__all__ = [
    "ORACLE_POINTS",
    "Box",
    "BoxKernelEnvironment",
    "BoxKernelInstance",
    "RKHSFunction",
    "box_kernel",
]

#: Points of the deterministic design the oracles search (before the local refinement).
ORACLE_POINTS = 4096


@dataclass(frozen=True, slots=True, eq=False)
class Box:
    """The box ``[lower, upper]`` of ``R^d``: finite bounds, ``lower < upper`` in every dimension,
    ``1 <= d <= MAX_BOX_DIMENSION``.

    Parameters
    ----------
    lower, upper : array-like of shape (d,)
    """

    lower: Any
    upper: Any

    def __post_init__(self) -> None:
        owner = "Box"
        lo = check_array(self.lower, "lower", ndim=1, owner=owner)
        hi = check_array(self.upper, "upper", ndim=1, owner=owner)
        if not 1 <= lo.shape[0] <= MAX_BOX_DIMENSION:
            raise ConfigError(
                f"The 'lower' parameter of {owner} must have between 1 and {MAX_BOX_DIMENSION} entries (the "
                f"box's dimension). Got {lo.shape[0]}."
            )
        if hi.shape != lo.shape:
            raise ConfigError(
                f"The 'upper' parameter of {owner} must have {lo.shape[0]} entries, as 'lower'. "
                f"Got {hi.shape[0]}."
            )
        bad = np.flatnonzero(~(lo < hi))
        if bad.size:
            j = int(bad[0])
            raise ConfigError(
                f"Box: every lower bound must be below its upper bound. Dimension {j}: lower {lo[j]:g} >= "
                f"upper {hi[j]:g}."
            )
        if not np.all(np.isfinite(hi - lo)):
            raise ConfigError("Box: the widths upper - lower must be finite numbers.")
        lo.setflags(write=False)
        hi.setflags(write=False)
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Box):
            return NotImplemented
        return bool(np.array_equal(self.lower, other.lower) and np.array_equal(self.upper, other.upper))

    def __hash__(self) -> int:
        return hash((self.lower.tobytes(), self.upper.tobytes()))

    @classmethod
    def coerce(cls, value: Any, owner: str = "") -> Box:
        """A :class:`Box`, or one from ``{"lower": [...], "upper": [...]}``."""
        if isinstance(value, Box):
            return value
        if isinstance(value, Mapping):
            unknown = set(value) - {"lower", "upper"}
            if unknown or not {"lower", "upper"} <= set(value):
                raise ConfigError(
                    f"{owner or 'Box'}: a box is a table with exactly the keys 'lower' and 'upper'. Got keys "
                    f"{sorted(value)}."
                )
            return cls(value["lower"], value["upper"])
        raise ConfigError(f"{owner or 'Box'}: a box is {{lower = [...], upper = [...]}}. Got {value!r}.")

    @property
    def dim(self) -> int:
        return int(self.lower.shape[0])

    @property
    def widths(self) -> FloatArray:
        return self.upper - self.lower

    @property
    def diameter(self) -> float:
        return float(np.linalg.norm(self.widths))

    @property
    def centre(self) -> FloatArray:
        return 0.5 * (self.lower + self.upper)

    def contains(self, x: FloatArray, tol: float = 1e-9) -> bool:
        """Whether every point (row) of ``x`` lies in the box (up to ``tol`` times the widths)."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        slack = tol * self.widths
        return bool(
            x.shape[1] == self.dim and np.all(x >= self.lower - slack) and np.all(x <= self.upper + slack)
        )

    def check_points(self, value: Any, name: str, owner: str) -> FloatArray:
        """``value`` as points of the box (k, d) (a single point may be given flat), or a ConfigError."""
        pts = check_array(value, name, owner=owner)
        pts = pts.reshape(1, -1) if pts.ndim == 1 else pts
        if pts.ndim != 2 or pts.shape[1] != self.dim:
            raise ConfigError(
                f"{owner}: {name} must be points of the {self.dim}-dimensional box. Got {value!r}."
            )
        if not self.contains(pts):
            raise ConfigError(
                f"{owner}: {name} must lie in the box [{self.lower.tolist()}, {self.upper.tolist()}]."
            )
        return np.clip(pts, self.lower, self.upper)

    def to_dict(self) -> dict[str, Any]:
        return {"lower": self.lower.tolist(), "upper": self.upper.tolist()}


def box_kernel(spec: Mapping[str, Any], box: Box, owner: str) -> PointKernel:
    """The :class:`~safebandits.estimators.gp.PointKernel` of a named kernel on a box
    (``{"name": "se" | "matern", "lengthscale": ..., "variance": ..., "nu": ...}``; its points: the box's
    centre, a placeholder: only the formula is used on a box)."""
    if not isinstance(spec, Mapping):
        raise ConfigError(
            f"{owner}: on a box the kernel must be named ({{name = 'se' | 'matern', lengthscale = ...}}); a "
            "Gram matrix needs a finite domain."
        )
    spec = dict(spec)
    kind = spec.pop("name", None)
    if kind not in ("se", "matern"):
        raise ConfigError(
            f"{owner}: on a box the kernel must be 'se' or 'matern' (stationary, evaluated anywhere). "
            f"Got {kind!r}."
        )
    allowed = {"lengthscale", "variance"} | ({"nu"} if kind == "matern" else set())
    unknown = set(spec) - allowed
    if unknown:
        raise ConfigError(
            f"{owner}: a {kind!r} kernel takes keys among {sorted(allowed)}. Got {sorted(unknown)}."
        )
    return PointKernel(box.centre[None, :], kind, **spec)


@dataclass(frozen=True, slots=True)
class RKHSFunction:
    """``h(x) = sum_i weights_i k(x, centers_i) + offset``: a function in the RKHS of ``kernel`` (plus a
    constant), evaluated at any points.

    Parameters
    ----------
    centers : array-like of shape (m, d)
    weights : array-like of shape (m,)
    kernel : PointKernel
    offset : float, default 0
    """

    centers: Any
    weights: Any
    kernel: PointKernel
    offset: float = 0.0

    def __post_init__(self) -> None:
        owner = "RKHSFunction"
        c = check_array(self.centers, "centers", owner=owner)
        c = c.reshape(-1, 1) if c.ndim == 1 else c
        w = check_array(self.weights, "weights", shape=(c.shape[0],), owner=owner)
        if c.ndim != 2 or c.shape[0] < 1 or c.shape[1] != self.kernel.points.shape[1]:
            raise ConfigError(
                f"{owner}: centers must be {self.kernel.points.shape[1]}-dimensional points. "
                f"Got shape {c.shape}."
            )
        object.__setattr__(self, "centers", c)
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "offset", check_interval(self.offset, "offset", owner=owner))

    def __call__(self, x: FloatArray) -> FloatArray:
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        return self.kernel.between(x, self.centers) @ self.weights + self.offset

    @property
    def rkhs_norm(self) -> float:
        """``||h - offset||_k = sqrt(w^T K_cc w)``."""
        k = self.kernel.between(self.centers, self.centers)
        return float(math.sqrt(max(float(self.weights @ k @ self.weights), 0.0)))


def _refine(f: Callable, g: Callable, starts: FloatArray, box: Box, sign: float = 1.0) -> FloatArray:
    """SLSQP from each start: ``max sign f`` s.t. ``g <= 0`` in the box (the feasible results)."""
    from scipy.optimize import minimize

    out = []
    bounds = list(zip(box.lower.tolist(), box.upper.tolist(), strict=True))
    for x0 in starts:
        res = minimize(
            lambda x: -sign * float(f(x[None, :])[0]),
            x0,
            method="SLSQP",
            bounds=bounds,
            constraints=[{"type": "ineq", "fun": lambda x: -float(g(x[None, :])[0])}],
            options={"ftol": 1e-12, "maxiter": 200},
        )
        x = np.clip(np.asarray(res.x, dtype=np.float64), box.lower, box.upper)
        if float(g(x[None, :])[0]) <= 0.0:
            out.append(x)
    return np.array(out).reshape(-1, box.dim)


@dataclass(frozen=True, kw_only=True, slots=True)
class BoxKernelInstance:
    """Ground truth of a constrained kernelized bandit on a box (module docstring).

    Parameters
    ----------
    reward, constraint : callable ``(m, d) -> (m,)``
        ``f`` and ``g`` (e.g. :class:`RKHSFunction`); ``g <= 0`` is feasible.
    box : Box
    kernel : PointKernel
        ``k`` (the learners' kernel).
    constraint_kernel : PointKernel, optional
        ``k~`` (default ``k``).
    feedback : GaussianFeedback or BoundedFeedback
    horizon : int
    safe_seed : array-like of shape (k, d), optional
        Points known to be safe (told to StageOpt, SafeOpt and SGP-UCB); each must have ``g < 0``.
    reward_bound, constraint_bound, noise_bound, constraint_noise_bound : float, optional
        ``B``, ``G``, ``R``, ``R~`` told (default ``max |f|``, ``max |g|`` on the oracle design, and the
        feedback's noise scales).
    slater_cap : float in (0, 1], default 1
    name : str
    """

    reward: Callable[[FloatArray], FloatArray]
    constraint: Callable[[FloatArray], FloatArray]
    box: Box
    kernel: PointKernel
    constraint_kernel: PointKernel | None = None
    feedback: GaussianFeedback | BoundedFeedback = field(default_factory=GaussianFeedback)
    horizon: int = 10_000
    safe_seed: Any = None
    reward_bound: float | None = None
    constraint_bound: float | None = None
    noise_bound: float | None = None
    constraint_noise_bound: float | None = None
    slater_cap: float = 1.0
    name: str = "kernel-box"
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "BoxKernelInstance"
        object.__setattr__(self, "box", Box.coerce(self.box, owner))
        if not isinstance(self.kernel, PointKernel):
            raise ConfigError(f"{owner}: the kernel must be a PointKernel (a kernel evaluated anywhere).")
        if self.constraint_kernel is None:
            object.__setattr__(self, "constraint_kernel", self.kernel)
        if not isinstance(self.feedback, (GaussianFeedback, BoundedFeedback)):
            raise ConfigError(
                f"{owner}: feedback must be Gaussian or bounded (resampled data needs a finite domain)."
            )
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        check_interval(self.slater_cap, "slater_cap", low=0.0, high=1.0, closed="right", owner=owner)
        for attr in ("reward_bound", "constraint_bound", "noise_bound", "constraint_noise_bound"):
            if getattr(self, attr) is not None:
                check_positive(getattr(self, attr), attr, owner=owner)
        design = self.design
        f, g = self.reward(design), self.constraint(design)
        if np.shape(f) != (design.shape[0],) or np.shape(g) != (design.shape[0],):
            raise ConfigError(f"{owner}: reward and constraint must map (m, d) points to (m,) values.")
        if not (np.all(np.isfinite(f)) and np.all(np.isfinite(g))):
            raise ConfigError(f"{owner}: reward and constraint must be finite on the box.")
        if self.safe_seed is not None:
            seed = self.box.check_points(self.safe_seed, "safe_seed", owner)
            gs = self.constraint(seed)
            if np.any(gs > 0.0):
                raise ConfigError(f"{owner}: a safe seed point has g = {float(np.max(gs)):.4g} > 0.")
            object.__setattr__(self, "safe_seed", seed)
        if self.slater_constant <= 0.0:
            raise InfeasibleInstanceError(
                "Slater's condition (Assumption 1) needs min g < 0 on the box. "
                f"Got min g = {-self.slater_constant:.4g}."
            )
        if isinstance(self.feedback, BoundedFeedback):
            self.feedback.check_means(f, g)

    # -- oracles --------------------------------------------------------------------------------
    @property
    def design(self) -> FloatArray:
        """The oracles' deterministic design: :data:`ORACLE_POINTS` scrambled Sobol' points (seed 0)."""
        if "design" not in self._cache:
            from scipy.stats import qmc

            u = qmc.Sobol(self.box.dim, scramble=True, seed=0).random(ORACLE_POINTS)
            self._cache["design"] = self.box.lower + self.box.widths * u
        return self._cache["design"]

    def _optimum(self) -> tuple[FloatArray, float]:
        if "opt" not in self._cache:
            d = self.design
            f, g = self.reward(d), self.constraint(d)
            feasible = np.flatnonzero(g <= 0.0)
            if feasible.size == 0:
                raise InfeasibleInstanceError("No design point of the box satisfies g(x) <= 0.")
            best = feasible[np.argsort(-f[feasible], kind="stable")[:5]]
            cands = np.vstack([d[best], _refine(self.reward, self.constraint, d[best], self.box)])
            fc = self.reward(cands)
            i = int(np.argmax(fc))
            self._cache["opt"] = (cands[i], float(fc[i]))
            self._cache["refined"] = cands
        return self._cache["opt"]

    @property
    def optimal_point(self) -> FloatArray:
        """``x* = argmax_{g(x) <= 0} f(x)`` (design search plus SLSQP)."""
        return self._optimum()[0].copy()

    @property
    def optimal_value(self) -> float:
        return self._optimum()[1]

    @property
    def optimal_policy_value(self) -> float:
        """``max_pi {E_pi f : E_pi g <= 0}`` over distributions on the design and the refined points (an
        LP; at least :attr:`optimal_value`)."""
        if "policy" not in self._cache:
            self._optimum()
            pts = np.vstack([self.design, self._cache["refined"], self.slater_point[None, :]])
            res = solve_policy_lp(self.reward(pts), self.constraint(pts)[:, None], np.zeros(1))
            value = -math.inf if res is None else res[0]
            self._cache["policy"] = max(value, self.optimal_value)
        return self._cache["policy"]

    @property
    def slater_point(self) -> FloatArray:
        """``argmin_x g(x)`` (design search plus L-BFGS-B on ``g``)."""
        if "slater" not in self._cache:
            from scipy.optimize import minimize

            d = self.design
            g = self.constraint(d)
            x0 = d[int(np.argmin(g))]
            bounds = list(zip(self.box.lower.tolist(), self.box.upper.tolist(), strict=True))
            res = minimize(
                lambda x: float(self.constraint(x[None, :])[0]), x0, method="L-BFGS-B", bounds=bounds
            )
            x = np.clip(np.asarray(res.x), self.box.lower, self.box.upper)
            self._cache["slater"] = x if float(self.constraint(x[None, :])[0]) < float(g.min()) else x0
        return self._cache["slater"]

    @property
    def slater_constant(self) -> float:
        """``-min_x g(x)``."""
        return float(-self.constraint(self.slater_point[None, :])[0])

    # -- tracker view ----------------------------------------------------------------------------
    @property
    def reward_param(self) -> FloatArray:
        return np.array([1.0, 0.0])

    @property
    def cost_params(self) -> FloatArray:
        return np.array([[0.0, 1.0]])

    @property
    def threshold(self) -> FloatArray:
        return np.zeros(1)

    def features(self, x: FloatArray) -> FloatArray:
        """``(f(x), g(x))`` per point (m, 2): what the tracker scores."""
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        return np.column_stack([self.reward(x), self.constraint(x)])

    @property
    def safe_point(self) -> FloatArray:
        """The first safe seed point (else the Slater point)."""
        return self.safe_seed[0] if self.safe_seed is not None else self.slater_point

    @property
    def arms(self) -> FloatArray:
        """One feature row, of the safe point (the tracker's ``safe_action``)."""
        return self.features(self.safe_point)

    @property
    def safe_arm(self) -> int:
        return 0

    @property
    def safe_action(self) -> FloatArray:
        return self.arms[0]

    @property
    def feasible_tol(self) -> float:
        return TOL

    # -- learner's view ----------------------------------------------------------------------------
    def _told(self) -> tuple[float, float, float, float]:
        d = self.design
        return told_bounds(self, self.reward(d), self.constraint(d))

    def public_info(self) -> KernelInfo:
        b, gb, r, rg = self._told()
        seed = self.safe_seed
        return KernelInfo(
            kernel=self.kernel,
            constraint_kernel=self.constraint_kernel,
            points=None if seed is None else seed,
            reward_bound=b,
            constraint_bound=gb,
            noise_bound=r,
            constraint_noise_bound=rg,
            slater=min(self.slater_cap, self.slater_constant),
            horizon=int(self.horizon),
            safe_seed=() if seed is None else tuple(range(seed.shape[0])),
            box=self.box,
        )

    def privileged_info(self) -> KernelInfo:
        return self.public_info()

    def with_horizon(self, horizon: int) -> BoxKernelInstance:
        return dataclasses.replace(self, horizon=horizon)

    def describe(self) -> dict[str, Any]:
        b, gb, r, rg = self._told()
        return {
            "name": self.name,
            "box": self.box.to_dict(),
            "optimal_point": self.optimal_point.tolist(),
            "optimal_value": self.optimal_value,
            "optimal_policy_value": self.optimal_policy_value,
            "slater_constant": self.slater_constant,
            "told": {
                "B": b,
                "G": gb,
                "R": r,
                "R_g": rg,
                "slater": min(self.slater_cap, self.slater_constant),
            },
            "safe_seed": None if self.safe_seed is None else self.safe_seed.tolist(),
            "feedback": self.feedback.name,
        }

    def environment(self, rng: np.random.Generator) -> BoxKernelEnvironment:
        return BoxKernelEnvironment(self, rng)


class BoxKernelEnvironment(VariateStream):
    """Coupled noisy feedback ``(r_t, c_t)`` at a played point of the box; one row of standard variates
    per round (the same stream discipline as the finite domain's
    :class:`~safebandits.problems.kernel.KernelEnvironment`)."""

    def __init__(self, instance: BoxKernelInstance, rng: np.random.Generator) -> None:
        self.instance = instance
        self.box = instance.box
        self.arms = instance.arms
        self.noise = instance.feedback
        self.rng = rng
        self.n_samples = 0
        self._width = instance.feedback.width
        self._init_stream()

    def _point(self, decision: Decision) -> FloatArray:
        if decision.point is None or decision.counts is not None:
            raise ConfigError("A box environment plays one point of the box per round (Decision.point).")
        x = np.asarray(decision.point, dtype=np.float64).reshape(-1)
        if x.shape[0] != self.box.dim or not np.all(np.isfinite(x)) or not self.box.contains(x):
            raise ConfigError(
                f"Decision point must lie in the box [{self.box.lower.tolist()}, {self.box.upper.tolist()}]. "
                f"Got {x.tolist()}."
            )
        return np.clip(x, self.box.lower, self.box.upper)

    def point_of(self, decision: Decision) -> FloatArray:
        """The tracker's feature row ``(f(x), g(x))`` of the played point."""
        return self.instance.features(self._point(decision))[0]

    def play(self, decision: Decision) -> Observation:
        x = self._point(decision)
        fx, gx = self.instance.features(x)[0]
        r, c = self.noise.observe(float(fx), float(gx), 0, self.next_row())
        self.n_samples += 1
        return Observation(reward=r, constraints=np.array((c,)))
