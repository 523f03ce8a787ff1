"""A GP posterior conditioned on observations at arbitrary coordinates, evaluated anywhere (continuous
domains).

Zhou & Ji (NeurIPS 2022), Eqs. (3)-(4) (digest ``ckb.md`` §1.4), the same posterior as
:class:`~safebandits.estimators.gp.FiniteGP` without a finite domain fixed in advance: after observations
``(x_s, y_s)_{s <= t}`` at any points of ``R^d``,

* ``mu_t(x) = k_t(x)^T (K_t + lambda I)^{-1} Y_t``  (3)
* ``sigma_t^2(x) = k(x, x) - |L_t^{-1} k_t(x)|^2`` with ``L_t L_t^T = K_t + lambda I``  (4)

``L_t`` is grown by one row per observation (the incremental Cholesky step of
:class:`~safebandits.estimators.gp.LowRankCovariance`: ``l = L^{-1} k_{t-1}(x_t)``, diagonal
``sqrt(lambda + sigma^2_{t-1}(x_t))``), ``O(t^2)`` per observation; evaluating ``m`` points costs
``O(m t^2)``, one point with its gradient ``O(t^2 + t d)`` (:meth:`PointsGP.at`, analytic gradients of
the squared-exponential and Matérn kernels of :class:`~safebandits.estimators.gp.PointKernel`, whose
formulas are the only ones used).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_triangular

from safebandits._validation import check_positive
from safebandits.estimators.gp import PointKernel
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = ["PointValue", "PointsGP", "kernel_gradient"]


def kernel_gradient(kernel: PointKernel, x: FloatArray, ys: FloatArray) -> FloatArray:
    """``d k(x, y_i) / d x`` for each row ``y_i`` of ``ys`` (t, d): shape (t, d).

    Squared exponential: ``-k (x - y) / l^2``; Matérn 3/2: ``-(3 / l^2) v e^{-s} (x - y)``; 5/2:
    ``-(5 / (3 l^2)) v (1 + s) e^{-s} (x - y)`` (``s = sqrt(2 nu) r / l``, ``v`` the variance); Matérn 1/2:
    ``-(v / (l r)) e^{-r/l} (x - y)`` (taken as 0 at ``r = 0``, where it is not differentiable).
    """
    diff = x[None, :] - ys
    r = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    l2 = kernel.lengthscale**2
    v = kernel.variance
    if kernel.kind == "se":
        scale = -v * np.exp(-0.5 * r * r / l2) / l2
    elif kernel.nu == 0.5:
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(r > 0.0, -v * np.exp(-r / kernel.lengthscale) / (kernel.lengthscale * r), 0.0)
    elif kernel.nu == 1.5:
        s = math.sqrt(3.0) * r / kernel.lengthscale
        scale = -(3.0 / l2) * v * np.exp(-s)
    else:
        s = math.sqrt(5.0) * r / kernel.lengthscale
        scale = -(5.0 / (3.0 * l2)) * v * (1.0 + s) * np.exp(-s)
    return scale[:, None] * diff


class PointValue(NamedTuple):
    """The posterior at one point with its gradient: ``mean``, ``sd`` (``sigma_t(x)``), ``d_mean``,
    ``d_sd`` (shape (d,); ``d_sd = 0`` where ``sigma_t(x) = 0``)."""

    mean: float
    sd: float
    d_mean: FloatArray
    d_sd: FloatArray


class PointsGP:
    """GP posterior ``GP(mu_t, k_t)`` on ``R^d`` with observations at arbitrary points (module docstring).

    Parameters
    ----------
    kernel : PointKernel
        The prior kernel (its formula and parameters; its own points are not used).
    noise_var : float > 0
        ``lambda``.
    capacity : int, optional
        Expected number of observations (rows reserved; grown by doubling beyond).

    Attributes
    ----------
    n_obs : int
    info_gain : float
        Realised information gain ``1/2 sum_s log(1 + sigma^2_{s-1}(x_s) / lambda)``.
    """

    def __init__(self, kernel: PointKernel, noise_var: float, *, capacity: int | None = None) -> None:
        if not isinstance(kernel, PointKernel):
            raise ConfigError(
                f"PointsGP needs a PointKernel (a kernel on coordinates). Got {type(kernel).__name__}."
            )
        self.kernel = kernel
        self.noise_var = check_positive(noise_var, "noise_var", owner="PointsGP")
        self.dim = int(kernel.points.shape[1])
        cap = max(16, int(capacity or 16))
        self._x = np.empty((cap, self.dim))
        self._y = np.empty(cap)
        self._low = np.zeros((cap, cap))
        self.n_obs = 0
        self.info_gain = 0.0
        self._alpha: FloatArray | None = np.zeros(0)

    # -- data ---------------------------------------------------------------------------------------
    @property
    def points(self) -> FloatArray:
        """The observed points (t, d) (a view)."""
        return self._x[: self.n_obs]

    @property
    def values(self) -> FloatArray:
        return self._y[: self.n_obs]

    def _grow(self) -> None:
        cap = 2 * self._x.shape[0]
        t = self.n_obs
        x, y, low = np.empty((cap, self.dim)), np.empty(cap), np.zeros((cap, cap))
        x[:t], y[:t], low[:t, :t] = self._x[:t], self._y[:t], self._low[:t, :t]
        self._x, self._y, self._low = x, y, low

    def _check_point(self, x: FloatArray) -> FloatArray:
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        if x.shape[0] != self.dim or not np.all(np.isfinite(x)):
            raise ConfigError(f"PointsGP: a point must be {self.dim} finite coordinates. Got {x!r}.")
        return x

    def update(self, x: FloatArray, y: float) -> float:
        """Condition on observation ``y`` at ``x`` (the incremental Cholesky step); returns
        ``sigma^2_{t-1}(x)``, the variance before the update."""
        x = self._check_point(x)
        t = self.n_obs
        if t >= self._x.shape[0]:
            self._grow()
        low = self._low[:t, :t]
        k = self.kernel.between(self._x[:t], x[None, :])[:, 0] if t else np.zeros(0)
        l_row = solve_triangular(low, k, lower=True, check_finite=False) if t else np.zeros(0)
        var = float(self.kernel.variance - l_row @ l_row)
        self._low[t, :t] = l_row
        self._low[t, t] = math.sqrt(self.noise_var + max(var, 0.0))
        self._x[t] = x
        self._y[t] = float(y)
        self.n_obs = t + 1
        self.info_gain += 0.5 * math.log1p(max(var, 0.0) / self.noise_var)
        self._alpha = None
        return var

    def _weights(self) -> FloatArray:
        """``(K_t + lambda I)^{-1} Y_t`` (two triangular solves, cached until the next observation)."""
        if self._alpha is None:
            t = self.n_obs
            low = self._low[:t, :t]
            z = solve_triangular(low, self._y[:t], lower=True, check_finite=False)
            self._alpha = solve_triangular(low, z, lower=True, trans="T", check_finite=False)
        return self._alpha

    # -- evaluation ---------------------------------------------------------------------------------
    def predict(self, xs: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Posterior means and variances (clipped at 0) at the rows of ``xs`` (m, d): ``O(m t^2)``."""
        xs = np.atleast_2d(np.asarray(xs, dtype=np.float64))
        m, t = xs.shape[0], self.n_obs
        if t == 0:
            return np.zeros(m), np.full(m, self.kernel.variance)
        kx = self.kernel.between(self._x[:t], xs)  # (t, m)
        mean = kx.T @ self._weights()
        w = solve_triangular(self._low[:t, :t], kx, lower=True, check_finite=False)
        var = self.kernel.variance - np.einsum("ij,ij->j", w, w)
        return mean, np.maximum(var, 0.0)

    def covariance(self, xs: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The posterior mean (m,) and covariance (m, m) at the rows of ``xs`` (``O(m^2 t + m t^2)``)."""
        xs = np.atleast_2d(np.asarray(xs, dtype=np.float64))
        prior = self.kernel.between(xs, xs)
        t = self.n_obs
        if t == 0:
            return np.zeros(xs.shape[0]), prior
        kx = self.kernel.between(self._x[:t], xs)
        w = solve_triangular(self._low[:t, :t], kx, lower=True, check_finite=False)
        return kx.T @ self._weights(), prior - w.T @ w

    def at(self, x: FloatArray) -> PointValue:
        """The posterior at one point with the gradients of its mean and standard deviation."""
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        t = self.n_obs
        if t == 0:
            zero = np.zeros(self.dim)
            return PointValue(0.0, math.sqrt(self.kernel.variance), zero, zero.copy())
        xs = self._x[:t]
        k = self.kernel.between(xs, x[None, :])[:, 0]
        dk = kernel_gradient(self.kernel, x, xs)  # (t, d)
        alpha = self._weights()
        low = self._low[:t, :t]
        w = solve_triangular(low, k, lower=True, check_finite=False)
        var = float(self.kernel.variance - w @ w)
        sd = math.sqrt(max(var, 0.0))
        # d var / dx = -2 k^T (K + lambda I)^{-1} dk = -2 (L^{-T} w)^T dk
        u = solve_triangular(low, w, lower=True, trans="T", check_finite=False)
        d_var = -2.0 * (u @ dk)
        d_sd = d_var / (2.0 * sd) if sd > 1e-12 else np.zeros(self.dim)
        return PointValue(float(k @ alpha), sd, alpha @ dk, d_sd)
