"""The result record of the experimental designs and the shape test both solvers share.

:class:`Design` is what :func:`~safebandits.design.frank_wolfe.frank_wolfe_design` and
:func:`~safebandits.design.diagonal.diagonal_design` return; :func:`is_diagonal` is the test by which the
former hands a diagonal problem to the latter. Both live here so that neither solver imports the other
both ways (``frank_wolfe -> diagonal -> base``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from safebandits.types import FloatArray

__all__ = ["Design", "is_diagonal"]


def is_diagonal(arms: FloatArray) -> bool:
    """Whether ``arms`` is square with a non-zero diagonal and zeros elsewhere (``A`` is diagonal)."""
    n, d = arms.shape
    return n == d and bool(np.all(np.diagonal(arms) != 0.0)) and int(np.count_nonzero(arms)) == n


@dataclass(frozen=True, slots=True)
class Design:
    """Result of :func:`~safebandits.design.frank_wolfe.frank_wolfe_design` (and of its diagonal case).

    Attributes
    ----------
    weights : ndarray of shape (n_arms,)
        The design lambda, on the probability simplex (non-negative, sums to 1).
    value : float
        ``max_y w_y ||y||^2_{A(weights)^{-1}}``: the *squared* objective at ``weights``.
    n_iter : int
        Number of Frank--Wolfe steps taken.
    gap : float
        Certified upper bound on ``value - optimum`` (``stop="gap"``); ``nan`` for ``"relative-change"``.
    converged : bool
        Whether the stopping rule was met within ``max_iter`` steps.
    """

    weights: FloatArray
    value: float
    n_iter: int
    gap: float
    converged: bool
