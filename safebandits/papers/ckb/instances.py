"""Instances of Zhou & Ji (NeurIPS 2022), Section 5: synthetic RKHS functions, light sensors, finance.

Every choice the paper leaves open (normalisation, noise, the sign of ``g``, the finance construction) is
recorded in ``docs/decisions/ckb.md``; the digest ``ckb.md`` §4 and §7 is the source.

* ``ckb/synthetic`` (Sec. 5.1): ``X`` = 100 evenly spaced points of [0, 1], SE kernel with lengthscale
  0.2 (``exp(-r^2 / (2 l^2))``), ``f = sum_{i<=100} a_i k(., x_i)`` with ``a_i ~ U[-1, 1]`` and centres
  drawn uniformly from ``X``; ``g`` drawn the same way, independently; both normalised by their maximum
  absolute value (``B = G = 1``); draws whose Slater constant ``-min g`` is below ``min_slater`` are
  rejected. Gaussian noise ``N(0, sigma^2)`` on both.
* ``ckb/light`` (Sec. 5.1): 41 sensors; ``f`` = mean test reading per sensor / its maximum (``B = 1``),
  ``k`` = covariance of the z-scored training readings, ``g = -f + B/2`` (the sign the digest argues
  for), Gaussian noise (default) or a resampled test reading (``noise="resample"``).
* ``ckb/finance`` (Sec. 5.2; App. D is missing): [47]'s stock-market construction: 29 stocks,
  ``f`` = mean adjusted close / its maximum, ``k`` = covariance of the z-scored prices, reward = the
  normalised price on a uniformly drawn day (heavy-tailed, ``noise="resample"``), ``g = -f + B/2`` with
  the constraint observation ``-y + B/2`` of the same draw (our assumption, flagged in the decisions).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from safebandits._validation import (
    MAX_KERNEL_POINTS,
    check_choice,
    check_int,
    check_interval,
    check_positive,
)
from safebandits.estimators.gp import matern_kernel, se_kernel
from safebandits.exceptions import InfeasibleInstanceError
from safebandits.problems.kernel import (
    EmpiricalFeedback,
    GaussianFeedback,
    KernelInstance,
    load_finance,
    load_light_sensors,
)
from safebandits.problems.registry import register_instance

__all__ = ["empirical_kernel", "finance", "light", "rkhs_function", "synthetic"]

SyntheticKernel = Literal["se", "matern12", "matern32", "matern52"]
#: Noise of the data instances: Gaussian around the mean, or a resampled recorded reading.
DataNoise = Literal["gaussian", "resample"]


def rkhs_function(kernel: np.ndarray, rng: np.random.Generator, n_centres: int) -> tuple[np.ndarray, float]:
    """``h = sum_i a_i k(., x_i)`` with ``a_i ~ U[-1, 1]`` and centres uniform on the domain (with
    replacement); returns ``h`` on the domain and its RKHS norm ``sqrt(a^T K_S a)``."""
    n = kernel.shape[0]
    centres = rng.integers(0, n, size=n_centres)
    a = rng.uniform(-1.0, 1.0, size=n_centres)
    h = kernel[:, centres] @ a
    norm = float(np.sqrt(max(a @ kernel[np.ix_(centres, centres)] @ a, 0.0)))
    return h, norm


@register_instance("ckb/synthetic", random=True)
def synthetic(
    *,
    rng: np.random.Generator,
    n_points: int = 100,
    lengthscale: float = 0.2,
    kernel: SyntheticKernel = "se",
    n_centres: int = 100,
    sigma: float = 0.1,
    normalize: bool = True,
    bound: Literal["sup", "rkhs"] = "rkhs",
    min_slater: float = 0.1,
    n_seed: int = 1,
    redraw: bool = True,
    draw_seed: int = 0,
    T: int = 10_000,
) -> KernelInstance:
    """Sec. 5.1: random RKHS f and g on n evenly spaced points of [0, 1] (SE kernel, l = 0.2).

    ``kernel`` is ``"se"`` or ``"matern12"``/``"matern32"``/``"matern52"``; ``bound="rkhs"`` (default)
    tells ``B`` and ``G`` as the RKHS norms of the draws (after normalisation): the paper's ``B`` and ``G``
    bound ``||f||_k`` and ``||g||_k`` (Assumption 2), and a draw's norm is known exactly (issue 17);
    ``"sup"`` tells ``B = max|f|`` and ``G = max|g|`` (the former default, which is no RKHS-norm bound).
    ``redraw=True`` draws ``f`` and ``g`` from ``rng`` (a new pair per trial); ``redraw=False`` draws them
    from ``default_rng(draw_seed)`` (one pair for every trial; the paper does not say which).
    """
    n = check_int(n_points, "n_points", low=2, high=MAX_KERNEL_POINTS)  # (before the n x n kernel)
    check_positive(lengthscale, "lengthscale")
    check_choice(kernel, "kernel", SyntheticKernel)
    check_choice(bound, "bound", Literal["sup", "rkhs"])
    check_interval(min_slater, "min_slater", low=0.0, high=1.0, closed="left")
    check_choice(redraw, "redraw", (True, False))
    if not redraw:
        rng = np.random.default_rng(check_int(draw_seed, "draw_seed", low=0))
    x = np.linspace(0.0, 1.0, n)[:, None]
    if kernel == "se":
        k = se_kernel(x, lengthscale=lengthscale)
    else:
        k = matern_kernel(
            x, lengthscale=lengthscale, nu={"matern12": 0.5, "matern32": 1.5, "matern52": 2.5}[kernel]
        )
    f, f_norm = rkhs_function(k, rng, check_int(n_centres, "n_centres", low=1))
    for _ in range(1000):
        g, g_norm = rkhs_function(k, rng, n_centres)
        scale_g = float(np.max(np.abs(g))) if normalize else 1.0
        if -np.min(g) / scale_g >= max(min_slater, 1e-12):
            break
    else:  # pragma: no cover - probability ~0
        raise InfeasibleInstanceError("No constraint draw met the Slater margin in 1000 tries.")
    scale_f = float(np.max(np.abs(f))) if normalize else 1.0
    f, g = f / scale_f, g / scale_g
    f_norm, g_norm = f_norm / scale_f, g_norm / scale_g
    return KernelInstance(
        reward=f,
        constraint=g,
        kernel=k,
        feedback=GaussianFeedback(sigma=check_positive(sigma, "sigma", allow_zero=True)),
        horizon=check_int(T, "T", low=1),
        points=x,
        reward_bound=float(np.max(np.abs(f))) if bound == "sup" else f_norm,
        constraint_bound=float(np.max(np.abs(g))) if bound == "sup" else g_norm,
        noise_bound=max(sigma, 1e-3),
        n_seed=check_int(n_seed, "n_seed", low=1, high=n),
        name="ckb/synthetic",
    )


def empirical_kernel(samples: np.ndarray) -> np.ndarray:
    """Covariance of the z-scored columns of ``samples`` (rows = observations): a correlation matrix
    with unit diagonal, the kernel of [5, 47] for the real-data problems."""
    z = (samples - samples.mean(axis=0)) / samples.std(axis=0, ddof=1)
    k = np.cov(z, rowvar=False)
    return 0.5 * (k + k.T)


def _data_instance(
    f_raw: np.ndarray,
    k: np.ndarray,
    samples_raw: np.ndarray,
    *,
    noise: DataNoise,
    sigma: float,
    h: float,
    normalize: bool,
    T: int,
    n_seed: int,
    seed_rule: str,
    points: np.ndarray | None,
    name: str,
) -> KernelInstance:
    check_choice(noise, "noise", DataNoise)
    check_interval(h, "h", low=0.0, high=1.0, closed="neither")
    scale = float(np.max(f_raw)) if normalize else 1.0
    f = f_raw / scale
    big_b = float(np.max(f))
    g = -f + h * big_b  # digest §4.2: g = -f + B/2 (sign restored)
    if noise == "gaussian":
        feedback = GaussianFeedback(sigma=check_positive(sigma, "sigma", allow_zero=True))
        r = max(sigma, 1e-3)
    else:
        feedback = EmpiricalFeedback(
            samples=np.ascontiguousarray(samples_raw / scale), slope=-1.0, intercept=h * big_b
        )
        r = feedback.sigmas[0]
    return KernelInstance(
        reward=f,
        constraint=g,
        kernel=k,
        feedback=feedback,
        horizon=check_int(T, "T", low=1),
        points=points,
        reward_bound=big_b,
        constraint_bound=float(np.max(np.abs(g))),
        noise_bound=r,
        constraint_noise_bound=r,
        n_seed=n_seed,
        seed_rule=seed_rule,
        name=name,
    )


@register_instance("ckb/light")
def light(
    *,
    data_dir: str | None = None,
    noise: DataNoise = "gaussian",
    sigma: float = 0.1,
    h: float = 0.5,
    normalize: bool = True,
    n_seed: int = 1,
    seed_rule: str = "median",
    T: int = 1_000,
) -> KernelInstance:
    """Sec. 5.1: 41 light sensors; f = mean test reading (normalised), k = covariance of z-scored
    training data, g = -f + h B; needs the data (``data_dir`` or ``$SAFEBANDITS_DATA``)."""
    data = load_light_sensors(data_dir)
    return _data_instance(
        data["test"].mean(axis=0),
        empirical_kernel(data["train"]),
        data["test"],
        noise=noise,
        sigma=sigma,
        h=h,
        normalize=normalize,
        T=T,
        n_seed=n_seed,
        seed_rule=seed_rule,
        points=data["coords"],
        name="ckb/light",
    )


@register_instance("ckb/finance")
def finance(
    *,
    data_dir: str | None = None,
    noise: DataNoise = "resample",
    sigma: float = 0.1,
    h: float = 0.5,
    normalize: bool = True,
    n_seed: int = 1,
    seed_rule: str = "median",
    T: int = 10_000,
) -> KernelInstance:
    """Sec. 5.2 (App. D missing; [47]'s construction): 29 stocks, f = mean price (normalised), k =
    covariance of z-scored prices, reward = price on a random day, g = -f + h B; needs the data."""
    prices, _ = load_finance(data_dir)
    return _data_instance(
        prices.mean(axis=0),
        empirical_kernel(prices),
        prices,
        noise=noise,
        sigma=sigma,
        h=h,
        normalize=normalize,
        T=T,
        n_seed=n_seed,
        seed_rule=seed_rule,
        points=None,
        name="ckb/finance",
    )
