"""Rounding a design (probability weights) to integer sample counts.

Efficient rounding (Pukelsheim 2006, *Optimal Design of Experiments*, SIAM Classics, ch. 12; Pukelsheim
and Rieder 1992, Biometrika 79): with ``p`` support points and ``N`` samples,

    n_i = ceil((N - p / 2) w_i)   on the support,

then, while ``sum n_i != N``, either increase an ``n_j`` with ``n_j / w_j = min_i n_i / w_i`` or decrease an
``n_k`` with ``(n_k - 1) / w_k = max_i (n_i - 1) / w_i``. The result is the Adams apportionment: for some
divisor ``D``, ``n_i = ceil(w_i / D)``, hence ``n_i >= (N - p) w_i``. Consequently
``A(n) = sum_i n_i x_i x_i^T >= (N - p) A(w)`` and every width satisfies

    N ||x||^2_{A(n)^{-1}} <= N / (N - p) ||x||^2_{A(w)^{-1}}   (N > p),

the ``epsilon``-approximation Lindner et al. (2022, Sec. 3) require of their rounding procedure.

``rule="acol-code"`` reproduces the loop of the code released with Lindner et al. (2022), which
decreases ``argmax n_i / w_i`` and increases ``argmin (n_i - 1) / w_i`` (see ``docs/decisions/acol.md``).
"""

from __future__ import annotations

import heapq
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from safebandits._validation import check_array, check_choice, check_int
from safebandits.exceptions import ConfigError
from safebandits.types import IntArray

__all__ = ["round_design"]

_OWNER = "round_design"
#: Rounding rule of :func:`round_design` (the annotation is the one list of the accepted values).
RoundingRule = Literal["pukelsheim", "acol-code"]


def round_design(
    weights: ArrayLike,
    n_samples: int,
    *,
    rule: RoundingRule = "pukelsheim",
) -> IntArray:
    """Round a design to ``n_samples`` integer counts by efficient rounding.

    Parameters
    ----------
    weights : array-like of shape (n_arms,)
        Non-negative design weights with a positive sum (normalised here).
    n_samples : int >= 1
        Total number of samples N.
    rule : {"pukelsheim", "acol-code"}, default="pukelsheim"
        Adjustment loop: Pukelsheim's efficient rounding, or the variant of the authors' code.

    Returns
    -------
    ndarray of shape (n_arms,) and dtype int64
        Non-negative counts summing to ``n_samples``, zero off the support of ``weights``. If
        ``n_samples`` is smaller than the support size, the largest weights get the samples.

    Raises
    ------
    ConfigError
        If ``weights`` has negative or non-finite entries or a zero sum, or ``n_samples`` is not an
        integer >= 1.

    Examples
    --------
    >>> round_design([0.5, 0.25, 0.25, 0.0], 7)
    array([3, 2, 2, 0])
    >>> round_design([0.9, 0.1], 11)
    array([10,  1])
    """
    w = check_array(weights, "weights", ndim=1, min_rows=1, owner=_OWNER)
    if np.any(w < 0.0) or not w.sum() > 0.0:
        raise ConfigError(
            f"The 'weights' parameter of {_OWNER} must be non-negative with a positive sum. "
            f"Got minimum {w.min()!r} and sum {w.sum()!r} instead."
        )
    n_total = check_int(n_samples, "n_samples", low=1, owner=_OWNER)
    rule = check_choice(rule, "rule", RoundingRule, owner=_OWNER)

    support = np.flatnonzero(w > 0.0)
    ws = w[support] / w[support].sum()
    p = support.size
    counts = np.maximum(np.ceil((n_total - p / 2.0) * ws), 0.0).astype(np.int64)
    excess = int(counts.sum()) - n_total
    if excess > 0:
        _decrease(counts, ws, excess, rule)
    elif excess < 0:
        _increase(counts, ws, -excess, rule)
    out = np.zeros(w.shape[0], dtype=np.int64)
    out[support] = counts
    return out


def _decrease(counts: IntArray, ws: np.ndarray, k: int, rule: str) -> None:
    """Remove ``k`` samples one at a time, in place, from the most over-represented support point.

    Pukelsheim: largest ``(n_i - 1) / w_i``; acol-code: largest ``n_i / w_i``. Ties go to the lowest
    index. Only positive counts are decreased, so the loop ends after ``k`` removals.
    """
    offset = 1 if rule == "pukelsheim" else 0
    heap = [(-(int(c) - offset) / float(wi), i) for i, (c, wi) in enumerate(zip(counts, ws)) if c > 0]
    heapq.heapify(heap)
    for _ in range(k):
        _, i = heapq.heappop(heap)
        counts[i] -= 1
        if counts[i] > 0:
            heapq.heappush(heap, (-(int(counts[i]) - offset) / float(ws[i]), i))


def _increase(counts: IntArray, ws: np.ndarray, k: int, rule: str) -> None:
    """Add ``k`` samples one at a time, in place, to the most under-represented support point.

    Pukelsheim: smallest ``n_i / w_i``; acol-code: smallest ``(n_i - 1) / w_i``. Ties go to the larger
    weight, then to the lowest index.
    """
    offset = 0 if rule == "pukelsheim" else 1
    heap = [((int(c) - offset) / float(wi), -float(wi), i) for i, (c, wi) in enumerate(zip(counts, ws))]
    heapq.heapify(heap)
    for _ in range(k):
        _, neg_w, i = heapq.heappop(heap)
        counts[i] += 1
        heapq.heappush(heap, ((int(counts[i]) - offset) / float(ws[i]), neg_w, i))
