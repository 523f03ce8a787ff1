"""Maximise an acquisition function over a box: random candidates, then L-BFGS-B (scipy).

Zhou & Ji (NeurIPS 2022), footnote 4 (digest ``ckb.md`` §2.2): "For a continuous domain ... one can
resort to heuristic solvers (e.g., a combination of random sampling (cheap) and the L-BFGS-B
optimization method). ... the solution to the acquisition maximization problem need not be exact.
Instead, it only needs to maximize the acquisition function within C/sqrt(t) accuracy for some constant
C at each step."

:func:`maximise_on_box` does exactly that, with the accuracy ``eps_t = C / sqrt(t)`` of round ``t``
setting the solver's stopping rule (``docs/decisions/ckb.md``, "Continuous domains"):

1. ``m`` candidates drawn uniformly in the box from the caller's generator (the run stays a pure
   function of its key), plus the caller's own points (e.g. the last round's choice), all evaluated at
   once;
2. L-BFGS-B (``bounds`` = the box, analytic gradients) from the ``n_starts`` best candidates, stopped
   when a step improves the value by less than ``eps_t`` (scipy's ``ftol`` is relative to
   ``max(|f|, 1)``: it is set to ``eps_t / max(|f|, 1)``) or the projected gradient is below
   ``eps_t / diameter`` (a first-order change of at most ``eps_t`` across the box);
3. the best value found, candidates included (a local run never makes it worse).

Within the basin of the best start the local solver's answer is within the tolerance of the local
maximum; that the best basin was sampled is what the candidates make likely, not certain (the paper's
"heuristic"): :class:`BoxSearch` reports the improvement the local search made over the best candidate
each round, so a user sees when the candidates alone were far from the answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize

from safebandits._limits import MAX_BOX_CANDIDATES
from safebandits._validation import check_int, check_positive
from safebandits.types import FloatArray

__all__ = ["BoxSearch", "accuracy_target", "maximise_on_box", "uniform_in_box"]


def accuracy_target(constant: float, t: int) -> float:
    """``eps_t = C / sqrt(t)`` (footnote 4), for round ``t >= 1``."""
    return float(constant) / math.sqrt(max(int(t), 1))


def uniform_in_box(rng: np.random.Generator, lower: FloatArray, upper: FloatArray, m: int) -> FloatArray:
    """``m`` points drawn uniformly in the box ``[lower, upper]`` (m, d), from ``rng``."""
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    return lower + (upper - lower) * rng.random((int(m), lower.shape[0]))


class BoxSearch(NamedTuple):
    """The answer of :func:`maximise_on_box`.

    ``x`` the maximiser found (d,); ``value`` its value; ``candidate_value`` the best candidate's value
    (before the local search); ``evaluations`` point evaluations by L-BFGS-B; ``accuracy`` the ``eps_t``
    the solver was stopped by.
    """

    x: FloatArray
    value: float
    candidate_value: float
    evaluations: int
    accuracy: float


def maximise_on_box(
    values: Callable[[FloatArray], FloatArray],
    value_and_grad: Callable[[FloatArray], tuple[float, FloatArray]],
    lower: FloatArray,
    upper: FloatArray,
    rng: np.random.Generator,
    *,
    accuracy: float,
    n_candidates: int = 256,
    n_starts: int = 3,
    extra: FloatArray | None = None,
    max_iter: int = 100,
    tie: float | None = None,
) -> BoxSearch:
    """Maximise a function on the box ``[lower, upper]`` to within ``accuracy`` (module docstring).

    Parameters
    ----------
    values : callable
        ``(m, d) -> (m,)``: the function at many points (the candidates).
    value_and_grad : callable
        ``(d,) -> (value, gradient)``: the function and its gradient at one point (L-BFGS-B).
    lower, upper : ndarray of shape (d,)
    rng : numpy.random.Generator
        Draws the ``n_candidates`` uniform candidates (``n_candidates * d`` uniforms).
    accuracy : float > 0
        ``eps_t``: the local solver stops once a step gains less than this.
    n_candidates : int >= 1, default 256
    n_starts : int >= 0, default 3
        L-BFGS-B runs, from the best distinct candidates (0: candidates only).
    extra : ndarray of shape (k, d), optional
        Points added to the candidates (not drawn; e.g. the previous answer).
    max_iter : int, default 100
        Iterations of each L-BFGS-B run.
    tie : float in [0, 1), optional
        A uniform that picks among the candidates tied at the best value (within ``1e-12 (1 + |best|)``):
        the chosen one is the first start and the answer unless the local search improves on it (a
        truncated acquisition is flat wherever every estimate is clipped). ``None``: the first of them.
    """
    check_positive(accuracy, "accuracy", owner="maximise_on_box")
    check_int(n_candidates, "n_candidates", low=1, high=MAX_BOX_CANDIDATES, owner="maximise_on_box")
    check_int(n_starts, "n_starts", low=0, owner="maximise_on_box")
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    cands = uniform_in_box(rng, lower, upper, n_candidates)
    if extra is not None and len(extra):
        cands = np.vstack([np.clip(np.atleast_2d(extra), lower, upper), cands])
    vals = np.asarray(values(cands), dtype=np.float64)
    vals = np.where(np.isfinite(vals), vals, -np.inf)
    order = np.argsort(-vals, kind="stable")
    if tie is not None and np.isfinite(vals[order[0]]):
        top = float(vals[order[0]])
        tied = np.flatnonzero(vals >= top - 1e-12 * (1.0 + abs(top)))
        pick = int(tied[min(int(tie * tied.size), tied.size - 1)])
        order = np.concatenate([[pick], order[order != pick]])
    best_i = int(order[0])
    best_x, best_v = cands[best_i].copy(), float(vals[best_i])
    candidate_value = best_v
    bounds = list(zip(lower.tolist(), upper.tolist(), strict=True))
    diameter = float(np.linalg.norm(upper - lower))
    evaluations = 0

    def negative(x: FloatArray) -> tuple[float, FloatArray]:
        v, g = value_and_grad(x)
        return -float(v), -np.asarray(g, dtype=np.float64)

    for i in order[:n_starts]:
        if not np.isfinite(vals[i]):
            break
        ftol = accuracy / max(abs(float(vals[i])), 1.0)
        res = minimize(
            negative,
            cands[i],
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"ftol": ftol, "gtol": accuracy / max(diameter, 1e-300), "maxiter": int(max_iter)},
        )
        evaluations += int(res.nfev)
        x = np.clip(np.asarray(res.x, dtype=np.float64), lower, upper)
        v = float(values(x[None, :])[0])  # the answer's own value (the search's float noise aside)
        if v > best_v:
            best_x, best_v = x, v
    return BoxSearch(best_x, best_v, candidate_value, evaluations, float(accuracy))
