"""Linear bandits under a linear safety constraint (Amani, Alizadeh & Thrampoulidis, NeurIPS 2019).

Setting (spec ``safe_lucb.md`` section 1). Each round the learner plays ``x_t`` in a known decision set
``D0`` and observes only the **loss** ``l_t = mu^T x_t + eta_t``; ``mu`` is unknown. Every played action
must satisfy the safety constraint ``mu^T B x_t <= c`` (eq. 1) with the *same* unknown ``mu`` and known
``B`` and ``c > 0``. The safe set is ``D0^s = {x in D0 : mu^T B x <= c}`` (eq. 2); the oracle is
``x* = argmin_{x in D0^s} mu^T x``; the safety gap is ``Delta = c - mu^T B x*`` (eq. 12).

Decision sets (:class:`DecisionSet`): ``"arms"`` (a finite set of K arms, Appendix C's K-armed setting),
``"ball"`` (``||x - center|| <= radius``) or ``"polytope"`` (``G x <= h``); convex bodies must hold the
origin in their interior (Assumption 3).

Link to the package's regret machinery (:class:`~safebandits.experiments.regret_loop.RegretTracker`):
the problem is written as reward maximisation with ``reward_param = -mu`` (so the tracker's regret
``optimal_value - <x_t, -mu>`` is ``mu^T x_t - mu^T x*``), ``cost_params = (B^T mu)[None, :]`` and
``threshold = [c]`` (so the tracker's violations are rounds with ``mu^T B x_t > c``).

Feedback convention: the environment is a
:class:`~safebandits.problems.stagewise.LinearFeedbackEnvironment` with the single column ``-mu`` and no
constraint column, so ``Observation.reward`` is the **negated loss** ``-l_t`` (``= -mu^T x_t + sigma z``)
and ``Observation.constraints`` is empty: the learner observes nothing else, as in the paper.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, get_args

import numba
import numpy as np
from scipy.optimize import linprog

from safebandits._limits import MAX_BUDGET
from safebandits._validation import check_array, check_int, check_literal_fields, check_positive
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.noise import NoiseModel
from safebandits.problems.stagewise import TOL, LinearFeedbackEnvironment
from safebandits.types import FloatArray

__all__ = [
    "KINDS",
    "ConvexBody",
    "DecisionSet",
    "RadialProblem",
    "SafeLinearInfo",
    "SafeLinearInstance",
    "boundary_grid_step",
    "directions_grid",
    "discrete_step",
    "estimated_safety_ucb",
    "radial_d0",
    "radial_step",
]

DecisionKind = Literal["arms", "ball", "polytope"]
KINDS: tuple[str, ...] = get_args(DecisionKind)  # the index is the code the kernels take
ARMS, BALL, POLYTOPE = 0, 1, 2


class ConvexBody(NamedTuple):
    """A convex decision set ``D0`` as the compiled kernels see it (:meth:`DecisionSet.kernel_args`).

    ``kind`` the code of :data:`KINDS` (``BALL`` or ``POLYTOPE``); ``center`` (d,) and ``radius`` of a
    ball; ``g_mat`` (m, d) and ``h_vec`` (m,) of a polytope ``G x <= h`` (unused arrays are empty).
    """

    kind: int
    center: np.ndarray
    radius: float
    g_mat: np.ndarray
    h_vec: np.ndarray


class RadialProblem(NamedTuple):
    """What the radial optimistic step (:func:`radial_step`) knows before the rounds start.

    ``body`` ``D0`` (:class:`ConvexBody`); ``dirs`` (n, d) unit directions (``d = 2``: angles
    ``2 pi k / n`` in order, :func:`directions_grid`) and ``rho0`` (n,) their ``rho_D0``; ``b_mat`` ``B`` and
    ``c`` of the constraint ``mu^T B x <= c``.
    """

    body: ConvexBody
    dirs: np.ndarray
    rho0: np.ndarray
    b_mat: np.ndarray
    c: float


@numba.njit(cache=True)
def radial_d0(kind, center, radius, g_mat, h_vec, u):
    """Radial function ``rho(u) = max{s >= 0 : s u in D0}`` of a convex body (ball or polytope).

    Ball: ``s = u.c + sqrt((u.c)^2 - ||c||^2 + r^2)`` (``||u|| = 1``); polytope: ``min_i h_i / (g_i . u)``
    over the rows with ``g_i . u > 0`` (``inf`` if none).
    """
    d = u.shape[0]
    if kind == BALL:
        p = 0.0
        q = 0.0
        for i in range(d):
            p += u[i] * center[i]
            q += center[i] * center[i]
        q -= radius * radius
        return p + math.sqrt(max(p * p - q, 0.0))
    best = np.inf
    for k in range(g_mat.shape[0]):
        gu = 0.0
        for i in range(d):
            gu += g_mat[k, i] * u[i]
        if gu > 0.0:
            r = h_vec[k] / gu
            if r < best:
                best = r
    return best


#: Relative size below which a safety gap is rounding (:attr:`SafeLinearInstance.safety_gap`).
_GAP_ROUNDING = 1e-12


@dataclass(frozen=True, slots=True)
class DecisionSet:
    """The decision set ``D0``: K arms, a ball or a polytope (known to the learner).

    Parameters
    ----------
    kind : {"arms", "ball", "polytope"}
    arms : ndarray of shape (K, d), optional
        The arms (``kind="arms"``).
    center : ndarray of shape (d,), optional
        Ball centre (``kind="ball"``).
    radius : float, optional
        Ball radius (``kind="ball"``; the origin must be interior: ``||center|| < radius``).
    g_mat : ndarray of shape (m, d), optional
        Polytope ``{x : G x <= h}`` (``kind="polytope"``; bounded, with ``h > 0``).
    h_vec : ndarray of shape (m,), optional
    """

    kind: DecisionKind
    arms: FloatArray | None = None
    center: FloatArray | None = None
    radius: float = 0.0
    g_mat: FloatArray | None = None
    h_vec: FloatArray | None = None
    #: Quantities learners derive from the set alone, computed once (the set is immutable).
    _cache: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "DecisionSet"
        check_literal_fields(self, owner=owner)
        if self.kind == "arms":
            object.__setattr__(self, "arms", check_array(self.arms, "arms", ndim=2, min_rows=1, owner=owner))
        elif self.kind == "ball":
            ctr = check_array(self.center, "center", ndim=1, owner=owner)
            r = check_positive(self.radius, "radius", owner=owner)
            if np.linalg.norm(ctr) >= r:
                raise ConfigError(
                    "The ball decision set must hold the origin in its interior (Assumption 3)."
                )
            object.__setattr__(self, "center", ctr)
            object.__setattr__(self, "radius", r)
        else:
            g = check_array(self.g_mat, "g_mat", ndim=2, min_rows=1, owner=owner)
            h = check_array(self.h_vec, "h_vec", shape=(g.shape[0],), owner=owner)
            if np.any(h <= 0):
                raise ConfigError(
                    "The polytope G x <= h must hold the origin in its interior: every h_i > 0."
                )
            object.__setattr__(self, "g_mat", g)
            object.__setattr__(self, "h_vec", h)
            box = self.bounding_box()
            if not np.all(np.isfinite(box)):
                raise ConfigError("The polytope decision set must be bounded.")

    # -- geometry -------------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        if self.kind == "arms":
            return int(self.arms.shape[1])
        return int(self.center.shape[0] if self.kind == "ball" else self.g_mat.shape[1])

    @property
    def is_finite(self) -> bool:
        return self.kind == "arms"

    @property
    def kind_code(self) -> int:
        return KINDS.index(self.kind)

    def kernel_args(self) -> ConvexBody:
        """``(kind, center, radius, G, h)`` for :func:`radial_d0` and :class:`RadialProblem` (unused arrays
        are empty)."""
        d = self.dim
        ctr = self.center if self.kind == "ball" else np.zeros(d)
        g = self.g_mat if self.kind == "polytope" else np.zeros((0, d))
        h = self.h_vec if self.kind == "polytope" else np.zeros(0)
        return ConvexBody(
            self.kind_code,
            np.ascontiguousarray(ctr),
            float(self.radius),
            np.ascontiguousarray(g),
            h.copy(),
        )

    def radial(self, directions: FloatArray) -> FloatArray:
        """``rho(u)`` for every unit row ``u`` of ``directions`` (convex bodies)."""
        if self.is_finite:
            raise ConfigError("A finite decision set has no radial function.")
        u = np.atleast_2d(np.asarray(directions, dtype=np.float64))
        args = self.kernel_args()
        return np.array([radial_d0(*args, np.ascontiguousarray(v)) for v in u])

    def contains(self, points: FloatArray, tol: float = 1e-9) -> np.ndarray:
        """Membership of every row of ``points`` in ``D0`` (finite sets: equal to an arm)."""
        x = np.atleast_2d(np.asarray(points, dtype=np.float64))
        if self.kind == "ball":
            return np.linalg.norm(x - self.center, axis=1) <= self.radius + tol
        if self.kind == "polytope":
            return np.all(x @ self.g_mat.T <= self.h_vec + tol, axis=1)
        dist = np.linalg.norm(x[:, None, :] - self.arms[None, :, :], axis=2)
        return dist.min(axis=1) <= tol

    def bounding_box(self) -> FloatArray:
        """``(2, d)``: lower and upper corners of the smallest box around ``D0``."""
        if self.kind == "arms":
            return np.vstack([self.arms.min(axis=0), self.arms.max(axis=0)])
        if self.kind == "ball":
            return np.vstack([self.center - self.radius, self.center + self.radius])
        d = self.dim
        box = np.empty((2, d))
        for i in range(d):
            for s, row in ((1.0, 0), (-1.0, 1)):
                res = linprog(s * np.eye(d)[i], A_ub=self.g_mat, b_ub=self.h_vec, bounds=[(None, None)] * d)
                box[row, i] = res.x[i] if res.status == 0 else (-np.inf if row == 0 else np.inf)
        return box

    def vertices(self) -> FloatArray:
        """Vertices of a 2-D polytope in counter-clockwise order (plots and the norm bound)."""
        if self.kind != "polytope" or self.dim != 2:
            raise ConfigError("vertices() is available for 2-D polytopes only.")
        g, h = self.g_mat, self.h_vec
        pts = []
        for i in range(g.shape[0]):
            for j in range(i + 1, g.shape[0]):
                m = g[[i, j]]
                if abs(np.linalg.det(m)) < 1e-12:
                    continue
                x = np.linalg.solve(m, h[[i, j]])
                if np.all(g @ x <= h + 1e-9):
                    pts.append(x)
        pts = np.unique(np.round(np.array(pts), 12), axis=0)
        ang = np.arctan2(pts[:, 1], pts[:, 0])
        return pts[np.argsort(ang)]

    def norm_bound(self) -> float:
        """``L = max_{x in D0} ||x||`` (polytopes in d > 2: the bounding box's bound)."""
        if self.kind == "arms":
            return float(np.linalg.norm(self.arms, axis=1).max())
        if self.kind == "ball":
            return float(np.linalg.norm(self.center) + self.radius)
        if self.dim == 2:
            return float(np.linalg.norm(self.vertices(), axis=1).max())
        box = self.bounding_box()
        return float(np.linalg.norm(np.maximum(np.abs(box[0]), np.abs(box[1]))))

    def shell_radius(self, b_mat: FloatArray, bound: float) -> float:
        """Largest ``eps <= bound`` with ``{x : ||B x|| = eps} inside D0`` (Remark 1, eq. 5; B invertible).

        Polytope: ``min_i h_i / ||B^{-T} g_i||`` (exact). Ball: ``(r - ||center||) sigma_min(B)`` (exact for
        a centred ball, a lower bound otherwise).
        """
        if self.kind == "arms":
            raise ConfigError("The shell sampler of Remark 1 needs a convex decision set.")
        if self.kind == "ball":
            smin = float(np.linalg.svd(b_mat, compute_uv=False).min())
            return min(bound, (self.radius - float(np.linalg.norm(self.center))) * smin)
        w = np.linalg.solve(b_mat.T, self.g_mat.T).T  # rows B^{-T} g_i
        return min(bound, float(np.min(self.h_vec / np.linalg.norm(w, axis=1))))

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "d": self.dim}
        if self.kind == "arms":
            out["arms"] = self.arms.tolist()
        elif self.kind == "ball":
            out.update(center=self.center.tolist(), radius=self.radius)
        else:
            out.update(g_mat=self.g_mat.tolist(), h_vec=self.h_vec.tolist())
        return out

    @classmethod
    def from_description(cls, desc: dict[str, Any]) -> DecisionSet:
        """Inverse of :meth:`describe`."""
        kind = desc["kind"]
        if kind == "arms":
            return cls("arms", arms=np.asarray(desc["arms"], dtype=float))
        if kind == "ball":
            return cls("ball", center=np.asarray(desc["center"], dtype=float), radius=float(desc["radius"]))
        return cls("polytope", g_mat=np.asarray(desc["g_mat"], dtype=float), h_vec=np.asarray(desc["h_vec"]))


def estimated_safety_ucb(
    points: FloatArray, b_mat: FloatArray, theta: FloatArray, a_mat: FloatArray, beta: float
) -> FloatArray:
    """``max_{v in C_t} v^T B x = theta^T B x + beta ||B x||_{A^{-1}}`` for every row ``x`` (eq. 8).

    ``x`` is in the estimated safe set ``D_t^s`` iff it is in ``D0`` and this value is at most ``c``.
    ``a_mat`` is the Gram matrix ``A_t`` (not its inverse).
    """
    x = np.atleast_2d(np.asarray(points, dtype=np.float64))
    bx = x @ np.asarray(b_mat).T
    sol = np.linalg.solve(np.asarray(a_mat), bx.T).T
    sq = np.maximum(np.einsum("ij,ij->i", bx, sol), 0.0)
    return bx @ np.asarray(theta) + beta * np.sqrt(sq)


@dataclass(frozen=True, slots=True)
class SafeLinearInfo:
    """What a Safe-LUCB learner is told (never ``mu``).

    Attributes
    ----------
    decision_set : DecisionSet
    b_mat : ndarray of shape (d, d)
        ``B`` of the constraint ``mu^T B x <= c``.
    threshold : float
        ``c > 0``.
    horizon : int
        ``T`` (enters ``beta_T`` and hence ``T_Delta`` and ``T_0``).
    noise_bound, param_norm_bound, arm_norm_bound : float
        ``R``, ``S >= ||mu||``, ``L >= max_{x in D0} ||x||`` (Assumptions 1-2).
    safety_gap : float or None
        ``Delta`` (Sec. 3.3 assumes it known; only the ``t_prime="t_delta"`` rule reads it).
    """

    decision_set: DecisionSet
    b_mat: FloatArray
    threshold: float
    horizon: int
    noise_bound: float
    param_norm_bound: float
    arm_norm_bound: float
    safety_gap: float | None = None

    @property
    def dim(self) -> int:
        return self.decision_set.dim


@dataclass(frozen=True, kw_only=True, slots=True)
class SafeLinearInstance:
    """Ground truth of a safe linear bandit: ``D0``, ``mu``, ``B``, ``c``, noise and horizon.

    Parameters
    ----------
    decision_set : DecisionSet
    mu : ndarray of shape (d,)
        Unknown loss parameter (also in the constraint).
    b_mat : ndarray of shape (d, d)
    threshold : float
        ``c > 0``.
    noise : NoiseModel
        Noise of the loss observation (Gaussian in our instances).
    horizon : int
    noise_bound, param_norm_bound, arm_norm_bound : float, optional
        ``R``, ``S``, ``L`` told to learners (defaults: the Gaussian sigma, ``||mu||``, ``max ||x||``).
    name : str
    """

    decision_set: DecisionSet
    mu: FloatArray
    b_mat: FloatArray
    threshold: float
    noise: NoiseModel
    horizon: int = 10_000
    noise_bound: float | None = None
    param_norm_bound: float | None = None
    arm_norm_bound: float | None = None
    name: str = "safe-linear"
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "SafeLinearInstance"
        d = self.decision_set.dim
        object.__setattr__(self, "mu", check_array(self.mu, "mu", shape=(d,), owner=owner))
        object.__setattr__(self, "b_mat", check_array(self.b_mat, "b_mat", shape=(d, d), owner=owner))
        object.__setattr__(self, "threshold", check_positive(self.threshold, "threshold", owner=owner))
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        for attr in ("noise_bound", "param_norm_bound", "arm_norm_bound"):
            if getattr(self, attr) is not None:
                check_positive(getattr(self, attr), attr, owner=owner)
        self._optimum()  # raises if no arm is safe

    # -- tracker interface ----------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return self.decision_set.dim

    def _derived(self, key: str, make: Any) -> Any:
        """``make()``, computed once per instance (arrays returned read-only: every caller shares them)."""
        cache = self._cache
        value = cache.get(key)
        if value is None:
            value = make()
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            cache[key] = value
        return value

    @property
    def reward_param(self) -> FloatArray:
        """``-mu``: the package's reward is the negated loss (read-only, computed once)."""
        return self._derived("reward_param", lambda: -self.mu)

    @property
    def safety_param(self) -> FloatArray:
        """``B^T mu``: the safety value of ``x`` is ``(B^T mu)^T x = mu^T B x`` (read-only, computed once)."""
        return self._derived("safety_param", lambda: self.b_mat.T @ self.mu)

    @property
    def cost_params(self) -> FloatArray:
        return self.safety_param[None, :]

    @property
    def arms(self) -> FloatArray:
        """The K arms; for convex bodies the single row ``0`` (a known safe point of ``D0``)."""
        if self.decision_set.is_finite:
            return self.decision_set.arms
        return np.zeros((1, self.dim))

    @property
    def n_arms(self) -> int:
        return int(self.arms.shape[0])

    @property
    def safe_action(self) -> FloatArray:
        return np.zeros(self.dim)

    @property
    def safe_arm(self) -> int | None:
        hits = np.flatnonzero(np.all(np.abs(self.arms) < 1e-15, axis=1))
        return int(hits[0]) if hits.size else None

    # -- truth ----------------------------------------------------------------------------------
    def losses(self, points: FloatArray) -> FloatArray:
        return np.atleast_2d(points) @ self.mu

    def safety_values(self, points: FloatArray) -> FloatArray:
        """``mu^T B x`` of every row ``x``."""
        return np.atleast_2d(points) @ self.safety_param

    def in_safe_set(self, points: FloatArray, tol: float = TOL) -> np.ndarray:
        """Membership in the true safe set ``D0^s`` (eq. 2)."""
        return self.decision_set.contains(points) & (self.safety_values(points) <= self.threshold + tol)

    @property
    def conservative_bound(self) -> float:
        """``c / S``: ``D^w = {x in D0 : ||B x|| <= c / S}`` (eq. 3)."""
        return self.threshold / self._told()[1]

    def in_conservative_set(self, points: FloatArray) -> np.ndarray:
        x = np.atleast_2d(points)
        norms = np.linalg.norm(x @ self.b_mat.T, axis=1)
        return self.decision_set.contains(x) & (norms <= self.conservative_bound * (1 + 1e-12))

    def _optimum(self) -> tuple[float, FloatArray]:
        if "opt" in self._cache:
            return self._cache["opt"]
        ds, mu, a, c = self.decision_set, self.mu, self.safety_param, self.threshold
        if ds.kind == "arms":
            vals = np.where(ds.arms @ a <= c + TOL, ds.arms @ mu, np.inf)
            if not np.isfinite(vals).any():
                raise InfeasibleInstanceError("No arm of the decision set is safe.")
            x = ds.arms[int(np.argmin(vals))].copy()
        elif ds.kind == "polytope":
            d = self.dim
            res = linprog(
                mu, A_ub=np.vstack([ds.g_mat, a]), b_ub=np.append(ds.h_vec, c), bounds=[(None, None)] * d
            )
            if res.status != 0:  # pragma: no cover - 0 is feasible, D0 bounded
                raise InfeasibleInstanceError(f"The safe optimum LP failed: {res.message}")
            x = res.x
        else:
            x = _ball_optimum(ds.center, ds.radius, mu, a, c)
        self._cache["opt"] = (float(mu @ x), np.asarray(x, dtype=float))
        return self._cache["opt"]

    @property
    def optimal_action(self) -> FloatArray:
        """``x* = argmin_{x in D0^s} mu^T x``."""
        return self._optimum()[1].copy()

    @property
    def optimal_loss(self) -> float:
        return self._optimum()[0]

    @property
    def optimal_value(self) -> float:
        """``-mu^T x*`` (the tracker's best reward)."""
        return -self._optimum()[0]

    @property
    def optimal_policy_value(self) -> float:
        return self.optimal_value

    @property
    def safety_gap(self) -> float:
        """``Delta = c - mu^T B x*`` (eq. 12), 0 when within rounding of 0 (relative 1e-12 of ``c``):
        an ``x*`` on the constraint's boundary is found to a few ulps, on either side depending on the
        BLAS (numpy 2.4 gives 1.1e-16 on ``safelucb/2d-boundary``, whose gap is 0 by construction)."""
        gap = float(self.threshold - self.safety_param @ self._optimum()[1])
        return gap if gap > _GAP_ROUNDING * max(1.0, abs(float(self.threshold))) else 0.0

    # -- learner's view -------------------------------------------------------------------------
    def _told(self) -> tuple[float, float, float]:
        r = self.noise_bound if self.noise_bound is not None else float(getattr(self.noise, "sigma", 0.5))
        s = self.param_norm_bound if self.param_norm_bound is not None else float(np.linalg.norm(self.mu))
        big_l = self.arm_norm_bound if self.arm_norm_bound is not None else self.decision_set.norm_bound()
        return max(r, 1e-12), max(s, 1e-12), big_l

    def public_info(self) -> SafeLinearInfo:
        """The learner's view, built once per instance and shared (its ``b_mat`` is a read-only copy)."""
        return self._derived("public_info", self._public_info)

    def _public_info(self) -> SafeLinearInfo:
        r, s, big_l = self._told()
        b_mat = self.b_mat.copy()
        b_mat.flags.writeable = False
        return SafeLinearInfo(
            decision_set=self.decision_set,
            b_mat=b_mat,
            threshold=self.threshold,
            horizon=int(self.horizon),
            noise_bound=r,
            param_norm_bound=s,
            arm_norm_bound=big_l,
            safety_gap=self.safety_gap,
        )

    def privileged_info(self) -> SafeLinearInfo:
        return self.public_info()

    def with_horizon(self, horizon: int) -> SafeLinearInstance:
        return dataclasses.replace(self, horizon=horizon)  # (a fresh _cache: init=False)

    def environment(self, rng: np.random.Generator) -> LinearFeedbackEnvironment:
        """Loss feedback only: ``Observation.reward = -(mu^T x + noise)``, no constraint column."""
        return LinearFeedbackEnvironment(self.arms, -self.mu, np.zeros((0, self.dim)), self.noise, rng)

    def describe(self) -> dict[str, Any]:
        r, s, big_l = self._told()
        return {
            "name": self.name,
            "decision_set": self.decision_set.describe(),
            "mu": self.mu.tolist(),
            "b_mat": self.b_mat.tolist(),
            "threshold": self.threshold,
            "x_star": self.optimal_action.tolist(),
            "optimal_loss": self.optimal_loss,
            "safety_gap": self.safety_gap,
            "noise": self.noise.name,
            "R": r,
            "S": s,
            "L": big_l,
            "horizon": int(self.horizon),
        }


def _ball_optimum(center: FloatArray, radius: float, mu: FloatArray, a: FloatArray, c: float) -> FloatArray:
    """``argmin mu^T x`` over ``{||x - center|| <= r, a^T x <= c}`` in closed form.

    The ball's minimiser ``center - r mu / ||mu||`` if it is safe; otherwise the constraint is active and
    the minimiser lies on the disc ``{a^T x = c} cap ball``: ``p - rho P mu / ||P mu||`` with ``p`` the
    disc's centre, ``rho`` its radius and ``P`` the projection onto ``a^perp``.
    """
    nm = float(np.linalg.norm(mu))
    x = center - radius * mu / nm if nm > 0 else center.copy()
    if a @ x <= c:
        return x
    na2 = float(a @ a)
    p = center + (c - a @ center) / na2 * a
    rho = math.sqrt(max(radius**2 - float((p - center) @ (p - center)), 0.0))
    pm = mu - (a @ mu) / na2 * a
    npm = float(np.linalg.norm(pm))
    return p - rho * pm / npm if npm > 0 else p


# --------------------------------------------------------------------------------------------------
# optimistic step over the estimated safe set of a convex body (used by Safe-LUCB, spec 2.6)
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _radial_value(u, rho0, theta, a_inv, bt_theta, q_mat, beta, c):
    """``(rho(u) f(u), rho(u))`` with ``rho = min(rho_D0(u), c / g(u))`` (``g(u) <= 0``: ``rho_D0``)."""
    d = u.shape[0]
    au = 0.0
    tu = 0.0
    qu = 0.0
    su = 0.0
    for i in range(d):
        au += bt_theta[i] * u[i]
        tu += theta[i] * u[i]
        for j in range(d):
            qu += u[i] * q_mat[i, j] * u[j]
            su += u[i] * a_inv[i, j] * u[j]
    den = au + beta * math.sqrt(max(qu, 0.0))
    rho = rho0
    if den > 0.0 and c / den < rho:
        rho = c / den
    return rho * (tu - beta * math.sqrt(max(su, 0.0))), rho


@numba.njit(cache=True)
def radial_step(prob, theta, a_inv, beta, refine, out):
    """Optimistic action on a convex body by the radial reduction (module docstring) for the confidence
    ellipsoid ``(theta, A^{-1}, beta)``: writes it into ``out`` and returns its optimistic loss ``f(x)``
    (``<= 0``; ``x = 0`` when nothing beats 0).

    ``prob`` (:class:`RadialProblem`) holds ``D0``, the unit directions, their ``rho_D0``, ``B`` and ``c``.
    With ``refine`` (``d = 2``), golden-section search on the angle over the two grid cells around the
    best direction. The point is shrunk by ``1 - 1e-12`` so that it lies inside ``D0`` and ``D_t^s``.
    """
    dirs, rho0, b_mat, c = prob.dirs, prob.rho0, prob.b_mat, prob.c
    kind, center, radius, g_mat, h_vec = prob.body
    d = theta.shape[0]
    bt_theta = b_mat.T @ theta
    q_mat = b_mat.T @ (a_inv @ b_mat)
    best = -1
    best_v = 0.0
    best_rho = 0.0
    for k in range(dirs.shape[0]):
        v, rho = _radial_value(dirs[k], rho0[k], theta, a_inv, bt_theta, q_mat, beta, c)
        if v < best_v:
            best_v = v
            best = k
            best_rho = rho
    for i in range(d):
        out[i] = 0.0
    if best < 0:
        return 0.0
    u_best = dirs[best].copy()
    if refine and d == 2:
        n = dirs.shape[0]
        step = 2.0 * math.pi / n
        lo = 2.0 * math.pi * best / n - step
        hi = lo + 2.0 * step
        gr = 0.5 * (math.sqrt(5.0) - 1.0)
        u = np.empty(2)
        x1 = hi - gr * (hi - lo)
        x2 = lo + gr * (hi - lo)
        f = np.empty(2)
        r = np.empty(2)
        for m, ang in enumerate((x1, x2)):
            u[0], u[1] = math.cos(ang), math.sin(ang)
            rho_u = radial_d0(kind, center, radius, g_mat, h_vec, u)
            f[m], r[m] = _radial_value(u, rho_u, theta, a_inv, bt_theta, q_mat, beta, c)
        for _ in range(60):
            if f[0] < f[1]:
                hi, x2, f[1] = x2, x1, f[0]
                x1 = hi - gr * (hi - lo)
                ang, m = x1, 0
            else:
                lo, x1, f[0] = x1, x2, f[1]
                x2 = lo + gr * (hi - lo)
                ang, m = x2, 1
            u[0], u[1] = math.cos(ang), math.sin(ang)
            rho_u = radial_d0(kind, center, radius, g_mat, h_vec, u)
            f[m], r[m] = _radial_value(u, rho_u, theta, a_inv, bt_theta, q_mat, beta, c)
        ang = 0.5 * (lo + hi)
        u[0], u[1] = math.cos(ang), math.sin(ang)
        rho_u = radial_d0(kind, center, radius, g_mat, h_vec, u)
        v, rho = _radial_value(u, rho_u, theta, a_inv, bt_theta, q_mat, beta, c)
        if v < best_v:
            best_v, best_rho = v, rho
            u_best[0], u_best[1] = u[0], u[1]
    for i in range(d):
        out[i] = (1.0 - 1e-12) * best_rho * u_best[i]
    return best_v


@numba.njit(cache=True)
def discrete_step(points, theta, a_inv, b_mat, beta, c, out):
    """Optimistic action over a fixed point set of ``D0`` (and ``0``); returns its optimistic loss."""
    bt_theta = b_mat.T @ theta
    q_mat = b_mat.T @ (a_inv @ b_mat)
    d = theta.shape[0]
    best = -1
    best_v = 0.0
    for k in range(points.shape[0]):
        v, rho = _radial_value(points[k], np.inf, theta, a_inv, bt_theta, q_mat, beta, c)
        if rho >= 1.0 and v < best_v:  # rho >= 1: the point itself satisfies the safety gauge
            best_v = v
            best = k
    for i in range(d):
        out[i] = points[best, i] if best >= 0 else 0.0
    return best_v


def boundary_grid_step(decision_set, theta, a_inv, b_mat, beta, c, n_v=360):
    """Spec 2.6 option 1: ``min_{v in partial C_t} min_{x in D_t^s} v^T x`` on a grid of ``n_v`` points
    ``v = theta + beta L w`` (``L L^T = A^{-1}``, ``||w|| = 1``), each inner convex programme (linear
    objective, ``D0``, one second-order-cone constraint) solved by SLSQP from ``x = 0``. Returns ``x``."""
    from scipy.optimize import minimize

    d = theta.shape[0]
    low = np.linalg.cholesky(a_inv)
    q_mat = b_mat.T @ a_inv @ b_mat
    at = b_mat.T @ theta
    cons = [{"type": "ineq", "fun": lambda x: c - at @ x - beta * math.sqrt(x @ q_mat @ x + 1e-18)}]
    if decision_set.kind == "ball":
        ctr, r = decision_set.center, decision_set.radius
        cons.append(
            {"type": "ineq", "fun": lambda x: r * r - (x - ctr) @ (x - ctr), "jac": lambda x: -2 * (x - ctr)}
        )
    else:
        g, h = decision_set.g_mat, decision_set.h_vec
        cons.append({"type": "ineq", "fun": lambda x: h - g @ x, "jac": lambda x: -g})
    if d == 2:
        ang = 2 * np.pi * np.arange(n_v) / n_v
        ws = np.column_stack([np.cos(ang), np.sin(ang)])
    else:
        ws = np.random.default_rng(0).standard_normal((n_v, d))
        ws /= np.linalg.norm(ws, axis=1, keepdims=True)
    best_x, best_v = np.zeros(d), 0.0
    for w in ws:
        v = theta + beta * low @ w
        res = minimize(
            lambda x, v=v: v @ x, np.zeros(d), jac=lambda x, v=v: v, constraints=cons, method="SLSQP",
            options={"ftol": 1e-12, "maxiter": 200},
        )  # fmt: skip
        if res.fun < best_v and all(np.all(con["fun"](res.x) >= -1e-9) for con in cons):
            best_v, best_x = float(res.fun), res.x
    return best_x


def directions_grid(d: int, n: int) -> FloatArray:
    """``n`` unit directions: angles ``2 pi k / n`` in order (``d = 2``), else a fixed random set (seed 0)."""
    if d == 2:
        ang = 2 * np.pi * np.arange(n) / n
        return np.ascontiguousarray(np.column_stack([np.cos(ang), np.sin(ang)]))
    u = np.random.default_rng(0).standard_normal((n, d))
    return np.ascontiguousarray(u / np.linalg.norm(u, axis=1, keepdims=True))
