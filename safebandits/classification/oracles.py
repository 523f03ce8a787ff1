"""Risk and FDR identities, soft-label logistic ERM and the FDR-constrained ERM oracle.

Camilleri et al. (2022, Sec. 5) reduce FDR-constrained classification on a pool X to safe best-arm
identification: a classifier ``h`` is the 0/1 vector ``z_h`` over the pool, ``eta(x) = P(Y=1 | x)`` and

* risk: ``|X| R(h) = 1^T eta + z_h^T (1 - 2 eta)`` (printed as ``z_h^T (2 eta - 1)``, a typo: see
  ``docs/decisions/beside.md``), so minimising the risk is maximising ``z_h^T (2 eta - 1)``;
* ``FDR(h) = (1 - eta)^T z_h / 1^T z_h`` (0 for a classifier without positives), and
  ``FDR(h) <= q  <=>  ((1 - eta) - q 1)^T z_h <= 0``: a linear constraint with ``mu = (1 - eta) - q 1``
  and threshold ``gamma = 0``.

The constrained ERM oracle (CERM) of Algorithm 2 returns the most accurate classifier with empirical
FDR at most ``q``. The paper leaves the oracle open (App. F is unavailable); here it is a *scored
threshold rule*: a score ``s(x)`` (a logistic regression) and the threshold ``t`` maximising the
empirical accuracy ``sum_t z_t (2 y_t - 1)`` subject to ``sum_t z_t ((1 - y_t) - q) <= 0``, over all
cuts of the sorted scores (exact, ``O(n log n)``); if no cut with a positive prediction is feasible it
predicts no positive (FDR 0). Labels may be soft (``y in [0, 1]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.special import expit, log1p

from safebandits._validation import check_array
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "ClassifierMetrics",
    "LogisticModel",
    "classifier_metrics",
    "fdr",
    "fdr_constraint_vector",
    "fit_logistic",
    "risk",
    "threshold_cerm",
]


def risk(z: ArrayLike, eta: ArrayLike) -> float:
    """Pool risk ``R(h) = (1^T eta + z^T (1 - 2 eta)) / |X|`` of the 0/1 classifier ``z``."""
    z, eta = np.asarray(z, dtype=float), np.asarray(eta, dtype=float)
    return float((eta.sum() + z @ (1.0 - 2.0 * eta)) / eta.shape[0])


def fdr(z: ArrayLike, eta: ArrayLike) -> float:
    """``FDR(h) = (1 - eta)^T z / 1^T z`` (0 when ``z`` has no positive)."""
    z, eta = np.asarray(z, dtype=float), np.asarray(eta, dtype=float)
    n_pos = z.sum()
    return float((1.0 - eta) @ z / n_pos) if n_pos > 0 else 0.0


def fdr_constraint_vector(eta: ArrayLike, q: float) -> FloatArray:
    """``mu = (1 - eta) - q 1``: ``FDR(h) <= q`` iff ``mu^T z_h <= 0`` (the safety constraint, gamma = 0)."""
    return 1.0 - np.asarray(eta, dtype=float) - q


@dataclass(frozen=True, slots=True)
class ClassifierMetrics:
    """Pool metrics against ``eta``: accuracy ``1 - R``, FDR, precision ``1 - FDR``, recall."""

    accuracy: float
    fdr: float
    precision: float
    recall: float
    n_positive: int


def classifier_metrics(z: ArrayLike, eta: ArrayLike) -> ClassifierMetrics:
    """Accuracy, FDR, precision (1 for no positive) and recall (``z^T eta / 1^T eta``) on the pool."""
    z, eta = np.asarray(z, dtype=float), np.asarray(eta, dtype=float)
    f = fdr(z, eta)
    total = eta.sum()
    recall = float(z @ eta / total) if total > 0 else 0.0
    return ClassifierMetrics(
        accuracy=1.0 - risk(z, eta), fdr=f, precision=1.0 - f, recall=recall, n_positive=int(z.sum())
    )


# --------------------------------------------------------------------------------------------------
# logistic ERM with real-valued labels
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LogisticModel:
    """Linear score ``s(x) = x^T coef + intercept``; ``P(Y = 1 | x) = sigmoid(s(x))``."""

    coef: FloatArray
    intercept: float

    def scores(self, x: FloatArray) -> FloatArray:
        return x @ self.coef + self.intercept

    @property
    def params(self) -> FloatArray:
        return np.append(self.coef, self.intercept)


def fit_logistic(
    x: ArrayLike,
    y: ArrayLike,
    *,
    alpha: float = 1.0,
    init: FloatArray | None = None,
) -> LogisticModel:
    """Ridge-penalised logistic regression on real-valued labels (Algorithm 2's ERM).

    Minimises ``sum_t [log(1 + exp(s_t)) - y_t s_t] + (alpha / 2) ||(coef, intercept)||^2``. The
    cross-entropy is linear in ``y``, so it is convex for any real labels (the perturbed labels
    ``y + N(0, sigma^2)`` of Algorithm 2 leave ``[0, 1]``); the penalty keeps it bounded below.

    Parameters
    ----------
    x : array-like of shape (n, d)
    y : array-like of shape (n,)
        Real-valued labels.
    alpha : float > 0, default=1.0
        Ridge penalty (the intercept is penalised too, so the problem is strictly convex).
    init : ndarray of shape (d + 1,), optional
        Warm start ``(coef, intercept)``.
    """
    x = check_array(x, "x", ndim=2, min_rows=1, owner="fit_logistic")
    y = check_array(y, "y", shape=(x.shape[0],), owner="fit_logistic")
    if not alpha > 0.0:
        raise ConfigError(f"The 'alpha' parameter of fit_logistic must be positive. Got {alpha!r} instead.")
    xa = np.hstack([x, np.ones((x.shape[0], 1))])

    def objective(w: FloatArray) -> tuple[float, FloatArray]:
        s = xa @ w
        # log(1 + e^s) computed stably
        loss = np.where(s > 0, s + log1p(np.exp(-np.abs(s))), log1p(np.exp(-np.abs(s))))
        value = float(loss.sum() - y @ s + 0.5 * alpha * (w @ w))
        grad = xa.T @ (expit(s) - y) + alpha * w
        return value, grad

    w0 = np.zeros(xa.shape[1]) if init is None else np.asarray(init, dtype=float)
    res = minimize(objective, w0, jac=True, method="L-BFGS-B", options={"maxiter": 500, "gtol": 1e-6})
    return LogisticModel(coef=res.x[:-1].copy(), intercept=float(res.x[-1]))


# --------------------------------------------------------------------------------------------------
# the constrained ERM oracle: best threshold of a score under an FDR constraint
# --------------------------------------------------------------------------------------------------
def threshold_cerm(scores: ArrayLike, labels: ArrayLike, q: float) -> float:
    """Threshold ``t`` of the most accurate rule ``1{score >= t}`` with empirical FDR at most ``q``.

    Parameters
    ----------
    scores : array-like of shape (n,)
    labels : array-like of shape (n,)
        Labels in ``[0, 1]`` (0/1 or soft ``eta``).
    q : float in [0, 1]
        FDR level.

    Returns
    -------
    float
        The threshold: the smallest score predicted positive, or ``inf`` (no positive) when no cut
        with a positive prediction is feasible or none beats predicting no positive. Only cuts between
        distinct scores are considered, so tied points get the same prediction.

    Examples
    --------
    >>> threshold_cerm([0.9, 0.8, 0.7, 0.1], [1, 1, 0, 0], q=0.2)
    0.8
    >>> threshold_cerm([0.9, 0.8], [0, 1], q=0.2)
    inf
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    if s.shape != y.shape or s.ndim != 1:
        raise ConfigError(
            f"'scores' and 'labels' must be 1-D of the same shape. Got {s.shape} and {y.shape}."
        )
    order = np.argsort(-s, kind="stable")
    s_sorted, y_sorted = s[order], y[order]
    gain = np.cumsum(2.0 * y_sorted - 1.0)  # accuracy gain of predicting the top k positive (k = 1..n)
    excess = np.cumsum((1.0 - y_sorted) - q)  # FDR <= q  <=>  excess <= 0
    cut = np.ones(s.shape[0], dtype=bool)
    cut[:-1] = s_sorted[1:] < s_sorted[:-1]  # a cut after position k separates distinct scores
    ok = cut & (excess <= 1e-12) & (gain > 0.0)
    if not np.any(ok):
        return math.inf
    k = int(np.argmax(np.where(ok, gain, -np.inf)))
    return float(s_sorted[k])
