"""Core records of a run that learners produce and the engine consumes.

They live in the core so that the layers above can share them without importing upwards: a learner's
compiled simulation returns a :class:`PlayedBlock` (read by the engine's regret loop,
:mod:`safebandits.experiments.regret_loop`), and :func:`log_grid` is the grid of rounds on which both the
regret loop and learners that keep their own curves (CKB) record them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from safebandits._validation import check_int
from safebandits.types import FloatArray

__all__ = ["PlayedBlock", "log_grid"]


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
