"""Gaussian-process posteriors on a finite domain, kernels, joint posterior draws and information gain.

Zhou & Ji (NeurIPS 2022), Eqs. (3)-(4) (digest ``ckb.md`` §1.4): with a prior ``GP(0, k)`` and Gaussian
likelihood of variance ``lambda``, after observations ``(x_s, y_s)_{s <= t}``

* ``mu_t(x) = k_t(x)^T (K_t + lambda I)^{-1} Y_t``  (3)
* ``k_t(x, x') = k(x, x') - k_t(x)^T (K_t + lambda I)^{-1} k_t(x')``  (4)

On a finite domain of ``n`` points the whole posterior is a mean vector and an ``n x n`` covariance, and
each observation is an exact rank-one update (the digest's implementation note; Chowdhury & Gopalan's
``posterior_update.m``): with ``a = Sigma[:, i]`` and ``s = lambda + Sigma[i, i]``,
``mu <- mu + a (y - mu[i]) / s`` and ``Sigma <- Sigma - a a^T / s``, ``O(n^2)`` per observation
(:func:`rank_one_update`, compiled). :func:`batch_posterior` computes the same posterior in one solve
from the per-point counts and sums (repeated observations of a point are one observation of their
mean with variance ``lambda / n_x``), in a well-conditioned form; :class:`FiniteGP` can refresh itself
with it every ``refresh_every`` observations against round-off drift.

Also here: squared-exponential and Matérn kernels (:func:`se_kernel`, :func:`matern_kernel`), a check
for a given PSD matrix (:func:`check_kernel_matrix`), the kernel-induced distance, jittered joint draws
``N(mu, scale^2 Sigma)`` by Cholesky (:func:`joint_sample`, GP-TS, Definition 1), and the
information-gain proxies of ``beta_t`` (:class:`InformationGain`; digest §2.8, ambiguity 2).
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple, get_args

import numba
import numpy as np
from scipy.linalg import lapack, solve_triangular

from safebandits._numba import Rebinding, bind_kernel
from safebandits._validation import check_array, check_choice, check_int, check_positive
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "GAMMA_MODES",
    "GP_LIVE",
    "FiniteGP",
    "GPPosterior",
    "InformationGain",
    "batch_posterior",
    "beta_width",
    "check_kernel_matrix",
    "cholesky_jittered",
    "gp_observe",
    "greedy_information_gain",
    "joint_sample",
    "kernel_distance",
    "matern_kernel",
    "rank_one_update",
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

    ``mean`` ``mu_t`` (n,), ``cov`` ``k_t`` (n, n), ``counts`` / ``sums`` the observations per point and
    their sums (the sufficient statistics of :func:`batch_posterior`), ``col`` a work vector (n,),
    ``noise_var`` ``lambda``, ``live`` a one-element array of dtype :data:`GP_LIVE` (the kernels read and
    write its record ``live[0]``).
    """

    mean: np.ndarray
    cov: np.ndarray
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
    gp.counts[i] += 1
    gp.sums[i] += y
    live = gp.live[0]
    live.n_obs += 1
    live.info_gain += 0.5 * math.log1p(max(var, 0.0) / gp.noise_var)
    return var


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


class FiniteGP(Rebinding):
    """GP posterior on ``n`` points with exact rank-one updates (Eqs. (3)-(4)).

    Parameters
    ----------
    kernel : ndarray of shape (n, n)
        Prior covariance (a PSD matrix; see :func:`check_kernel_matrix`).
    noise_var : float > 0
        ``lambda``, the surrogate's noise variance (regulariser).
    refresh_every : int >= 0, default 0
        Recompute the posterior exactly with :func:`batch_posterior` every that many observations
        (0: never).

    Attributes
    ----------
    mean : ndarray of shape (n,)
    cov : ndarray of shape (n, n)
    counts, sums : ndarray of shape (n,)
        Observations per point and their sums (sufficient statistics of the posterior).
    state : GPPosterior
        The same arrays as one record, for compiled callers (:func:`gp_observe`).
    live : numpy record of dtype GP_LIVE
        ``n_obs`` and ``info_gain`` (a view of ``state.live[0]``; see the properties).
    """

    __slots__ = ("_update", "counts", "cov", "kernel", "live", "mean", "noise_var", "refresh_every",
                 "state", "sums")  # fmt: skip
    #: ``live`` is a view of ``state.live[0]``: a copy or a pickle leaves it out and makes it again
    #: (:class:`~safebandits._numba.Rebinding`, which also binds ``_update`` again).
    _views = ("live",)

    def __init__(self, kernel: FloatArray, noise_var: float, *, refresh_every: int = 0) -> None:
        self.kernel = np.ascontiguousarray(kernel, dtype=np.float64)
        n = self.kernel.shape[0]
        self.noise_var = check_positive(noise_var, "noise_var", owner="FiniteGP")
        self.refresh_every = check_int(refresh_every, "refresh_every", low=0, owner="FiniteGP")
        self.mean = np.zeros(n)
        self.cov = self.kernel.copy()
        self.counts = np.zeros(n, dtype=np.int64)
        self.sums = np.zeros(n)
        live_block = np.zeros(1, dtype=GP_LIVE)
        self.state = GPPosterior(
            self.mean, self.cov, self.counts, self.sums, np.zeros(n), float(self.noise_var), live_block
        )
        FiniteGP._make_views(self)
        self._update = bind_kernel(gp_observe, (self.state, 0, 0.0))

    def _make_views(self) -> None:
        self.live = self.state.live[0]  # a view: the kernels' writes show here

    @property
    def n_points(self) -> int:
        return self.mean.shape[0]

    @property
    def n_obs(self) -> int:
        return int(self.live["n_obs"])

    @property
    def info_gain(self) -> float:
        """Realised information gain ``1/2 sum_s log(1 + sigma^2_{s-1}(x_s) / lambda)`` of the data."""
        return float(self.live["info_gain"])

    def update(self, i: int, y: float) -> float:
        """Condition on observation ``y`` of point ``i``; returns ``sigma^2_{t-1}(x_t)``."""
        var = self._update(self.state, i, y)
        self.refresh_due()
        return var

    def refresh_due(self) -> None:
        """:meth:`refresh` if the observations so far are a multiple of ``refresh_every`` (after an update
        made by a compiled caller)."""
        if self.refresh_every and int(self.live["n_obs"]) % self.refresh_every == 0:
            self.refresh()

    def refresh(self) -> None:
        """Replace the incremental posterior by the exact batch one (same data)."""
        mean, cov = batch_posterior(self.kernel, self.noise_var, self.counts, self.sums)
        self.mean[:] = mean
        self.cov[:] = 0.5 * (cov + cov.T)

    def variance(self) -> FloatArray:
        """Posterior variances ``sigma_t^2``, clipped at 0 against round-off."""
        return np.maximum(np.diagonal(self.cov), 0.0)

    def std(self) -> FloatArray:
        """Posterior standard deviations ``sigma_t``."""
        return np.sqrt(self.variance())

    def sample(
        self, rng: np.random.Generator, scale: float = 1.0, *, size: int | None = None, jitter: float = 1e-10
    ) -> FloatArray:
        """Joint draw(s) from ``N(mean, scale^2 cov)`` (see :func:`joint_sample`)."""
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
    gp = FiniteGP(kernel, noise_var)
    out = np.zeros(t_max + 1)
    for t in range(1, t_max + 1):
        i = int(np.argmax(np.diagonal(gp.cov)))
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
