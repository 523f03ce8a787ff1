"""Kernelized bandits with a soft constraint on a finite domain (Zhou & Ji, NeurIPS 2022, Section 2).

Setting (digest ``ckb.md`` §1). Each round the learner plays a point ``x_t`` of a finite domain ``X``
(``n`` points, decisions are indices) and observes, *coupled*, a reward ``r_t = f(x_t) + eta_t`` and a
constraint value ``c_t = g(x_t) + eta~_t``. The constraint ``g(x) <= 0`` is **soft**: it may be violated
in any round; the goal is a large cumulative reward with a small cumulative violation
``V(T) = [sum_t g(x_t)]_+``. ``f`` lies in the RKHS of a kernel ``k`` (``||f||_k <= B``), ``g`` in that of
``k~`` (``||g||_k~ <= G``); the learner knows the kernel matrices, ``B``, ``G``, the noise bounds ``R``,
``R~`` and a Slater constant ``delta`` (Assumption 1; capped at 1 "WLOG").

Oracles (:class:`KernelInstance`): the constrained optimum ``x* = argmax_{g(x) <= 0} f(x)``, the optimal
randomised policy ``pi* = argmax_pi {E_pi f : E_pi g <= 0}`` (a linear programme, HiGHS via
:func:`~safebandits.problems.stagewise.solve_policy_lp`) and the Slater constant ``-min_x g(x)`` (the
point mass at ``argmin g`` is the best Slater policy). Baselines that need a known safe action
(StageOpt, SGP-UCB) are told a *safe seed*: the ``n_seed`` points of smallest ``g``.

Link to :class:`~safebandits.experiments.regret_loop.RegretTracker`: the domain is written as a linear
problem with ``arms = I_n`` (one-hot rows), ``reward_param = f``, ``cost_params = g[None, :]`` and
``threshold = [0]``; the tracker's regret is then ``f(x*) - f(x_t)`` (unclipped, digest item 15), its
policy regret is against ``pi*`` (the stronger ``R+``), its violations count rounds with ``g(x_t) > 0``
and ``sum_t [g(x_t)]_+`` is its ``positive_cost``; ``V(T) = [T * cost]_+``.

Feedback (:class:`KernelEnvironment`): Gaussian noise (:class:`GaussianFeedback`, independent for ``f``
and ``g``), bounded outcomes (:class:`BoundedFeedback`: Bernoulli ``{0, 1}`` or binary ``{-1, +1}``
draws, sub-Gaussian with proxy ``(b - a) / 2``, e.g. efficacy and toxicity outcomes), or resampling of
an empirical table (:class:`EmpiricalFeedback`: the reward is a uniformly drawn row of the data at the
played column, the constraint an affine map of the same draw, e.g. ``c = -y + h`` for ``g = -f + h``).
Data loaders (:func:`load_light_sensors`, :func:`load_finance`) find
their files with :func:`safebandits.datasets.find_dataset` (an explicit path, ``$SAFEBANDITS_DATA``, the
user cache) and raise :class:`DataNotFoundError` when they are absent.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
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
from safebandits.datasets import DATA_ENV, DataNotFoundError, find_dataset
from safebandits.estimators.gp import check_kernel_matrix
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.environment import VariateStream
from safebandits.problems.noise import observe_code
from safebandits.problems.stagewise import TOL, solve_policy_lp
from safebandits.types import ArmSetMixin, Decision, FloatArray, Observation

__all__ = [
    "DATASETS",
    "DATA_ENV",
    "BoundedFeedback",
    "DataNotFoundError",
    "EmpiricalFeedback",
    "GaussianFeedback",
    "KernelEnvironment",
    "KernelInfo",
    "KernelInstance",
    "load_finance",
    "load_light_sensors",
    "locate_dataset",
    "told_bounds",
]

#: Environment variable naming the data directory (holding ``light_sensors/`` and ``finance/``).
# --------------------------------------------------------------------------------------------------
# data loaders
# --------------------------------------------------------------------------------------------------
#: Data sets the CKB loaders read: name -> file names inside the data set's folder, in order of
#: preference (the NumPy conversion of the light-sensor data loads without scipy.io).
DATASETS: dict[str, tuple[str, ...]] = {
    "light_sensors": ("light_sensors.npz", "iw_data_all.mat"),
    "finance": ("fin.csv",),
}


def told_bounds(
    instance: Any, reward: FloatArray, constraint: FloatArray
) -> tuple[float, float, float, float]:
    """``(B, G, R, R_g)`` told to the learners: the instance's stated bounds, else the largest ``|f|`` and
    ``|g|`` over ``reward`` / ``constraint`` (the values at the domain's points) and the feedback's noise
    levels; each at least 1e-12. (Shared by the finite and the box kernel instances.)"""
    b = instance.reward_bound if instance.reward_bound is not None else float(np.max(np.abs(reward)))
    gb = (
        instance.constraint_bound
        if instance.constraint_bound is not None
        else float(np.max(np.abs(constraint)))
    )
    s_f, s_g = instance.feedback.sigmas
    r = instance.noise_bound if instance.noise_bound is not None else s_f
    rg = instance.constraint_noise_bound if instance.constraint_noise_bound is not None else s_g
    return max(b, 1e-12), max(gb, 1e-12), max(r, 1e-12), max(rg, 1e-12)


def locate_dataset(name: str, path: str | os.PathLike[str] | None = None) -> Path:
    """The file of data set ``name`` (a key of :data:`DATASETS`).

    The folder comes from :func:`safebandits.datasets.find_dataset` (the one lookup of the library:
    ``path``, then ``$SAFEBANDITS_DATA``, then the user cache that ``safebandits data fetch`` fills);
    the preferred file in it is returned.

    Raises
    ------
    DataNotFoundError
        The data set is not found; the message says how to get it.
    """
    if name not in DATASETS:
        raise ConfigError(f"Unknown data set {name!r}. Known data sets: {sorted(DATASETS)}.")
    folder = find_dataset(name, path)
    for file in DATASETS[name]:
        if (folder / file).is_file():
            return folder / file
    raise DataNotFoundError(f"None of {list(DATASETS[name])} found in {str(folder)!r}.")  # pragma: no cover


def load_light_sensors(path: str | os.PathLike[str] | None = None) -> dict[str, FloatArray]:
    """CMU Intelligent Workplace light-sensor data (41 sensors): raw readings, not lux.

    Reads ``light_sensors.npz`` (preferred) or ``iw_data_all.mat`` in the folder found by
    :func:`locate_dataset`. Returns ``{"train": (601, 41), "test": (192, 41), "coords": (41, 2)}``.
    """
    file = locate_dataset("light_sensors", path)
    if file.suffix == ".npz":
        with np.load(file) as z:
            out = {k: np.asarray(z[k], dtype=np.float64) for k in ("train", "test", "coords")}
    else:
        from scipy.io import loadmat

        data = loadmat(file, squeeze_me=True, struct_as_record=False)["data"]
        out = {
            "train": np.asarray(data.train.sensordata, dtype=np.float64),
            "test": np.asarray(data.test.sensordata, dtype=np.float64),
            "coords": np.asarray(data.coords, dtype=np.float64),
        }
    if out["train"].shape[1] != out["test"].shape[1] or out["coords"].shape[0] != out["test"].shape[1]:
        raise ConfigError(
            f"Unexpected light-sensor shapes in {str(file)!r}: {[v.shape for v in out.values()]}."
        )
    return out


def load_finance(path: str | os.PathLike[str] | None = None) -> tuple[FloatArray, list[str]]:
    """Adjusted close prices of 29 DJIA stocks on 823 days (``finance/fin.csv``).

    Returns
    -------
    prices : ndarray of shape (823, 29)
    tickers : list of str
    """
    file = locate_dataset("finance", path)
    with open(file) as fh:
        header = fh.readline().strip().split(",")
    prices = np.loadtxt(file, delimiter=",", skiprows=1, usecols=range(1, len(header)), dtype=np.float64)
    return np.atleast_2d(prices), header[1:]


# --------------------------------------------------------------------------------------------------
# feedback
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GaussianFeedback:
    """``r = f(x) + sigma z_1`` and ``c = g(x) + constraint_sigma z_2`` with independent standard normals."""

    sigma: float = 0.1
    constraint_sigma: float | None = None
    variate: Literal["normal"] = "normal"
    width: int = 2

    def __post_init__(self) -> None:
        check_positive(self.sigma, "sigma", owner="GaussianFeedback", allow_zero=True)
        if self.constraint_sigma is not None:
            check_positive(
                self.constraint_sigma, "constraint_sigma", owner="GaussianFeedback", allow_zero=True
            )

    @property
    def sigmas(self) -> tuple[float, float]:
        return self.sigma, self.sigma if self.constraint_sigma is None else self.constraint_sigma

    @property
    def name(self) -> str:
        return f"gaussian(sigma={self.sigmas[0]:g}, {self.sigmas[1]:g})"

    def observe(self, f_x: float, g_x: float, i: int, v: FloatArray) -> tuple[float, float]:
        s_f, s_g = self.sigmas
        return f_x + s_f * float(v[0]), g_x + s_g * float(v[1])


#: Sub-Gaussian proxy ``(b - a) / 2`` of bounded observations in ``[a, b]`` (Hoeffding's lemma), by kind.
BOUNDED_PROXY: dict[str, float] = {"bernoulli": 0.5, "binary": 1.0}


@dataclass(frozen=True, slots=True)
class BoundedFeedback:
    """Bounded observations: ``r`` and ``c`` drawn independently as Bernoulli ``{0, 1}`` or binary
    ``{-1, +1}`` outcomes, shifted by known offsets.

    ``r = Y_f + reward_shift`` with ``E[Y_f] = f(x) - reward_shift`` and ``c = Y_g + constraint_shift`` with
    ``E[Y_g] = g(x) - constraint_shift``. A Bernoulli toxicity outcome ``Y`` with a limit ``tau`` is
    ``g = E[Y] - tau``: ``constraint_shift = -tau``. Every observation lies in an interval of length
    ``b - a`` (1 for Bernoulli, 2 for binary), so its noise is sub-Gaussian with proxy ``(b - a) / 2``
    (Hoeffding's lemma): :attr:`sigmas` is that proxy, the noise bound ``R`` told to the learners.

    Parameters
    ----------
    kind : {"bernoulli", "binary"}
    reward_shift, constraint_shift : float, default 0.0
    """

    kind: Literal["bernoulli", "binary"] = "bernoulli"
    reward_shift: float = 0.0
    constraint_shift: float = 0.0
    variate: Literal["uniform"] = "uniform"
    width: int = 2

    def __post_init__(self) -> None:
        check_literal_fields(self, owner="BoundedFeedback")

    @property
    def code(self) -> int:
        return 2 if self.kind == "bernoulli" else 1

    @property
    def proxy(self) -> float:
        """The sub-Gaussian proxy ``(b - a) / 2``: 1/2 (Bernoulli) or 1 (binary)."""
        return BOUNDED_PROXY[self.kind]

    @property
    def sigmas(self) -> tuple[float, float]:
        return self.proxy, self.proxy

    @property
    def name(self) -> str:
        return f"{self.kind}(sub-Gaussian proxy {self.proxy:g})"

    def check_means(self, f: FloatArray, g: FloatArray) -> None:
        """Raise a :class:`ConfigError` if a mean lies outside the outcomes' range."""
        low = 0.0 if self.kind == "bernoulli" else -1.0
        for what, values in (("reward", f - self.reward_shift), ("constraint", g - self.constraint_shift)):
            if np.any(values < low - 1e-12) or np.any(values > 1.0 + 1e-12):
                shift = self.reward_shift if what == "reward" else self.constraint_shift
                raise ConfigError(
                    f"{self.kind.capitalize()} feedback needs every {what} mean (minus its shift "
                    f"{shift:g}) in [{low:g}, 1]; got values in [{float(np.min(values)):.4g}, "
                    f"{float(np.max(values)):.4g}]."
                )

    def observe(self, f_x: float, g_x: float, i: int, v: FloatArray) -> tuple[float, float]:
        y_f = _observe_py(self.code, 0.0, f_x - self.reward_shift, float(v[0]))
        y_g = _observe_py(self.code, 0.0, g_x - self.constraint_shift, float(v[1]))
        return y_f + self.reward_shift, y_g + self.constraint_shift


#: The Python original of the noise formula (the same as every noise model's).
_observe_py = observe_code.py_func


@dataclass(frozen=True, slots=True)
class EmpiricalFeedback:
    """Resampling of a data table: ``y = samples[day, x]`` with ``day`` uniform, ``r = y`` and
    ``c = slope * y + intercept`` (the same draw: for ``g = -f + h`` take ``slope = -1``, ``intercept = h``).

    ``samples`` has shape (n_rows, n); its column means must be ``f`` (and ``slope f + intercept = g``).
    """

    samples: FloatArray
    slope: float = -1.0
    intercept: float = 0.5
    variate: Literal["uniform"] = "uniform"
    width: int = 1

    @property
    def name(self) -> str:
        return f"empirical({self.samples.shape[0]} rows)"

    @property
    def sigmas(self) -> tuple[float, float]:
        sd = float(np.max(np.std(self.samples, axis=0)))
        return sd, abs(self.slope) * sd

    def observe(self, f_x: float, g_x: float, i: int, v: FloatArray) -> tuple[float, float]:
        n_rows = self.samples.shape[0]
        y = float(self.samples[min(int(v[0] * n_rows), n_rows - 1), i])
        return y, self.slope * y + self.intercept


# --------------------------------------------------------------------------------------------------
# learner's view and ground truth
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True, slots=True)
class KernelInfo:
    """What a kernelized-bandit learner is told.

    Attributes
    ----------
    kernel, constraint_kernel : ndarray of shape (n, n)
        ``k`` and ``k~`` on the domain.
    points : ndarray of shape (n, d) or None
        Coordinates of the points, when they have any (StageOpt's Euclidean metric).
    reward_bound, constraint_bound : float
        ``B`` and ``G`` (bounds on ``|f|``, ``|g|`` and on the RKHS norms).
    noise_bound, constraint_noise_bound : float
        ``R`` and ``R~`` (sub-Gaussian constants of the noises).
    slater : float in (0, 1]
        Slater constant ``delta`` told to the learner (Assumption 1).
    horizon : int
    safe_seed : tuple of int
        Points known to be safe (only the safe baselines use them; CKB needs none).
    lipschitz : float or None, default None
        A declared Lipschitz constant of ``g`` in the Euclidean metric on ``points`` (StageOpt's safe
        expansion reads it when its own ``lipschitz`` option is unset; ``None``: ``G`` in the kernel
        metric, which ``||g||_k <= G`` implies).
    box : Box or None, default None
        A continuous domain (:class:`~safebandits.problems.kernel_box.Box`): decisions are points of
        the box, not indices; ``kernel`` and ``constraint_kernel`` are then
        :class:`~safebandits.estimators.gp.PointKernel` formulas evaluated anywhere, ``points`` the safe
        seed's coordinates (or ``None``) and ``safe_seed`` their indices.
    """

    kernel: FloatArray
    constraint_kernel: FloatArray
    points: FloatArray | None
    reward_bound: float
    constraint_bound: float
    noise_bound: float
    constraint_noise_bound: float
    slater: float
    horizon: int
    safe_seed: tuple[int, ...]
    lipschitz: float | None = None
    box: Any = None

    @property
    def n_points(self) -> int:
        """Points of the finite domain (on a box: of the known points ``points``, 0 without)."""
        if self.box is not None:
            return 0 if self.points is None else int(np.shape(self.points)[0])
        return int(self.kernel.shape[0])


def _same_matrix(a: Any, b: Any) -> bool:
    """Whether the constraint kernel is the reward kernel (then checked once: its check is an
    eigen-decomposition)."""
    if a is b:
        return True
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype == np.float64 and bool(np.array_equal(a, b))


@dataclass(frozen=True, kw_only=True, slots=True)
class KernelInstance(ArmSetMixin):
    """Ground truth of a constrained kernelized bandit on ``n`` points.

    Parameters
    ----------
    reward, constraint : ndarray of shape (n,)
        ``f`` and ``g`` on the domain (``g <= 0`` is feasible).
    kernel : ndarray of shape (n, n)
        ``k`` (PSD).
    constraint_kernel : ndarray of shape (n, n), optional
        ``k~`` (default ``k``).
    feedback : GaussianFeedback, BoundedFeedback or EmpiricalFeedback
    horizon : int
    points : ndarray of shape (n, d), optional
    reward_bound, constraint_bound : float, optional
        ``B`` and ``G`` told to learners (default ``max |f|`` and ``max |g|``, as in [47]).
    noise_bound, constraint_noise_bound : float, optional
        ``R`` and ``R~`` told (default: the feedback's noise scales; for bounded feedback its
        sub-Gaussian proxy ``(b - a) / 2``; for resampled data the largest per-point standard deviation).
    slater_cap : float in (0, 1], default 1
        The told Slater constant is ``min(slater_cap, -min g)`` ("WLOG delta <= 1").
    n_seed : int, default 1
        Size of the safe seed told to the baselines.
    seed_rule : {"argmin", "median"}, default "argmin"
        Which feasible points form the seed: the ``n_seed`` of smallest ``g`` (digest item 12), or the
        ``n_seed`` whose ``g`` is closest to the median ``g`` of the feasible points (for ``g = -f + h``
        the argmin of ``g`` *is* ``x*``, which would hand the baselines the answer).
    name : str
    """

    reward: FloatArray
    constraint: FloatArray
    kernel: FloatArray
    constraint_kernel: FloatArray | None = None
    feedback: GaussianFeedback | BoundedFeedback | EmpiricalFeedback = field(default_factory=GaussianFeedback)
    horizon: int = 10_000
    points: FloatArray | None = None
    reward_bound: float | None = None
    constraint_bound: float | None = None
    noise_bound: float | None = None
    constraint_noise_bound: float | None = None
    slater_cap: float = 1.0
    n_seed: int = 1
    seed_rule: Literal["argmin", "median"] = "argmin"
    name: str = "kernel"
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = "KernelInstance"
        f = check_array(self.reward, "reward", ndim=1, min_rows=1, owner=owner)
        n = f.shape[0]
        g = check_array(self.constraint, "constraint", shape=(n,), owner=owner)
        k = check_kernel_matrix(self.kernel, "kernel", owner=owner)
        if k.shape != (n, n):
            raise ConfigError(f"The 'kernel' parameter of {owner} must have shape ({n}, {n}). Got {k.shape}.")
        kg = (
            k
            if self.constraint_kernel is None or _same_matrix(self.constraint_kernel, self.kernel)
            else check_kernel_matrix(self.constraint_kernel, "constraint_kernel", owner=owner)
        )
        if kg.shape != (n, n):
            raise ConfigError(f"The 'constraint_kernel' parameter of {owner} must have shape ({n}, {n}).")
        for attr, val in (("reward", f), ("constraint", g), ("kernel", k), ("constraint_kernel", kg)):
            val.setflags(write=False)
            object.__setattr__(self, attr, val)
        if self.points is not None:
            pts = check_array(self.points, "points", ndim=2, owner=owner)
            if pts.shape[0] != n:
                raise ConfigError(
                    f"The 'points' parameter of {owner} must have {n} rows. Got {pts.shape[0]}."
                )
            object.__setattr__(self, "points", pts)
        check_int(self.horizon, "horizon", low=1, high=MAX_BUDGET, owner=owner)
        check_interval(self.slater_cap, "slater_cap", low=0.0, high=1.0, closed="right", owner=owner)
        check_int(self.n_seed, "n_seed", low=1, high=n, owner=owner)
        check_literal_fields(self, owner=owner)
        for attr in ("reward_bound", "constraint_bound", "noise_bound", "constraint_noise_bound"):
            if getattr(self, attr) is not None:
                check_positive(getattr(self, attr), attr, owner=owner)
        if not np.any(g <= 0.0):
            raise InfeasibleInstanceError(
                "No point satisfies g(x) <= 0: the constrained optimum is undefined."
            )
        if float(np.min(g)) >= 0.0:
            raise InfeasibleInstanceError(
                f"Slater's condition (Assumption 1) needs min g < 0. Got min g = {float(np.min(g)):.4g}."
            )
        if isinstance(self.feedback, BoundedFeedback):
            self.feedback.check_means(f, g)
        if isinstance(self.feedback, EmpiricalFeedback) and self.feedback.samples.shape[1] != n:
            raise ConfigError(f"Empirical feedback needs {n} columns. Got {self.feedback.samples.shape[1]}.")

    # -- tracker view (one-hot arms) ------------------------------------------------------------
    @property
    def n_points(self) -> int:
        return int(self.reward.shape[0])

    @property
    def arms(self) -> FloatArray:
        """``I_n``: the domain as one-hot rows (read-only, cached)."""
        if "arms" not in self._cache:
            eye = np.eye(self.n_points)
            eye.setflags(write=False)
            self._cache["arms"] = eye
        return self._cache["arms"]

    @property
    def reward_param(self) -> FloatArray:
        return self.reward

    @property
    def cost_params(self) -> FloatArray:
        return self.constraint[None, :]

    @property
    def threshold(self) -> FloatArray:
        return np.zeros(1)

    @property
    def safe_seed(self) -> tuple[int, ...]:
        """Strictly feasible points known to the safe baselines (see ``seed_rule``)."""
        g = self.constraint
        safe = np.flatnonzero(g < 0.0)
        if self.seed_rule == "argmin":
            key = g[safe]
        else:
            key = np.abs(g[safe] - np.median(g[safe]))
        order = safe[np.argsort(key, kind="stable")[: self.n_seed]]
        return tuple(int(i) for i in order)

    @property
    def safe_arm(self) -> int:
        return self.safe_seed[0]

    @property
    def safe_action(self) -> FloatArray:
        return self.arms[self.safe_arm]

    # -- oracles --------------------------------------------------------------------------------
    @property
    def feasible(self) -> np.ndarray:
        return self.constraint <= TOL

    @property
    def optimal_arm(self) -> int:
        """``x* = argmax_{g(x) <= 0} f(x)`` (lowest index on ties)."""
        return int(np.argmax(np.where(self.feasible, self.reward, -np.inf)))

    @property
    def optimal_value(self) -> float:
        return float(self.reward[self.optimal_arm])

    def _policy(self) -> tuple[float, FloatArray]:
        if "policy" not in self._cache:
            res = solve_policy_lp(self.reward, self.constraint[:, None], np.zeros(1))
            if res is None:  # pragma: no cover - a feasible point exists
                raise InfeasibleInstanceError("The optimal-policy LP is infeasible.")
            value, pi = res
            self._cache["policy"] = (max(value, self.optimal_value), pi)
        return self._cache["policy"]

    @property
    def optimal_policy(self) -> FloatArray:
        """``pi* = argmax_pi {E_pi f : E_pi g <= 0}``, shape (n,) (an LP; support of at most 2 points)."""
        return self._policy()[1].copy()

    @property
    def optimal_policy_value(self) -> float:
        return self._policy()[0]

    @property
    def slater_constant(self) -> float:
        """``-min_x g(x)``: the largest ``delta`` of Assumption 1 (point mass at ``argmin g``)."""
        return float(-np.min(self.constraint))

    @property
    def slater_policy(self) -> FloatArray:
        pi = np.zeros(self.n_points)
        pi[int(np.argmin(self.constraint))] = 1.0
        return pi

    # -- learner's view -------------------------------------------------------------------------
    def _told(self) -> tuple[float, float, float, float]:
        return told_bounds(self, self.reward, self.constraint)

    def public_info(self) -> KernelInfo:
        b, gb, r, rg = self._told()
        return KernelInfo(
            kernel=self.kernel,
            constraint_kernel=self.constraint_kernel,
            points=self.points,
            reward_bound=b,
            constraint_bound=gb,
            noise_bound=r,
            constraint_noise_bound=rg,
            slater=min(self.slater_cap, self.slater_constant),
            horizon=int(self.horizon),
            safe_seed=self.safe_seed,
        )

    def privileged_info(self) -> KernelInfo:
        return self.public_info()

    def with_horizon(self, horizon: int) -> KernelInstance:
        return dataclasses.replace(self, horizon=horizon)  # (a fresh _cache: init=False)

    def describe(self) -> dict[str, Any]:
        b, gb, r, rg = self._told()
        pi = self.optimal_policy
        return {
            "name": self.name,
            "n_points": self.n_points,
            "n_feasible": int(self.feasible.sum()),
            "optimal_arm": self.optimal_arm,
            "optimal_value": self.optimal_value,
            "optimal_constraint": float(self.constraint[self.optimal_arm]),
            "unconstrained_arm": int(np.argmax(self.reward)),
            "optimal_policy_support": np.flatnonzero(pi > 1e-9).tolist(),
            "optimal_policy_value": self.optimal_policy_value,
            "slater_constant": self.slater_constant,
            "told": {
                "B": b,
                "G": gb,
                "R": r,
                "R_g": rg,
                "slater": min(self.slater_cap, self.slater_constant),
            },
            "safe_seed": list(self.safe_seed),
            "feedback": self.feedback.name,
        }

    def environment(self, rng: np.random.Generator) -> KernelEnvironment:
        return KernelEnvironment(self, rng)


class KernelEnvironment(VariateStream):
    """Coupled noisy feedback ``(r_t, c_t)`` of a played point; one row of standard variates per round.

    Parameters
    ----------
    instance : KernelInstance
    rng : numpy.random.Generator
        The environment's own generator (common to every algorithm of a run key).
    """

    def __init__(self, instance: KernelInstance, rng: np.random.Generator) -> None:
        self.arms = instance.arms
        self.f = instance.reward
        self.g = instance.constraint
        self.noise = instance.feedback
        self.rng = rng
        self.n_samples = 0
        self._width = instance.feedback.width
        self._init_stream()

    @property
    def n_arms(self) -> int:
        return int(self.f.shape[0])

    def point_of(self, decision: Decision) -> FloatArray:
        return self.arms[self._arm(decision)]

    def _arm(self, decision: Decision) -> int:
        if decision.counts is not None or decision.point is not None:
            raise ConfigError("Kernel environments play one domain point (Decision.arm) per round.")
        a = decision.arm
        if a is None or not 0 <= a < self.f.shape[0]:
            raise ConfigError(f"Decision arm must be in [0, {self.f.shape[0]}). Got {a!r}.")
        return int(a)

    def pull(self, i: int) -> Observation:
        """Observe ``(r, c)`` at point ``i``."""
        r, c = self.noise.observe(self.f[i], self.g[i], i, self.next_row())
        self.n_samples += 1
        return Observation(reward=r, constraints=np.array((c,)))

    def play(self, decision: Decision) -> Observation:
        return self.pull(self._arm(decision))
