"""Gaussian-process posteriors on a finite domain, kernels, joint posterior draws and information gain.

Zhou & Ji (NeurIPS 2022), Eqs. (3)-(4) (digest ``ckb.md`` §1.4): with a prior ``GP(0, k)`` and Gaussian
likelihood of variance ``lambda``, after observations ``(x_s, y_s)_{s <= t}``

* ``mu_t(x) = k_t(x)^T (K_t + lambda I)^{-1} Y_t``  (3)
* ``k_t(x, x') = k(x, x') - k_t(x)^T (K_t + lambda I)^{-1} k_t(x')``  (4)

On a finite domain of ``n`` points the whole posterior is a mean vector and an ``n x n`` covariance, and
each observation is an exact rank-one update (the digest's implementation note; Chowdhury & Gopalan's
``posterior_update.m``): with ``a = Sigma[:, i]`` and ``s = lambda + Sigma[i, i]``,
``mu <- mu + a (y - mu[i]) / s`` and ``Sigma <- Sigma - a a^T / s``, ``O(n^2)`` per observation
(:func:`rank_one_update`, compiled). On large domains the same posterior is kept in ``O(t n)``
(:class:`LowRankCovariance`: ``k_t = k - W_t^T W_t`` with ``W_t = L_t^{-1} K_{A_t, X}``, the incremental
Cholesky factor of ``K_t + lambda I`` applied to the ``t x n`` cross-kernel; one kernel column and one
matrix-vector product per observation), from a kernel matrix or a kernel on coordinates
(:class:`PointKernel`, no ``n x n`` matrix); :class:`FiniteGP` picks one (``posterior``).
:func:`batch_posterior` computes the same posterior in one solve from the per-point counts and sums
(repeated observations of a point are one observation of their mean with variance ``lambda / n_x``),
in a well-conditioned form; :class:`FiniteGP` can refresh itself
with it every ``refresh_every`` observations against round-off drift.

Also here: squared-exponential and Matérn kernels (:func:`se_kernel`, :func:`matern_kernel`), a check
for a given PSD matrix (:func:`check_kernel_matrix`), the kernel-induced distance, jittered joint draws
``N(mu, scale^2 Sigma)`` by Cholesky (:func:`joint_sample`, GP-TS, Definition 1), and the
information-gain proxies of ``beta_t`` (:class:`InformationGain`; digest §2.8, ambiguity 2).
"""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple, get_args

import numba
import numpy as np
from scipy.linalg import lapack, solve_triangular

from safebandits._numba import Rebinding, bind_kernel
from safebandits._validation import check_array, check_choice, check_int, check_positive
from safebandits.estimators.gp_lazy import KernelSource, LazyFactor, lazy_advance
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "DENSE_MAX_POINTS",
    "GAMMA_MODES",
    "GP_LIVE",
    "FiniteGP",
    "GPPosterior",
    "InformationGain",
    "LazyCovariance",
    "LazyGP",
    "LowRankCovariance",
    "PointKernel",
    "batch_posterior",
    "batch_rows",
    "beta_width",
    "check_kernel_matrix",
    "cholesky_jittered",
    "fit_lengthscale",
    "gp_observe",
    "greedy_information_gain",
    "joint_sample",
    "kernel_block",
    "kernel_column",
    "kernel_diagonal",
    "kernel_distance",
    "log_marginal_likelihood",
    "matern_kernel",
    "rank_one_update",
    "resolve_posterior",
    "rkhs_norms",
    "se_kernel",
]

InfoGainMode = Literal["heuristic", "greedy", "realised"]
GAMMA_MODES: tuple[str, ...] = get_args(InfoGainMode)


# --------------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------------
def _pairwise_dist(x: FloatArray, y: FloatArray | None) -> FloatArray:
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    if x.shape[0] == 1 and x.shape[1] > 1 and (y is None or np.ndim(y) == 1):
        x = x.T  # a 1-D domain given as a flat vector
    yy = x if y is None else np.atleast_2d(np.asarray(y, dtype=np.float64))
    if y is not None and yy.shape[0] == 1 and yy.shape[1] > 1 and x.shape[1] == 1:
        yy = yy.T
    if x.shape[1] != yy.shape[1]:
        raise ConfigError(f"Kernel inputs must have the same dimension. Got {x.shape[1]} and {yy.shape[1]}.")
    sq = (x * x).sum(1)[:, None] + (yy * yy).sum(1)[None, :] - 2.0 * x @ yy.T
    return np.sqrt(np.maximum(sq, 0.0))


def se_kernel(
    x: FloatArray, y: FloatArray | None = None, *, lengthscale: float = 0.2, variance: float = 1.0
) -> FloatArray:
    """Squared-exponential kernel ``variance * exp(-|x - x'|^2 / (2 l^2))`` (Chowdhury's convention).

    Parameters
    ----------
    x : ndarray of shape (n, d) or (n,)
    y : ndarray of shape (m, d) or (m,), optional
        Default ``x`` (the Gram matrix).
    lengthscale, variance : float > 0

    Returns
    -------
    ndarray of shape (n, m)
    """
    check_positive(lengthscale, "lengthscale", owner="se_kernel")
    check_positive(variance, "variance", owner="se_kernel")
    r = _pairwise_dist(x, y)
    return variance * np.exp(-0.5 * (r / lengthscale) ** 2)


def matern_kernel(
    x: FloatArray,
    y: FloatArray | None = None,
    *,
    lengthscale: float = 0.2,
    nu: float = 2.5,
    variance: float = 1.0,
) -> FloatArray:
    """Matérn kernel with ``nu`` in {1/2, 3/2, 5/2} (closed forms), ``k(x, x) = variance``.

    ``nu = 1/2``: ``exp(-r/l)``; ``3/2``: ``(1 + sqrt3 r/l) exp(-sqrt3 r/l)``; ``5/2``:
    ``(1 + sqrt5 r/l + 5 r^2 / (3 l^2)) exp(-sqrt5 r/l)``.
    """
    check_positive(lengthscale, "lengthscale", owner="matern_kernel")
    check_positive(variance, "variance", owner="matern_kernel")
    check_choice(nu, "nu", (0.5, 1.5, 2.5), owner="matern_kernel")
    r = _pairwise_dist(x, y) / lengthscale
    if nu == 0.5:
        k = np.exp(-r)
    elif nu == 1.5:
        s = math.sqrt(3.0) * r
        k = (1.0 + s) * np.exp(-s)
    else:
        s = math.sqrt(5.0) * r
        k = (1.0 + s + s * s / 3.0) * np.exp(-s)
    return variance * k


def check_kernel_matrix(
    kernel: FloatArray, name: str = "kernel", *, owner: str = "", tol: float = 1e-8
) -> FloatArray:
    """Validate a given kernel matrix: square, finite, symmetric and PSD up to ``tol`` (relative).

    Returns the symmetrised copy ``(K + K^T) / 2`` (C-contiguous float64).
    """
    k = check_array(kernel, name, ndim=2, owner=owner)
    if k.shape[0] != k.shape[1] or k.shape[0] == 0:
        raise ConfigError(f"The {name!r} parameter must be a non-empty square matrix. Got shape {k.shape}.")
    scale = max(float(np.max(np.abs(k))), 1e-300)
    if np.max(np.abs(k - k.T)) > tol * scale:
        raise ConfigError(f"The {name!r} parameter must be a symmetric matrix.")
    k = np.ascontiguousarray(0.5 * (k + k.T))
    low = float(np.linalg.eigvalsh(k)[0])
    if low < -tol * scale * k.shape[0]:
        raise ConfigError(
            f"The {name!r} parameter must be positive semi-definite. Its smallest eigenvalue is {low:.3g}."
        )
    return k


def rkhs_norms(gram: FloatArray, *values: Any) -> tuple[float, ...]:
    """``||h||_k = sqrt(h^T K^+ h)`` of each vector of ``values``: the norm of the smallest-norm function of
    the RKHS with these values on the points (``K^+`` the pseudo-inverse of the kernel matrix ``gram``).

    One least-squares factorisation for all the vectors (about ``2.5 n^3`` operations: callers check its
    cost first, :func:`safebandits._cost.solve_cost`).
    """
    k = np.asarray(gram, dtype=np.float64)
    h = np.column_stack([np.asarray(v, dtype=np.float64) for v in values])
    sol, *_ = np.linalg.lstsq(k, h, rcond=None)
    return tuple(float(math.sqrt(max(float(h[:, j] @ sol[:, j]), 0.0))) for j in range(h.shape[1]))


def kernel_distance(kernel: FloatArray) -> FloatArray:
    """Kernel-induced metric ``d(x, x') = sqrt(k(x,x) + k(x',x') - 2 k(x,x'))`` (RKHS distance of the
    feature maps), so that ``|h(x) - h(x')| <= ||h||_k d(x, x')`` for every ``h`` in the RKHS."""
    k = np.asarray(kernel, dtype=np.float64)
    d = np.diag(k)
    return np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * k, 0.0))


# --------------------------------------------------------------------------------------------------
# exact posterior updates
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def rank_one_update(mean, cov, i, y, noise_var, col):
    """Condition the posterior ``(mean, cov)`` on one observation ``y`` of point ``i`` (in place).

    ``a = cov[:, i]`` (copied into ``col``), ``s = noise_var + cov[i, i]``;
    ``mean += a (y - mean[i]) / s`` and ``cov -= a a^T / s`` (Eqs. (3)-(4) incrementally).
    Returns the prior variance ``cov[i, i]`` before the update (``sigma^2_{t-1}(x_t)``).
    """
    n = mean.shape[0]
    var = cov[i, i]
    s = noise_var + var
    r = (y - mean[i]) / s
    for k in range(n):
        col[k] = cov[k, i]
    for k in range(n):
        ak = col[k]
        mean[k] += ak * r
        c = ak / s
        for j in range(n):
            cov[k, j] -= c * col[j]
    return var


#: The scalars of a GP posterior that change: observations so far and the realised information gain
#: ``1/2 sum_s log(1 + sigma^2_{s-1}(x_s) / lambda)``. One record, written in place by :func:`gp_observe`.
GP_LIVE = np.dtype([("n_obs", np.int64), ("info_gain", np.float64)])


class GPPosterior(NamedTuple):
    """A GP posterior on ``n`` points as the compiled kernels see it (arrays written in place, never rebound).

    ``mean`` ``mu_t`` (n,), ``cov`` ``k_t`` (n, n) (shape (0, 0) for a low-rank posterior, which has no
    dense covariance), ``var`` ``sigma_t^2`` (n,) (the diagonal of ``cov``, kept by every update),
    ``counts`` / ``sums`` the observations per point and their sums (the sufficient statistics of
    :func:`batch_posterior`), ``col`` a work vector (n,), ``noise_var`` ``lambda``, ``live`` a one-element
    array of dtype :data:`GP_LIVE` (the kernels read and write its record ``live[0]``).
    """

    mean: np.ndarray
    cov: np.ndarray
    var: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    col: np.ndarray
    noise_var: float
    live: np.ndarray


@numba.njit(cache=True)
def gp_observe(gp, i, y):
    """Condition the posterior ``gp`` (:class:`GPPosterior`) on observation ``y`` of point ``i``: the
    rank-one update of Eqs. (3)-(4) (:func:`rank_one_update`) and the bookkeeping (counts, sums,
    ``n_obs``, realised information gain); returns ``sigma^2_{t-1}(x_t)``."""
    var = rank_one_update(gp.mean, gp.cov, i, y, gp.noise_var, gp.col)
    for k in range(gp.var.shape[0]):
        gp.var[k] = gp.cov[k, k]
    gp.counts[i] += 1
    gp.sums[i] += y
    live = gp.live[0]
    live.n_obs += 1
    live.info_gain += 0.5 * math.log1p(max(var, 0.0) / gp.noise_var)
    return var


def batch_rows(
    kernel: FloatArray | PointKernel, noise_var: float, counts: np.ndarray
) -> tuple[np.ndarray, FloatArray, FloatArray, FloatArray]:
    """The factors of :func:`batch_posterior` for the ``m`` visited points: ``(visited, d, L, W)`` with
    ``d = sqrt(n_A / lambda)``, ``L L^T = I + D K_AA D`` and ``W = L^{-1} D K_{A, X}`` (m, n), so that the
    posterior covariance is ``K - W^T W`` and the mean ``W^T L^{-1} D ybar_A``."""
    counts = np.asarray(counts)
    visited = np.flatnonzero(counts > 0)
    n = int(kernel.shape[0])
    if visited.size == 0:
        return visited, np.zeros(0), np.zeros((0, 0)), np.zeros((0, n))
    d = np.sqrt(counts[visited].astype(np.float64) / noise_var)
    m = np.eye(visited.size) + d[:, None] * kernel_block(kernel, visited, visited) * d[None, :]
    low = np.linalg.cholesky(m)
    if isinstance(kernel, PointKernel):
        cross = np.array([kernel_column(kernel, int(i)) for i in visited])
    else:
        cross = np.asarray(kernel)[visited, :]
    w = solve_triangular(low, d[:, None] * cross, lower=True)
    return visited, d, low, w


def log_marginal_likelihood(
    kernel: FloatArray | PointKernel, noise_var: float, counts: np.ndarray, sums: FloatArray
) -> float:
    """``log p(y)`` of the observations under ``GP(0, k)`` with noise variance ``lambda``, up to terms that
    depend on neither the kernel nor the means: the per-point means ``ybar_A`` are
    ``N(0, K_AA + diag(lambda / n_A))`` (the deviations from them depend on ``lambda`` only).
    With ``M = I + D K_AA D = L L^T``: ``-1/2 |L^{-1} D ybar|^2 ... `` in the well-conditioned form."""
    visited, d, low, _ = batch_rows_small(kernel, noise_var, counts)
    if visited.size == 0:
        return 0.0
    ybar = np.asarray(sums, dtype=np.float64)[visited] / np.asarray(counts)[visited]
    # K_AA + Lambda = D^{-1} M D^{-1}: quad = (D ybar)^T M^{-1} (D ybar), logdet = logdet M - 2 sum log d
    v = solve_triangular(low, d * ybar, lower=True)
    logdet = 2.0 * float(np.sum(np.log(np.diagonal(low)))) - 2.0 * float(np.sum(np.log(d)))
    return -0.5 * float(v @ v) - 0.5 * logdet - 0.5 * visited.size * math.log(2.0 * math.pi)


def batch_rows_small(
    kernel: FloatArray | PointKernel, noise_var: float, counts: np.ndarray
) -> tuple[np.ndarray, FloatArray, FloatArray, None]:
    """:func:`batch_rows` without the ``m x n`` rows (only ``L``): ``O(m^3)``."""
    counts = np.asarray(counts)
    visited = np.flatnonzero(counts > 0)
    if visited.size == 0:
        return visited, np.zeros(0), np.zeros((0, 0)), None
    d = np.sqrt(counts[visited].astype(np.float64) / noise_var)
    m = np.eye(visited.size) + d[:, None] * kernel_block(kernel, visited, visited) * d[None, :]
    return visited, d, np.linalg.cholesky(m), None


def fit_lengthscale(
    kernel: PointKernel,
    noise_var: float,
    data: list[tuple[np.ndarray, FloatArray]],
    *,
    bounds: tuple[float, float] | None = None,
) -> float:
    """Type-II maximum likelihood of the lengthscale of ``kernel`` (variance and ``lambda`` kept): the
    sum over ``data`` (pairs ``(counts, sums)`` of functions sharing the kernel) of
    :func:`log_marginal_likelihood`, maximised over ``log l`` by L-BFGS-B (scipy) from the current value
    and the geometric middle of ``bounds`` (default: 1e-3 to 10 times the domain's diameter)."""
    from scipy.optimize import minimize

    pts = kernel.points
    diam = float(np.max(np.ptp(pts, axis=0))) if pts.shape[0] > 1 else 1.0
    lo, hi = bounds if bounds is not None else (1e-3 * max(diam, 1e-12), 10.0 * max(diam, 1e-12))

    def nll(z: np.ndarray) -> float:
        k = PointKernel(
            pts, kernel.kind, lengthscale=float(np.exp(z[0])), variance=kernel.variance, nu=kernel.nu
        )
        try:
            return -sum(log_marginal_likelihood(k, noise_var, c, s) for c, s in data)
        except np.linalg.LinAlgError:  # pragma: no cover - M has eigenvalues >= 1
            return math.inf

    best_z, best = math.log(kernel.lengthscale), math.inf
    box = [(math.log(lo), math.log(hi))]
    for z0 in (math.log(min(max(kernel.lengthscale, lo), hi)), 0.5 * (math.log(lo) + math.log(hi))):
        res = minimize(nll, np.array([z0]), method="L-BFGS-B", bounds=box)
        if res.fun < best:
            best, best_z = float(res.fun), float(res.x[0])
    return float(math.exp(best_z))


def batch_posterior(
    kernel: FloatArray, noise_var: float, counts: np.ndarray, sums: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Exact posterior mean and covariance from per-point counts and sums of observations.

    Repeated observations of a point are one observation of their mean with noise ``lambda / n_x``, so
    with ``A`` the visited points, ``D = diag(sqrt(n_A / lambda))`` and ``M = I + D K_AA D`` (eigenvalues
    >= 1, well conditioned): ``mu = K_{:A} D M^{-1} D ybar_A`` and ``Sigma = K - W^T W`` with
    ``W = L^{-1} D K_{A:}``, ``L L^T = M``. Cost ``O(|A|^3 + n^2 |A|)``.

    Parameters
    ----------
    kernel : ndarray of shape (n, n)
    noise_var : float > 0
    counts : ndarray of shape (n,)
        Observations per point.
    sums : ndarray of shape (n,)
        Sum of the observations per point.

    Returns
    -------
    mean : ndarray of shape (n,)
    cov : ndarray of shape (n, n)
    """
    k = np.asarray(kernel, dtype=np.float64)
    counts = np.asarray(counts)
    visited = np.flatnonzero(counts > 0)
    if visited.size == 0:
        return np.zeros(k.shape[0]), k.copy()
    n_a = counts[visited].astype(np.float64)
    ybar = np.asarray(sums, dtype=np.float64)[visited] / n_a
    d = np.sqrt(n_a / noise_var)
    m = np.eye(visited.size) + d[:, None] * k[np.ix_(visited, visited)] * d[None, :]
    low = np.linalg.cholesky(m)
    w = solve_triangular(low, d[:, None] * k[visited, :], lower=True)
    v = solve_triangular(low, d * ybar, lower=True)
    mean = w.T @ v
    cov = k - w.T @ w
    return mean, cov


# --------------------------------------------------------------------------------------------------
# kernels given by their columns (no n x n matrix)
# --------------------------------------------------------------------------------------------------
KernelKind = Literal["se", "matern"]


class PointKernel:
    """A stationary kernel on ``n`` points given by their coordinates, evaluated one column at a time.

    The low-rank posterior (:class:`LowRankCovariance`) reads one column ``k(X, x_i)`` per observation
    (``O(n d)``) and the prior variances, so a domain of ``10^5`` points needs no ``n x n`` matrix.
    ``shape`` is ``(n, n)`` and :func:`numpy.asarray` materialises the matrix (``O(n^2)`` memory: only
    for code that needs it, e.g. StageOpt's kernel metric or exact joint draws).

    Parameters
    ----------
    points : ndarray of shape (n, d) or (n,)
    kind : {"se", "matern"}, default "se"
        :func:`se_kernel` or :func:`matern_kernel` (same formulas, parameters and conventions).
    lengthscale, variance : float > 0
    nu : {0.5, 1.5, 2.5}, default 2.5
        Matérn smoothness.
    """

    __slots__ = ("kind", "lengthscale", "nu", "points", "shape", "variance")

    def __init__(
        self,
        points: FloatArray,
        kind: KernelKind = "se",
        *,
        lengthscale: float = 0.2,
        variance: float = 1.0,
        nu: float = 2.5,
    ) -> None:
        pts = np.asarray(points, dtype=np.float64)
        self.points = np.ascontiguousarray(pts[:, None] if pts.ndim == 1 else pts)
        if self.points.ndim != 2 or self.points.shape[0] == 0:
            raise ConfigError(f"PointKernel needs points of shape (n, d). Got {np.shape(points)}.")
        self.kind = check_choice(kind, "kind", KernelKind, owner="PointKernel")
        self.lengthscale = check_positive(lengthscale, "lengthscale", owner="PointKernel")
        self.variance = check_positive(variance, "variance", owner="PointKernel")
        self.nu = check_choice(nu, "nu", (0.5, 1.5, 2.5), owner="PointKernel")
        n = self.points.shape[0]
        self.shape = (n, n)

    @property
    def n_points(self) -> int:
        return self.shape[0]

    def _of_distance(self, r: FloatArray) -> FloatArray:
        if self.kind == "se":
            return self.variance * np.exp(-0.5 * (r / self.lengthscale) ** 2)
        r = r / self.lengthscale
        if self.nu == 0.5:
            return self.variance * np.exp(-r)
        s = math.sqrt(3.0 if self.nu == 1.5 else 5.0) * r
        poly = 1.0 + s if self.nu == 1.5 else 1.0 + s + s * s / 3.0
        return self.variance * poly * np.exp(-s)

    def between(self, x: FloatArray, y: FloatArray) -> FloatArray:
        """``k(x, y)`` for coordinates ``x`` (m, d) and ``y`` (p, d)."""
        return self._of_distance(_pairwise_dist(x, y))

    def column(self, i: int) -> FloatArray:
        """``k(X, x_i)``, shape (n,): ``O(n d)``."""
        diff = self.points - self.points[i]
        return self._of_distance(np.sqrt(np.einsum("ij,ij->i", diff, diff)))

    def block(self, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
        """``k(X_rows, X_cols)``."""
        return self.between(self.points[rows], self.points[cols])

    def diagonal(self) -> FloatArray:
        return np.full(self.shape[0], self.variance)

    def __array__(self, dtype: Any = None, copy: Any = None) -> FloatArray:
        k = self.between(self.points, self.points)
        return k if dtype is None else k.astype(dtype)


def kernel_column(kernel: FloatArray | PointKernel, i: int) -> FloatArray:
    """Column ``i`` of a kernel given as a matrix or a :class:`PointKernel` (a view for a matrix)."""
    return kernel.column(i) if isinstance(kernel, PointKernel) else kernel[i]


def kernel_block(kernel: FloatArray | PointKernel, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
    """The submatrix ``K[rows][:, cols]`` of a kernel given as a matrix or a :class:`PointKernel`."""
    if isinstance(kernel, PointKernel):
        return kernel.block(rows, cols)
    return kernel[np.ix_(rows, cols)]


def kernel_diagonal(kernel: FloatArray | PointKernel) -> FloatArray:
    """The prior variances ``k(x, x)`` (a copy)."""
    if isinstance(kernel, PointKernel):
        return kernel.diagonal()
    return np.array(np.diagonal(kernel), dtype=np.float64)


# --------------------------------------------------------------------------------------------------
# low-rank posterior covariance: linear in the number of points
# --------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _dense_downdate(cov, var, a, s):
    """``cov -= a a^T / s`` and ``var = diag(cov)`` (in place; ``a`` is a copy of the old column)."""
    n = a.shape[0]
    for k in range(n):
        c = a[k] / s
        for j in range(n):
            cov[k, j] -= c * a[j]
        var[k] = cov[k, k]


class LowRankCovariance:
    """The posterior covariance ``k_t = k - W_t^T W_t`` kept as ``t`` rows, ``O(t n)`` per observation.

    Eq. (4) with ``W_t = L_t^{-1} K_{A_t, X}``, ``L_t L_t^T = K_t + lambda I`` (the Cholesky factor of the
    observed points' kernel, grown by one row per observation): conditioning on an observation of
    point ``i`` is the rank-one update of :func:`rank_one_update` with the column
    ``a = k_{t-1}(., x_i) = k(., x_i) - W^T W[:, i]`` (one kernel column and one matrix-vector product,
    ``O(t n)``), and the new row of ``W`` is ``a / sqrt(lambda + sigma^2_{t-1}(x_i))`` (the incremental
    Cholesky step). The variances ``sigma_t^2 = diag(k) - colsum(W^2)`` are kept as a vector. Memory
    ``O(t n)``; no ``n x n`` matrix, so the kernel may be a :class:`PointKernel`.

    Once ``t`` reaches ``n`` the rows cost as much as a dense covariance, so (if ``densify``) the
    covariance is formed once, ``K - W^T W``, and later observations are dense rank-one updates: the cost
    per observation is ``O(min(t, n) n)``.

    The covariance does not depend on the observed values, so the posteriors of ``f`` and ``g`` share one
    when they have the same kernel and ``lambda`` (:meth:`condition` answers the second asker of a round
    from a cache).
    """

    __slots__ = ("_last", "capacity", "dense", "densify", "kernel", "n_points", "noise_var", "rows",
                 "steps", "var", "w")  # fmt: skip

    def __init__(
        self,
        kernel: FloatArray | PointKernel,
        noise_var: float,
        *,
        capacity: int | None = None,
        densify: bool = True,
    ) -> None:
        self.kernel = kernel
        self.noise_var = check_positive(noise_var, "noise_var", owner="LowRankCovariance")
        self.n_points = int(kernel.shape[0])
        n = self.n_points
        cap = n if capacity is None else max(1, min(int(capacity), n))
        self.capacity = cap
        self.w = np.empty((0, n))
        self.rows = 0
        self.steps = 0
        self.var = kernel_diagonal(kernel)
        self.dense: np.ndarray | None = None
        self.densify = bool(densify)
        self._last: tuple[int, int, np.ndarray, float, float] | None = None

    def _grow(self) -> None:
        n = self.n_points
        want = min(max(2 * self.w.shape[0], 16), max(self.capacity, self.rows + 1))
        if want <= self.w.shape[0]:
            want = self.w.shape[0] + max(16, self.w.shape[0] // 2)
        grown = np.empty((want, n))
        grown[: self.rows] = self.w[: self.rows]
        self.w = grown

    def condition(self, step: int, i: int) -> tuple[FloatArray, float, float]:
        """Condition on the ``step``-th observation (0-based), at point ``i``.

        Returns ``(a, s, v)``: the old covariance column ``a = k_{step}(., x_i)``, ``s = lambda + v`` and
        the old variance ``v = sigma^2(x_i)``. A second call for the same step and point (the other
        posterior sharing this covariance) returns the cached answer.
        """
        last = self._last
        if last is not None and last[0] == step and last[1] == i:
            return last[2], last[3], last[4]
        if step != self.steps:
            raise ConfigError(
                f"A shared covariance was asked for observation {step} while at {self.steps}: the "
                "posteriors sharing it must be told the same points in the same order."
            )
        v = float(self.var[i])
        s = self.noise_var + v
        if self.dense is not None:
            a = self.dense[i].copy()
            _dense_downdate(self.dense, self.var, a, s)
        else:
            r = self.rows
            a = np.array(kernel_column(self.kernel, i), dtype=np.float64)
            if r:
                a -= self.w[:r, i] @ self.w[:r]  # k(., x_i) - W^T W[:, i]: one BLAS gemv, O(t n)
            if r >= self.w.shape[0]:
                self._grow()
            row = self.w[r]
            np.multiply(a, 1.0 / math.sqrt(s), out=row)
            self.var -= row * row
            self.rows = r + 1
            if self.densify and self.rows >= self.n_points:
                self._to_dense()
        self.steps += 1
        self._last = (step, i, a, s, v)
        return a, s, v

    def rebuild(self, kernel: FloatArray | PointKernel, noise_var: float, counts: np.ndarray) -> None:
        """Start again from the same data with a new kernel and ``lambda`` (the posterior of
        :func:`batch_posterior` in rows: ``W = L^{-1} D K_{A, X}`` over the ``m`` distinct points observed,
        ``M = I + D K_AA D = L L^T``; ``O(m^2 n)``). The variances are written in place."""
        self.kernel = kernel
        self.noise_var = check_positive(noise_var, "noise_var", owner="LowRankCovariance")
        w = batch_rows(kernel, self.noise_var, counts)[3]
        self.var[:] = kernel_diagonal(kernel) - np.einsum("ij,ij->j", w, w)
        self.dense = None
        self.w = np.empty((max(self.capacity, w.shape[0] + 1), self.n_points))
        self.w[: w.shape[0]] = w
        self.rows = w.shape[0]
        self._last = None
        if self.densify and self.rows >= self.n_points:
            self._to_dense()

    def _to_dense(self) -> None:
        w = self.w[: self.rows]
        k = np.array(self.kernel, dtype=np.float64)  # (a PointKernel materialises; n <= t here)
        cov = k - w.T @ w
        self.dense = np.ascontiguousarray(0.5 * (cov + cov.T))
        self.var[:] = np.diagonal(self.dense)  # in place: compiled callers hold this array
        self.w = np.empty((0, self.n_points))
        self.rows = 0

    def matrix(self) -> FloatArray:
        """The covariance ``k_t`` as an ``n x n`` matrix (``O(n^2 t)``; for small domains)."""
        if self.dense is not None:
            return self.dense.copy()
        w = self.w[: self.rows]
        return np.array(self.kernel, dtype=np.float64) - w.T @ w

    def block(self, idx: np.ndarray) -> FloatArray:
        """``k_t`` on the points ``idx`` (m, m): ``K_II - W_I^T W_I``, ``O(m^2 t)``."""
        idx = np.asarray(idx, dtype=np.int64)
        if self.dense is not None:
            return self.dense[np.ix_(idx, idx)]
        w = self.w[: self.rows][:, idx]
        return kernel_block(self.kernel, idx, idx) - w.T @ w

    def cross(self, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
        """``k_t`` between the points ``rows`` and ``cols`` (m, p): ``K_RC - W_R^T W_C``, ``O(m p t)``."""
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        if self.dense is not None:
            return self.dense[np.ix_(rows, cols)]
        w = self.w[: self.rows]
        return kernel_block(self.kernel, rows, cols) - w[:, rows].T @ w[:, cols]

    @property
    def nbytes(self) -> int:
        return int(self.w.nbytes + self.var.nbytes + (0 if self.dense is None else self.dense.nbytes))


PosteriorMode = Literal["auto", "dense", "lowrank"]
#: ``posterior="auto"`` keeps the dense rank-one posterior (today's, bit for bit) on domains of at most
#: this many points given as a matrix (an ``n x n`` covariance of at most 2 MB, cache-resident, updated
#: in at most about 50 µs) and the low-rank one above or for a :class:`PointKernel`.
DENSE_MAX_POINTS = 512


def resolve_posterior(mode: str, kernel: FloatArray | PointKernel) -> str:
    """``"dense"`` or ``"lowrank"`` for the ``posterior`` option ``mode`` and a kernel."""
    check_choice(mode, "posterior", PosteriorMode)
    if mode != "auto":
        if mode == "dense" and isinstance(kernel, PointKernel) and kernel.shape[0] > 20_000:
            raise ConfigError(
                f"posterior='dense' needs an n x n covariance ({kernel.shape[0]} points); use "
                "posterior='lowrank' (or 'auto')."
            )
        return mode
    if isinstance(kernel, PointKernel) or int(kernel.shape[0]) > DENSE_MAX_POINTS:
        return "lowrank"
    return "dense"


class _LiveGP(Rebinding):
    """What the finite-domain GPs (:class:`FiniteGP`, :class:`LazyGP`) share: the changing scalars of
    their state record (``state.live[0]``, a view: the kernels' writes show there)."""

    __slots__ = ()
    #: ``live`` is a view of ``state.live[0]``: a copy or a pickle leaves it out and makes it again
    #: (:class:`~safebandits._numba.Rebinding`).
    _views = ("live",)

    def _set_kernel(self, kernel: FloatArray | PointKernel, noise_var: float) -> int:
        """Store the kernel (a :class:`PointKernel` as it is, a matrix as contiguous float64) and the
        checked ``lambda``; returns the number of points."""
        self.kernel = (
            kernel if isinstance(kernel, PointKernel) else np.ascontiguousarray(kernel, dtype=np.float64)
        )
        self.noise_var = check_positive(noise_var, "noise_var", owner=type(self).__name__)
        return int(self.kernel.shape[0])

    def _make_views(self) -> None:
        self.live = self.state.live[0]

    @property
    def n_obs(self) -> int:
        return int(self.live["n_obs"])

    @property
    def info_gain(self) -> float:
        """Realised information gain ``1/2 sum_s log(1 + sigma^2_{s-1}(x_s) / lambda)`` of the data."""
        return float(self.live["info_gain"])


class FiniteGP(_LiveGP):
    """GP posterior on ``n`` points with exact rank-one updates (Eqs. (3)-(4)).

    Parameters
    ----------
    kernel : ndarray of shape (n, n) or PointKernel
        Prior covariance (a PSD matrix; see :func:`check_kernel_matrix`), or a kernel on coordinates
        (:class:`PointKernel`, columns on demand).
    noise_var : float > 0
        ``lambda``, the surrogate's noise variance (regulariser).
    refresh_every : int >= 0, default 0
        Recompute the posterior exactly with :func:`batch_posterior` every that many observations
        (0: never; dense posterior only).
    posterior : {"auto", "dense", "lowrank"}, default "auto"
        ``"dense"``: the ``n x n`` covariance with compiled rank-one updates, ``O(n^2)`` per observation
        and memory; ``"lowrank"``: :class:`LowRankCovariance`, ``O(min(t, n) n)`` per observation and
        memory; ``"auto"``: dense on at most :data:`DENSE_MAX_POINTS` points given as a matrix, else
        low-rank (:func:`resolve_posterior`). Both are the same exact posterior (equal to round-off).
    covariance : LowRankCovariance, optional
        A low-rank covariance to share (another posterior with the same kernel and ``lambda``, told the
        same points in the same order).
    capacity : int, optional
        Expected number of observations (the horizon): rows reserved by the low-rank covariance.

    Attributes
    ----------
    mean : ndarray of shape (n,)
    var : ndarray of shape (n,)
        Posterior variances (unclipped; :meth:`variance` clips).
    cov : ndarray of shape (n, n)
        The dense covariance (dense mode; the low-rank mode forms it on demand, ``O(n^2 t)``).
    counts, sums : ndarray of shape (n,)
        Observations per point and their sums (sufficient statistics of the posterior).
    state : GPPosterior
        The same arrays as one record, for compiled callers (:func:`gp_observe`, dense mode).
    live : numpy record of dtype GP_LIVE
        ``n_obs`` and ``info_gain`` (a view of ``state.live[0]``; see the properties).
    """

    __slots__ = ("_cov", "_update", "counts", "kernel", "live", "lowrank", "mean", "mode", "noise_var",
                 "refresh_every", "state", "sums")  # fmt: skip
    #: (``live``, a view of ``state.live[0]``, is made again after a copy or a pickle, as is ``_update``.)

    def __init__(
        self,
        kernel: FloatArray | PointKernel,
        noise_var: float,
        *,
        refresh_every: int = 0,
        posterior: PosteriorMode = "auto",
        covariance: LowRankCovariance | None = None,
        capacity: int | None = None,
    ) -> None:
        n = self._set_kernel(kernel, noise_var)
        self.refresh_every = check_int(refresh_every, "refresh_every", low=0, owner="FiniteGP")
        self.mode = "lowrank" if covariance is not None else resolve_posterior(posterior, self.kernel)
        self.mean = np.zeros(n)
        self.counts = np.zeros(n, dtype=np.int64)
        self.sums = np.zeros(n)
        live_block = np.zeros(1, dtype=GP_LIVE)
        if self.mode == "dense":
            self.lowrank = None
            self._cov = np.array(np.asarray(self.kernel), dtype=np.float64)
            var = np.array(np.diagonal(self._cov))
        else:
            if self.refresh_every:
                raise ConfigError("FiniteGP: refresh_every needs the dense posterior (posterior='dense').")
            if covariance is not None:
                if covariance.n_points != n or covariance.noise_var != self.noise_var or covariance.steps:
                    raise ConfigError(
                        "FiniteGP: a shared covariance must be new, on the same points, with the same lambda."
                    )
                self.lowrank = covariance
            else:
                self.lowrank = LowRankCovariance(self.kernel, self.noise_var, capacity=capacity)
            self._cov = np.empty((0, 0))
            var = self.lowrank.var
        self.state = GPPosterior(
            self.mean, self._cov, var, self.counts, self.sums, np.zeros(n if self.mode == "dense" else 0),
            float(self.noise_var), live_block,
        )  # fmt: skip
        FiniteGP._make_views(self)
        self._update = bind_kernel(gp_observe, (self.state, 0, 0.0)) if self.mode == "dense" else None

    @property
    def n_points(self) -> int:
        return self.mean.shape[0]

    @property
    def var(self) -> FloatArray:
        """Posterior variances ``sigma_t^2`` (unclipped; the array the compiled kernels read)."""
        return self.lowrank.var if self.lowrank is not None else self.state.var

    @property
    def cov(self) -> FloatArray:
        """The posterior covariance ``k_t`` (n, n): the live array (dense mode) or a new one (low-rank)."""
        return self._cov if self.lowrank is None else self.lowrank.matrix()

    def update(self, i: int, y: float) -> float:
        """Condition on observation ``y`` of point ``i``; returns ``sigma^2_{t-1}(x_t)``."""
        if self.lowrank is None:
            var = self._update(self.state, i, y)
            self.refresh_due()
            return var
        a, s, var = self.lowrank.condition(int(self.live["n_obs"]), i)
        self.mean += a * ((y - self.mean[i]) / s)
        self.counts[i] += 1
        self.sums[i] += y
        self.live["n_obs"] += 1
        self.live["info_gain"] += 0.5 * math.log1p(max(var, 0.0) / self.noise_var)
        return var

    def refresh_due(self) -> None:
        """:meth:`refresh` if the observations so far are a multiple of ``refresh_every`` (after an update
        made by a compiled caller)."""
        if self.refresh_every and int(self.live["n_obs"]) % self.refresh_every == 0:
            self.refresh()

    def refresh(self) -> None:
        """Replace the incremental posterior by the exact batch one (same data; dense mode)."""
        if self.lowrank is not None:
            raise ConfigError("FiniteGP.refresh needs the dense posterior (posterior='dense').")
        mean, cov = batch_posterior(self.kernel, self.noise_var, self.counts, self.sums)
        self.mean[:] = mean
        self._cov[:] = 0.5 * (cov + cov.T)
        self.state.var[:] = np.diagonal(self._cov)

    def variance(self) -> FloatArray:
        """Posterior variances ``sigma_t^2``, clipped at 0 against round-off."""
        return np.maximum(self.var, 0.0)

    def std(self) -> FloatArray:
        """Posterior standard deviations ``sigma_t``."""
        return np.sqrt(self.variance())

    def set_kernel(self, kernel: FloatArray | PointKernel) -> None:
        """Condition the prior ``GP(0, kernel)`` on the same data instead (new hyperparameters; the same
        ``lambda``), in place: the mean, variances (and dense covariance) arrays keep their identity, so
        compiled callers see the new posterior. The realised information gain becomes that of the data
        under the new kernel, ``1/2 log det(I + D K_AA D)``. A shared low-rank covariance is rebuilt once
        (by the first of its posteriors to be told the new kernel)."""
        visited, d, low, _ = batch_rows_small(kernel, self.noise_var, self.counts)
        if self.lowrank is None:
            self.kernel = kernel if isinstance(kernel, PointKernel) else np.ascontiguousarray(kernel)
            mean, cov = batch_posterior(np.asarray(self.kernel), self.noise_var, self.counts, self.sums)
            self.mean[:] = mean
            self._cov[:] = 0.5 * (cov + cov.T)
            self.state.var[:] = np.diagonal(self._cov)
        else:
            if self.lowrank.kernel is not kernel:
                self.lowrank.rebuild(kernel, self.noise_var, self.counts)
            self.kernel = kernel
            if visited.size:
                ybar = self.sums[visited] / self.counts[visited]
                v = solve_triangular(low, d * ybar, lower=True)
                if self.lowrank.dense is not None:
                    w = solve_triangular(
                        low, d[:, None] * kernel_block(kernel, visited, np.arange(self.n_points)), lower=True
                    )
                    self.mean[:] = w.T @ v
                else:
                    self.mean[:] = self.lowrank.w[: visited.size].T @ v
        self.live["info_gain"] = float(np.sum(np.log(np.diagonal(low)))) if visited.size else 0.0

    def cov_block(self, idx: np.ndarray) -> FloatArray:
        """The posterior covariance on the points ``idx`` (m, m), without the ``n x n`` matrix in low-rank
        mode (``O(m^2 t)``)."""
        idx = np.asarray(idx, dtype=np.int64)
        if self.lowrank is None:
            return self._cov[np.ix_(idx, idx)]
        return self.lowrank.block(idx)

    def cov_cross(self, rows: np.ndarray, cols: np.ndarray) -> FloatArray:
        """The posterior covariance ``k_t(x_r, x_c)`` between the points ``rows`` and ``cols`` (m, p),
        without the ``n x n`` matrix in low-rank mode (``O(m p t)``)."""
        if self.lowrank is None:
            return self._cov[np.ix_(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))]
        return self.lowrank.cross(rows, cols)

    def sample(
        self, rng: np.random.Generator, scale: float = 1.0, *, size: int | None = None, jitter: float = 1e-10
    ) -> FloatArray:
        """Joint draw(s) from ``N(mean, scale^2 cov)`` (see :func:`joint_sample`)."""
        return joint_sample(self.mean, self.cov, rng, scale=scale, size=size, jitter=jitter)


# --------------------------------------------------------------------------------------------------
# lazy exact posterior: each point brought up to date only when asked
# --------------------------------------------------------------------------------------------------
_NO_MATRIX = np.zeros((0, 0))
_NO_POINTS = np.zeros((0, 1))


class LazyCovariance(Rebinding):
    """The low-rank posterior of :class:`LowRankCovariance` kept point-major and brought up to date one
    point at a time, on demand (issue 33): exact, with the cost paid only for the points a caller asks.

    The same factorisation: ``k_t = k - W_t^T W_t`` with ``W_t = L_t^{-1} K_{A_t, X}`` (``L_t L_t^T = K_t +
    lambda I``, grown by one row per observation: ``L[s, :s] = W_s[:, x_s]``, ``L[s, s] = sqrt(lambda +
    sigma_s^2(x_s))``), and for every attached posterior mean ``mu_t(x) = sum_{s < t} W[s, x] z_s`` with
    ``z_s = (y_s - mu_s(x_s)) / L[s, s]``. Point ``x``'s column ``W[:, x]`` is stored contiguously
    (``wt[x]``) and is known up to row ``fresh[x]``; so are ``var[x] = sigma^2_{fresh[x]}(x)`` and the means
    ``means[j][x] = mu_{fresh[x]}(x)``. :meth:`refresh` brings points up to the current step ``t`` by
    forward substitution (rows ``fresh[x] .. t - 1``, compiled), reading only those points' columns; the
    played point is brought up to date before its row of ``L`` is taken (:meth:`condition`). Each refreshed
    point reads
    its own column and the rows of ``L`` since its last update (which stay in cache), so a round moves
    ``O(t)`` bytes per point brought up to date instead of the whole ``t x n`` factor.

    Between refreshes the change is bounded (what makes a lazy argmax exact): ``sum_{s = u}^{t-1} W[s, x]^2
    = sigma_u^2(x) - sigma_t^2(x)``, so by Cauchy-Schwarz ``|mu_t(x) - mu_u(x)| <= sqrt(sigma_u^2(x) -
    sigma_t^2(x)) ||z_{u..t-1}||``; and ``sigma_u^2(x) rho <= sigma_t^2(x) <= sigma_u^2(x)`` with ``rho =
    prod_s lambda / (lambda + sigma_s^2(x_s))`` (each observation shrinks a variance by at most that
    factor: ``k_s(x, x_s)^2 <= sigma_s^2(x) sigma_s^2(x_s)``). The prefix sums of ``z_s^2``
    (:meth:`z_squares`) and of ``log(1 + sigma_s^2(x_s) / lambda)`` (``log_shrink``) are kept.

    Memory ``O(T n + T^2)`` for a capacity of ``T`` observations (grown by doubling if exceeded).
    The compiled update is bound on the first refresh (:func:`~safebandits._numba.bind_kernel`: its
    records' types do not change) and rebound in a copy or a pickle (:class:`~safebandits._numba.
    Rebinding`).
    """

    __slots__ = ("_advance", "_cum", "_last", "_source", "_z", "capacity", "computed", "fresh", "kdiag",
                 "kernel", "log_shrink", "low", "means", "n_points", "noise_var", "played", "steps", "told",
                 "var", "wt")  # fmt: skip

    def __init__(
        self, kernel: FloatArray | PointKernel, noise_var: float, *, capacity: int | None = None
    ) -> None:
        self.kernel = kernel
        self.noise_var = check_positive(noise_var, "noise_var", owner="LazyCovariance")
        self.n_points = n = int(kernel.shape[0])
        cap = max(1, int(capacity) if capacity is not None else 64)
        self.capacity = cap
        self.wt = np.empty((n, cap))
        self.low = np.zeros((cap, cap))
        self.played = np.zeros(cap, dtype=np.int64)
        #: Prefix sums of ``log(1 + sigma_s^2(x_s) / lambda)``: every variance shrinks by at most the
        #: factor ``exp(-(log_shrink[t] - log_shrink[u]))`` from step ``u`` to ``t``.
        self.log_shrink = np.zeros(cap + 1)
        self.steps = 0
        self.fresh = np.zeros(n, dtype=np.int64)
        #: Entries of ``W`` computed so far (an eager update computes ``n`` per observation).
        self.computed = 0
        self.kdiag = kernel_diagonal(kernel)
        self.var = self.kdiag.copy()
        self.means: list[np.ndarray] = []
        self.told = np.zeros(0, dtype=np.int64)
        self._z = np.zeros((0, cap))
        self._cum = np.zeros((0, cap + 1))
        self._last: tuple[int, int, float, float] | None = None
        self._source = self._kernel_source()
        self._advance: Any = None  # (bound on the first refresh)

    def attach(self, mean: np.ndarray) -> int:
        """Register a posterior mean (n,) kept by this covariance (a new one); returns its slot."""
        if self.steps:
            raise ConfigError("LazyCovariance: attach the posteriors before the first observation.")
        self.means.append(mean)
        self.told = np.append(self.told, 0)
        self._z = np.vstack([self._z, np.zeros((1, self.capacity))])
        self._cum = np.vstack([self._cum, np.zeros((1, self.capacity + 1))])
        return len(self.means) - 1

    def z_squares(self, slot: int) -> np.ndarray:
        """Prefix sums ``sum_{s < t} z_s^2`` of the posterior in ``slot``, shape (capacity + 1,)."""
        return self._cum[slot]

    def _grow(self) -> None:
        cap, new = self.capacity, 2 * self.capacity
        wt = np.empty((self.n_points, new))
        wt[:, :cap] = self.wt
        low = np.zeros((new, new))
        low[:cap, :cap] = self.low
        self.wt, self.low = wt, low
        self.played = np.concatenate([self.played, np.zeros(cap, dtype=np.int64)])
        self.log_shrink = np.concatenate([self.log_shrink, np.zeros(cap)])
        self._z = np.hstack([self._z, np.zeros((self._z.shape[0], cap))])
        self._cum = np.hstack([self._cum, np.zeros((self._cum.shape[0], cap))])
        self.capacity = new

    def refresh(self, idx: np.ndarray) -> None:
        """Bring the points ``idx`` up to the current step (columns, variances and every attached mean):
        for each stale point ``x`` (``fresh[x] = u < t``) the rows ``s = u .. t - 1`` of its column by
        forward substitution, ``W[s, x] = (k(x_s, x) - L[s, :s] W[:s, x]) / L[s, s]`` (compiled and
        blocked, :func:`~safebandits.estimators.gp_lazy.lazy_advance`), then ``sigma^2(x) -= W[s, x]^2``
        and ``mu(x) += W[s, x] z_s``."""
        t = self.steps
        if t == 0:
            return
        if np.any(self.told != t):
            raise ConfigError("LazyCovariance: every attached posterior must be told each observation.")
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        if idx.ndim != 1 or not idx.flags.writeable:  # (the type the update is bound for)
            idx = idx.reshape(-1).copy()
        args = (LazyFactor(self.wt, self.low, self.played, self.fresh, self.var, tuple(self.means), self._z),
                self._source, idx, t)  # fmt: skip
        if self._advance is None:
            self._advance = bind_kernel(lazy_advance, args)
        self.computed += self._advance(*args)

    def _kernel_source(self) -> KernelSource:
        """The kernel as the compiled update reads it (:class:`KernelSource`)."""
        k = self.kernel
        if isinstance(k, PointKernel):
            code = 0 if k.kind == "se" else {0.5: 1, 1.5: 2, 2.5: 3}[k.nu]
            return KernelSource(_NO_MATRIX, k.points, code, float(k.lengthscale), float(k.variance))
        return KernelSource(k, _NO_POINTS, -1, 1.0, 1.0)

    def sync(self) -> None:
        """Bring every point up to date (then the arrays hold the posterior of all the data)."""
        if self.steps:
            self.refresh(np.flatnonzero(self.fresh < self.steps))

    def condition(self, step: int, i: int) -> tuple[float, float]:
        """Condition on the ``step``-th observation (0-based), at point ``i``: point ``i`` is brought up
        to date and its row of ``L`` appended. Returns ``(s, v)``: ``s = lambda + v`` and the old variance
        ``v = sigma^2(x_i)``; the caller then tells its ``z`` (:meth:`tell`). A second call for the same
        step and point (another attached posterior) returns the cached answer."""
        last = self._last
        if last is not None and last[0] == step and last[1] == i:
            return last[2], last[3]
        if step != self.steps:
            raise ConfigError(
                f"A shared covariance was asked for observation {step} while at {self.steps}: the "
                "posteriors sharing it must be told the same points in the same order."
            )
        self.refresh(np.array([i]))
        if step >= self.capacity:
            self._grow()
        v = float(self.var[i])
        s = self.noise_var + v
        self.low[step, :step] = self.wt[i, :step]
        self.low[step, step] = math.sqrt(s)
        self.played[step] = i
        self.log_shrink[step + 1] = self.log_shrink[step] + math.log1p(max(v, 0.0) / self.noise_var)
        self.steps = step + 1
        self._last = (step, i, s, v)
        return s, v

    def tell(self, slot: int, step: int, z: float) -> None:
        """Record the ``step``-th ``z_s = (y_s - mu_s(x_s)) / L[s, s]`` of the posterior in ``slot``."""
        if self.told[slot] != step:
            raise ConfigError("LazyCovariance: a posterior was told an observation out of order.")
        self._z[slot, step] = z
        self._cum[slot, step + 1] = self._cum[slot, step] + z * z
        self.told[slot] = step + 1

    def matrix(self) -> FloatArray:
        """The covariance ``k_t`` as an ``n x n`` matrix (``O(n^2 t)``; for small domains)."""
        self.sync()
        w = self.wt[:, : self.steps]
        return np.array(self.kernel, dtype=np.float64) - w @ w.T

    def block(self, idx: np.ndarray) -> FloatArray:
        """``k_t`` on the points ``idx`` (m, m), bringing only them up to date (``O(m^2 t)``)."""
        idx = np.asarray(idx, dtype=np.int64)
        self.refresh(idx)
        w = self.wt[idx, : self.steps]
        return kernel_block(self.kernel, idx, idx) - w @ w.T

    @property
    def nbytes(self) -> int:
        return int(
            self.wt.nbytes + self.low.nbytes + self.var.nbytes + self._z.nbytes + self._cum.nbytes
            + self.log_shrink.nbytes
        )  # fmt: skip


class LazyGP(_LiveGP):
    """A GP posterior on ``n`` points kept by a :class:`LazyCovariance` (the interface of
    :class:`FiniteGP` in low-rank mode): exact, each point brought up to date when it is read.

    ``mean``, ``var``, ``std()``, ``cov`` bring every point up to date first (``O(n t (t - u))`` for points
    last updated at ``u``); a lazy caller reads the stored arrays (``_mean``, ``lowrank.var``, as of
    ``lowrank.fresh``) and asks :meth:`LazyCovariance.refresh` for the points it needs.

    Parameters
    ----------
    kernel : ndarray of shape (n, n) or PointKernel
    noise_var : float > 0
    covariance : LazyCovariance, optional
        One to share (another posterior with the same kernel and ``lambda``, told the same points in the
        same order); default a new one.
    capacity : int, optional
        Expected number of observations (rows reserved).
    """

    __slots__ = ("_mean", "_slot", "counts", "kernel", "live", "lowrank", "mode", "noise_var",
                 "refresh_every", "state", "sums")  # fmt: skip

    def __init__(
        self,
        kernel: FloatArray | PointKernel,
        noise_var: float,
        *,
        covariance: LazyCovariance | None = None,
        capacity: int | None = None,
    ) -> None:
        n = self._set_kernel(kernel, noise_var)
        self.mode = "lazy"
        self.refresh_every = 0
        if covariance is not None:
            if covariance.n_points != n or covariance.noise_var != self.noise_var or covariance.steps:
                raise ConfigError(
                    "LazyGP: a shared covariance must be new, on the same points, with the same lambda."
                )
            self.lowrank = covariance
        else:
            self.lowrank = LazyCovariance(self.kernel, self.noise_var, capacity=capacity)
        self._mean = np.zeros(n)
        self._slot = self.lowrank.attach(self._mean)
        self.counts = np.zeros(n, dtype=np.int64)
        self.sums = np.zeros(n)
        self.state = GPPosterior(
            self._mean, np.empty((0, 0)), self.lowrank.var, self.counts, self.sums, np.zeros(0),
            float(self.noise_var), np.zeros(1, dtype=GP_LIVE),
        )  # fmt: skip
        LazyGP._make_views(self)

    @property
    def n_points(self) -> int:
        return self._mean.shape[0]

    @property
    def mean(self) -> FloatArray:
        """Posterior means ``mu_t`` (every point brought up to date)."""
        self.lowrank.sync()
        return self._mean

    @property
    def var(self) -> FloatArray:
        """Posterior variances ``sigma_t^2`` (every point brought up to date; unclipped)."""
        self.lowrank.sync()
        return self.lowrank.var

    @property
    def cov(self) -> FloatArray:
        return self.lowrank.matrix()

    def variance(self) -> FloatArray:
        return np.maximum(self.var, 0.0)

    def std(self) -> FloatArray:
        return np.sqrt(self.variance())

    def update(self, i: int, y: float) -> float:
        """Condition on observation ``y`` of point ``i``; returns ``sigma^2_{t-1}(x_t)``."""
        step = int(self.live["n_obs"])
        s, var = self.lowrank.condition(step, i)
        self.lowrank.tell(self._slot, step, (y - self._mean[i]) / math.sqrt(s))
        self.counts[i] += 1
        self.sums[i] += y
        self.live["n_obs"] += 1
        self.live["info_gain"] += 0.5 * math.log1p(max(var, 0.0) / self.noise_var)
        return var

    def refresh_due(self) -> None:
        """(Nothing to refresh: :class:`FiniteGP`'s periodic batch refresh is dense-only.)"""

    def set_kernel(self, kernel: FloatArray | PointKernel) -> None:
        raise ConfigError("LazyGP keeps its kernel; refitted hyperparameters need posterior 'lowrank'.")

    def cov_block(self, idx: np.ndarray) -> FloatArray:
        return self.lowrank.block(idx)

    def sample(
        self, rng: np.random.Generator, scale: float = 1.0, *, size: int | None = None, jitter: float = 1e-10
    ) -> FloatArray:
        return joint_sample(self.mean, self.cov, rng, scale=scale, size=size, jitter=jitter)


# --------------------------------------------------------------------------------------------------
# joint draws (GP-TS)
# --------------------------------------------------------------------------------------------------
def cholesky_jittered(cov: FloatArray, jitter: float = 1e-10, max_tries: int = 8) -> tuple[FloatArray, float]:
    """Lower Cholesky factor of ``cov + eps I``, with ``eps = jitter * mean(diag)`` grown tenfold until it
    succeeds; after ``max_tries`` failures the factor of the eigenvalue-clipped matrix.

    Returns
    -------
    low : ndarray of shape (n, n)
    eps : float
        Jitter used (``nan`` for the eigenvalue fallback).
    """
    scale = max(float(np.mean(np.diagonal(cov))), 1e-300)
    eps = jitter * scale
    for _ in range(max_tries):
        work = np.array(cov, dtype=np.float64, copy=True)  # symmetric: its transpose is Fortran-ordered
        np.einsum("ii->i", work)[:] += eps
        low, info = lapack.dpotrf(work.T, lower=1, overwrite_a=1, clean=1)
        if info == 0:
            return low, eps
        eps *= 10.0
    w, v = np.linalg.eigh(0.5 * (cov + cov.T))
    return v * np.sqrt(np.maximum(w, 0.0))[None, :], float("nan")  # low @ low.T = clipped cov


def joint_sample(
    mean: FloatArray,
    cov: FloatArray,
    rng: np.random.Generator,
    *,
    scale: float = 1.0,
    size: int | None = None,
    jitter: float = 1e-10,
) -> FloatArray:
    """Draw(s) from ``N(mean, scale^2 cov)`` through a jittered Cholesky factor (digest §2.3, item 17).

    Parameters
    ----------
    mean : ndarray of shape (n,)
    cov : ndarray of shape (n, n)
    rng : numpy.random.Generator
        Consumes ``n`` (or ``size * n``) standard normals.
    scale : float
        ``beta_t`` of GP-TS (the covariance is multiplied by its square).
    size : int, optional
        Number of draws (default one, returned with shape (n,)).
    jitter : float
        Relative jitter (times the mean variance) added to the diagonal before factorising.

    Returns
    -------
    ndarray of shape (n,) or (size, n)
    """
    low, _ = cholesky_jittered(cov, jitter)
    n = mean.shape[0]
    if size is None:
        return mean + scale * (low @ rng.standard_normal(n))
    z = rng.standard_normal((size, n))
    return mean[None, :] + scale * (z @ low.T)


# --------------------------------------------------------------------------------------------------
# information gain and widths
# --------------------------------------------------------------------------------------------------
def greedy_information_gain(kernel: FloatArray, noise_var: float, t_max: int) -> FloatArray:
    """Greedy (maximum-variance) estimate of the maximum information gain ``gamma_t(k, X)``.

    At each step the point of largest posterior variance is added (repeats allowed) and the gain
    ``1/2 log(1 + sigma^2 / lambda)`` accumulated; greedy selection reaches at least ``1 - 1/e`` of the
    true maximum (submodularity). Returns ``gamma[0..t_max]`` with ``gamma[0] = 0``; ``O(t_max n^2)``.
    """
    t_max = check_int(t_max, "t_max", low=0)
    gp = FiniteGP(kernel, noise_var, capacity=t_max)
    out = np.zeros(t_max + 1)
    for t in range(1, t_max + 1):
        i = int(np.argmax(gp.var))
        gp.update(i, 0.0)
        out[t] = gp.info_gain
    return out


class InformationGain:
    """``gamma_t`` for ``beta_t`` (digest §2.8, ambiguity 2), one of

    * ``"heuristic"``: ``gamma_t = log(1 + t)`` (the ``ln t`` proxy of the related code);
    * ``"greedy"``: :func:`greedy_information_gain` of the kernel (data independent; computed once up
      to the horizon, extended by doubling if needed);
    * ``"realised"``: the information gain of the data actually observed, ``FiniteGP.info_gain``.
    """

    __slots__ = ("_table", "kernel", "mode", "noise_var")

    def __init__(
        self,
        mode: InfoGainMode,
        kernel: FloatArray,
        noise_var: float,
        horizon: int,
    ) -> None:
        self.mode = check_choice(mode, "info_gain", InfoGainMode)
        self.kernel = kernel
        self.noise_var = noise_var
        self._table = greedy_information_gain(kernel, noise_var, horizon) if mode == "greedy" else None

    def __call__(self, t: int, gp: FiniteGP | None = None) -> float:
        """``gamma_t`` after ``t`` observations (``gp`` is needed in ``"realised"`` mode)."""
        if self.mode == "heuristic":
            return math.log1p(t)
        if self.mode == "realised":
            if gp is None:
                raise ConfigError("The realised information gain needs the posterior (gp=...).")
            return gp.info_gain
        if t >= self._table.shape[0]:
            self._table = greedy_information_gain(self.kernel, self.noise_var, 2 * t)
        return float(self._table[t])


def beta_width(bound: float, noise_bound: float, gamma: float, delta: float, scale: float = 1.0) -> float:
    """``beta_t = scale * (B + R sqrt(2 (gamma_{t-1} + 1 + log(2 / delta))))`` (Theorem 1; IGP-UCB [5]).

    ``delta`` is the failure probability (the digest's alpha), split between ``f`` and ``g``.
    """
    return scale * (bound + noise_bound * math.sqrt(2.0 * (gamma + 1.0 + math.log(2.0 / delta))))
