"""Core records of a run that learners produce and the engine consumes.

They live in the core so that the layers above can share them without importing upwards: a learner's
compiled simulation returns a :class:`PlayedBlock` (read by the engine's regret loop,
:mod:`safebandits.experiments.regret_loop`), and :func:`log_grid` is the grid of rounds on which both the
regret loop and learners that keep their own curves (CKB) record them. :class:`EstimateSnapshot` is a
learner's diagnostic copy of its estimate, which the results store keeps as JSON. :class:`ArmEstimates`
is what every learner with per-arm estimates shows of them (``learner.arm_estimates()``: studies, the
dashboard). :class:`Certificate` is what a learner with a safety promise certified for the action it is
about to play (``learner.certificate()``, between ``ask`` and ``tell``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from safebandits._validation import check_int
from safebandits.types import FloatArray

__all__ = ["ArmEstimates", "Certificate", "EstimateSnapshot", "PlayedBlock", "log_grid"]


class PlayedBlock(NamedTuple):
    """Actions a learner played in consecutive rounds.

    Attributes
    ----------
    points : ndarray of shape (k, d)
        The action vectors played.
    probs : ndarray of shape (k, n_arms) or None
        The randomised policies they were drawn from (see :class:`~safebandits.types.Decision`);
        ``None`` for deterministic learners.
    means : ndarray of shape (k, d) or None
        The policies' mean actions ``x_pi`` directly (takes precedence over ``probs``).
    values : ndarray of shape (k,) or None
        The optimistic value the learner gave its choice each round (``V~r(X_t)`` or ``V~r(pi_t)``; NaN
        in rounds without one, e.g. a warm start); ``None`` for learners that do not expose it. The
        engine compares it with the optimal true value (optimism check, Lemmas 18 / 29 of Pacchiano et
        al.).
    """

    points: FloatArray
    probs: FloatArray | None = None
    means: FloatArray | None = None
    values: FloatArray | None = None


def log_grid(horizon: int, n_points: int = 200) -> np.ndarray:
    """Rounds ``1 <= t <= horizon`` roughly evenly spaced in log scale, always ending at ``horizon``."""
    horizon = check_int(horizon, "horizon", low=1)
    n_points = check_int(n_points, "n_points", low=2, high=1_000_000, owner="log_grid")
    g = np.unique(np.round(np.geomspace(1, horizon, n_points)).astype(np.int64))
    return g if g[-1] == horizon else np.append(g, horizon)


class EstimateSnapshot:
    """A copy of a linear estimate at one round: ``theta`` (d,), its Gram matrix ``a`` (d, d), ``beta``.

    A diagnostic value (e.g. Safe-LUCB's ``estimate_tprime`` / ``estimate_final``): the arrays for the
    user; :meth:`to_json` the string the results store keeps, made only when it is stored (a short
    run does not pay for printing ``d^2`` floats). Give either ``a`` or its inverse ``a_inv`` (then ``a``
    is ``numpy.linalg.inv(a_inv)``, computed on first use). Equal when their JSON is.

    Parameters
    ----------
    theta : ndarray of shape (d,)
    beta : float
    a, a_inv : ndarray of shape (d, d), optional
        Copied.
    """

    __slots__ = ("_a", "_a_inv", "beta", "theta")

    def __init__(
        self, theta: FloatArray, beta: float, *, a: FloatArray | None = None, a_inv: FloatArray | None = None
    ) -> None:
        if (a is None) == (a_inv is None):
            raise ValueError("EstimateSnapshot needs exactly one of a and a_inv.")
        self.theta = np.array(theta, dtype=np.float64)
        self.beta = float(beta)
        self._a = None if a is None else np.array(a, dtype=np.float64)
        self._a_inv = None if a_inv is None else np.array(a_inv, dtype=np.float64)

    @property
    def a(self) -> FloatArray:
        """The Gram matrix ``A``."""
        if self._a is None:
            self._a = np.linalg.inv(self._a_inv)
        return self._a

    def to_json(self) -> str:
        """``{"theta": [...], "a": [[...], ...], "beta": b}`` (:func:`json.dumps`)."""
        return json.dumps({"theta": self.theta.tolist(), "a": self.a.tolist(), "beta": self.beta})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EstimateSnapshot):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # (mutable arrays)

    def __repr__(self) -> str:
        return f"EstimateSnapshot(d={self.theta.shape[0]}, beta={self.beta!r})"


def to_stored(value: Any) -> Any:
    """``value.to_json()`` for values that define it (:class:`EstimateSnapshot`), else ``value``."""
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


@dataclass(frozen=True, eq=False)
class ArmEstimates:
    """A learner's current per-arm (or per-action) estimates with their confidence intervals.

    One column per estimated quantity (the reward, each constraint): ``estimate[a, j]`` is the learner's
    estimate of quantity ``j`` on arm ``a`` and ``[lower[a, j], upper[a, j]]`` the confidence interval it
    acts on (``nan`` estimate and infinite bounds for an arm it knows nothing about yet; a known value
    has ``lower == upper``). Built by ``learner.arm_estimates()`` (``None`` for a learner without per-arm
    estimates, or before its first estimate).

    Attributes
    ----------
    quantities : tuple of str
        Name of each column, e.g. ``("reward", "cost 1")``.
    estimate, lower, upper : ndarray of shape (K, Q)
    thresholds : tuple of (float or None)
        Per column, the bound a safe arm keeps (``upper <= threshold`` certifies it); ``None`` for a reward.
    unit : str
        What the rows are: ``"arm"``, ``"decision"`` (BESIDE's and RAGE's set Z) or ``"point"`` (a
        kernel domain).
    interval : str
        How the learner builds the interval, in its paper's terms.
    """

    quantities: tuple[str, ...]
    estimate: FloatArray
    lower: FloatArray
    upper: FloatArray
    thresholds: tuple[float | None, ...]
    unit: str = "arm"
    interval: str = ""

    def __post_init__(self) -> None:
        q = len(self.quantities)
        arrays = []
        for name in ("estimate", "lower", "upper"):
            value = np.array(getattr(self, name), dtype=np.float64)
            if value.ndim == 1:
                value = value[:, None]
            if value.ndim != 2 or value.shape[1] != q:
                raise ValueError(f"ArmEstimates.{name} must have shape (K, {q}); got {value.shape}.")
            arrays.append(value)
            object.__setattr__(self, name, value)
        if not arrays[0].shape == arrays[1].shape == arrays[2].shape:
            raise ValueError("ArmEstimates: estimate, lower and upper must have the same shape.")
        if len(self.thresholds) != q:
            raise ValueError(f"ArmEstimates.thresholds must have {q} entries; got {len(self.thresholds)}.")
        object.__setattr__(self, "quantities", tuple(map(str, self.quantities)))
        object.__setattr__(
            self, "thresholds", tuple(None if t is None else float(t) for t in self.thresholds)
        )

    @property
    def n_arms(self) -> int:
        return int(self.estimate.shape[0])

    def rows(self) -> list[dict[str, Any]]:
        """Tidy rows, one per (arm, quantity): ``{unit, "quantity", "estimate", "lower", "upper",
        "threshold"}`` (non-finite values as ``None``)."""
        out = []
        for a in range(self.n_arms):
            for j, name in enumerate(self.quantities):
                out.append(
                    {
                        self.unit: a,
                        "quantity": name,
                        "estimate": _finite(self.estimate[a, j]),
                        "lower": _finite(self.lower[a, j]),
                        "upper": _finite(self.upper[a, j]),
                        "threshold": self.thresholds[j],
                    }
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready columns: ``{"unit", "interval", "quantities", "thresholds", "estimate", "lower",
        "upper"}`` (arrays as nested lists, non-finite values as ``None``)."""
        return {
            "unit": self.unit,
            "interval": self.interval,
            "quantities": list(self.quantities),
            "thresholds": list(self.thresholds),
            **{k: _finite_lists(getattr(self, k)) for k in ("estimate", "lower", "upper")},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArmEstimates:
        """Inverse of :meth:`to_dict` (``None`` becomes ``nan`` in ``estimate``, -+inf in the bounds)."""

        def arr(key: str, fill: float) -> FloatArray:
            return np.array(
                [[fill if v is None else v for v in row] for row in data[key]], dtype=np.float64
            ).reshape(-1, len(data["quantities"]))

        return cls(
            quantities=tuple(data["quantities"]),
            estimate=arr("estimate", math.nan),
            lower=arr("lower", -math.inf),
            upper=arr("upper", math.inf),
            thresholds=tuple(data["thresholds"]),
            unit=str(data.get("unit", "arm")),
            interval=str(data.get("interval", "")),
        )

    def __repr__(self) -> str:
        return f"ArmEstimates({self.n_arms} {self.unit}s, quantities={self.quantities!r})"


def interval_estimates(
    quantities: Sequence[str],
    estimate: FloatArray,
    radius: FloatArray,
    thresholds: Sequence[float | None],
    *,
    unit: str = "arm",
    interval: str = "",
) -> ArmEstimates:
    """:class:`ArmEstimates` of ``estimate -+ radius`` (``nan`` estimates get infinite bounds)."""
    est = np.array(estimate, dtype=np.float64)
    rad = np.broadcast_to(np.asarray(radius, dtype=np.float64), est.shape)
    unknown = ~np.isfinite(est)
    lower = np.where(unknown, -np.inf, est - rad)
    upper = np.where(unknown, np.inf, est + rad)
    return ArmEstimates(tuple(quantities), est, lower, upper, tuple(thresholds), unit, interval)


def _finite(v: float) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def _finite_lists(a: FloatArray) -> list[list[float | None]]:
    return [[_finite(v) for v in row] for row in a]


#: What a :class:`Certificate` says (see its docstring).
CERTIFICATE_KINDS = ("safe-set", "upper-bound", "policy-bound")


@dataclass(frozen=True, eq=False, kw_only=True)
class Certificate:
    """What a learner certified for the decision it is about to play (issue 40).

    ``learner.certificate()`` between ``ask`` and ``tell`` (:meth:`~safebandits.algorithms.base.
    BaseLearner.certificate`), read from the state the learner decided with. Three kinds:

    * ``"safe-set"``: the action lies in a set the learner holds certified safe -- ``safe_arms``, a mask
      over the arm (or candidate) indices, and / or ``safe_points``, rows of action vectors (e.g. the
      known safe action ``x0``, a safe seed's coordinates);
    * ``"upper-bound"``: ``bound`` is the action's certified upper confidence bound on each constraint
      (``bound <= threshold`` is safe);
    * ``"policy-bound"``: ``bound`` is the certified upper bound on the expected cost of the randomised
      policy the action was drawn from (in-expectation constraints).

    A certificate holds only on the learner's own confidence event (intervals that hold, a valid
    Lipschitz constant, ...): it says what the learner relied on, not that the action is truly safe.

    Attributes
    ----------
    kind : {"safe-set", "upper-bound", "policy-bound"}
    round : int
        The round (1-based sample count) of the decision it certifies.
    basis : str
        What certifies it, in the paper's terms (e.g. ``"S_t: Lipschitz safe set"``, ``"D_t^s (eq. 8)"``,
        ``"x0 (known safe)"``).
    safe_arms : ndarray of bool, shape (n,), or None
    safe_points : ndarray of shape (k, d) or None
    bound, threshold : ndarray of shape (m,) or None
    """

    kind: str
    round: int
    basis: str
    safe_arms: np.ndarray | None = None
    safe_points: FloatArray | None = None
    bound: FloatArray | None = None
    threshold: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.kind not in CERTIFICATE_KINDS:
            raise ValueError(
                f"Certificate kind must be one of {CERTIFICATE_KINDS}. Got {self.kind!r} instead."
            )
        if self.kind == "safe-set":
            if self.safe_arms is None and self.safe_points is None:
                raise ValueError("A 'safe-set' certificate needs safe_arms or safe_points.")
        elif self.bound is None or self.threshold is None:
            raise ValueError(f"A {self.kind!r} certificate needs bound and threshold.")
        for name in ("safe_arms", "safe_points", "bound", "threshold"):
            value = getattr(self, name)
            if value is not None:
                arr = np.array(value, dtype=bool if name == "safe_arms" else np.float64, ndmin=1)
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)

    @classmethod
    def safe_action_only(cls, probs: Any, safe: int, round: int, basis: str) -> Certificate | None:
        """The certificate of a policy with all its mass on the known safe action ``safe`` (a safe set of
        that action alone), or ``None`` when the policy puts mass elsewhere."""
        others = np.array(probs, dtype=np.float64)
        others[safe] = 0.0
        if np.any(others > 0.0):
            return None
        mask = np.zeros(others.shape[0], dtype=bool)
        mask[safe] = True
        return cls(kind="safe-set", round=round, safe_arms=mask, basis=basis)

    def covers(self, decision: Any, *, rtol: float = 1e-9) -> bool:
        """Whether ``decision`` (a :class:`~safebandits.types.Decision`) lies inside this certificate:
        its arm in ``safe_arms`` or its point a row of ``safe_points`` (``"safe-set"``), or every
        ``bound <= threshold`` up to ``rtol (1 + |threshold|)`` of round-off (the other kinds: a bound
        certifies the decision it was made for; NaN never passes)."""
        if self.kind != "safe-set":
            slack = rtol * (1.0 + np.abs(self.threshold))
            return bool(np.all(self.bound <= self.threshold + slack))
        arm, point = getattr(decision, "arm", None), getattr(decision, "point", None)
        if self.safe_arms is not None and arm is not None and 0 <= int(arm) < self.safe_arms.shape[0]:
            if self.safe_arms[int(arm)]:
                return True
        if self.safe_points is not None and point is not None:
            p = np.asarray(point, dtype=np.float64).reshape(1, -1)
            rows = self.safe_points.reshape(-1, p.shape[1])
            scale = 1.0 + np.abs(rows)
            return bool(np.any(np.all(np.abs(rows - p) <= rtol * scale, axis=1)))
        return False
