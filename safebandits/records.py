"""Core records of a run that learners produce and the engine consumes.

They live in the core so that the layers above can share them without importing upwards: a learner's
compiled simulation returns a :class:`PlayedBlock` (read by the engine's regret loop,
:mod:`safebandits.experiments.regret_loop`), and :func:`log_grid` is the grid of rounds on which both the
regret loop and learners that keep their own curves (CKB) record them. :class:`EstimateSnapshot` is a
learner's diagnostic copy of its estimate, which the results store keeps as JSON.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import numpy as np

from safebandits._validation import check_int
from safebandits.types import FloatArray

__all__ = ["EstimateSnapshot", "PlayedBlock", "log_grid"]


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
