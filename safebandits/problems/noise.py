"""Noise models: how a noisy observation is drawn around its mean.

Each model turns a *standard variate* (drawn by the environment, one per observation) into an
observation, so that a compiled simulation loop and the ask / tell path consume the same stream.

The formula is written once, in :func:`observe_code` (by noise code): compiled loops call it (inlined),
and the models' :meth:`~GaussianNoise.observe` / :meth:`~GaussianNoise.observe_scalar` call the same
function (its Python original for one value or a row, its compiled loop :func:`observe_into` for large
arrays), so the ask / tell path and every compiled loop compute each observation with the same
operations (bit-identical).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np

from safebandits._validation import check_positive
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "NOISE_CODES",
    "BernoulliNoise",
    "BinaryNoise",
    "ClippedGaussianNoise",
    "GaussianNoise",
    "NoiseModel",
    "make_noise",
    "observe_code",
    "observe_into",
]


@numba.njit(cache=True, inline="always")
def observe_code(code: int, sigma: float, mean: float, variate: float) -> float:
    """Observation of ``mean`` from one standard variate, by noise code (compiled loops).

    ``0`` Gaussian ``mean + sigma z``; ``1`` binary ``+-1`` with ``P(+1) = (1 + mean) / 2``;
    ``2`` Bernoulli ``{0, 1}`` with ``P(1) = mean``; ``3`` Gaussian clipped to ``[0, 1]``,
    ``min(max(mean + sigma z, 0), 1)``. The one implementation of the noise formula:
    compiled loops inline it, and the models' ``observe`` / ``observe_scalar`` call it (module docstring).
    """
    if code == 0:
        return mean + sigma * variate
    if code == 1:
        return 1.0 if variate < 0.5 * (1.0 + mean) else -1.0
    if code == 3:
        return min(max(mean + sigma * variate, 0.0), 1.0)
    return 1.0 if variate < mean else 0.0


#: The Python original of :func:`observe_code` (the same formula, without a compiled call's overhead).
_observe = observe_code.py_func

#: Arrays up to this size are observed by a Python loop over :data:`_observe` (no compile, no dispatch).
_SMALL = 32


@numba.njit(cache=True)
def observe_into(code, sigma, means, variates, out):
    """``out[i] = observe_code(code, sigma, means[i], variates[i])`` for 1-D arrays (large arrays)."""
    for i in range(out.shape[0]):
        out[i] = observe_code(code, sigma, means[i], variates[i])


def _observe_array(code: int, sigma: float, means: FloatArray, variates: FloatArray) -> FloatArray:
    """:func:`observe_code` elementwise over broadcast ``means`` and ``variates`` (a new float array)."""
    m = np.asarray(means, dtype=np.float64)
    v = np.asarray(variates, dtype=np.float64)
    if code == 0:  # (Gaussian: the formula is arithmetic only, so numpy evaluates it on whole arrays)
        return np.asarray(_observe(0, sigma, m, v), dtype=np.float64)
    if code == 3:  # (the same operations as observe_code's branch, on whole arrays)
        return np.minimum(np.maximum(m + sigma * v, 0.0), 1.0)
    if m.shape != v.shape:
        m, v = np.broadcast_arrays(m, v)
    if m.size <= _SMALL:
        flat = [_observe(code, sigma, a, b) for a, b in zip(m.ravel().tolist(), v.ravel().tolist())]
        return np.array(flat, dtype=np.float64).reshape(m.shape)
    out = np.empty(m.shape)
    observe_into(
        code, sigma, np.ascontiguousarray(m).ravel(), np.ascontiguousarray(v).ravel(), out.reshape(-1)
    )
    return out


class _NormalObservations:
    """What the noise models drawn from standard normals share: ``y = observe_code(code, sigma, v, z)``."""

    __slots__ = ()
    code: int
    sigma: float

    def check_means(self, means: FloatArray) -> None:
        return None

    def observe(self, means: FloatArray, variates: FloatArray) -> FloatArray:
        """Observations of ``means`` from standard normals (elementwise :func:`observe_code`)."""
        return _observe_array(self.code, self.sigma, means, variates)

    def observe_scalar(self, mean: float, variate: float) -> float:
        """:meth:`observe` for one value, without array temporaries (hot path)."""
        return _observe(self.code, self.sigma, mean, variate)


@dataclass(frozen=True, slots=True)
class GaussianNoise(_NormalObservations):
    """Additive Gaussian noise: ``y = v + sigma * z`` with ``z ~ N(0, 1)``."""

    sigma: float = 1.0
    variate: Literal["normal"] = "normal"
    code: int = 0

    def __post_init__(self) -> None:
        check_positive(self.sigma, "sigma", owner="GaussianNoise", allow_zero=True)

    @property
    def name(self) -> str:
        return f"gaussian(sigma={self.sigma:g})"

    def sample_sums(self, means: FloatArray, counts: np.ndarray, rng: np.random.Generator) -> FloatArray:
        """Sum of ``counts[i]`` independent observations around ``means[i]`` (exact in law)."""
        z = rng.standard_normal(np.shape(means))
        c = np.asarray(counts, dtype=np.float64).reshape(np.shape(means)[:1] + (1,) * (np.ndim(means) - 1))
        return c * means + self.sigma * np.sqrt(c) * z


@dataclass(frozen=True, slots=True)
class BinaryNoise:
    """Binary feedback ``y in {-1, +1}`` with ``P(y = 1) = (1 + v) / 2`` for ``v in [-1, 1]``."""

    variate: Literal["uniform"] = "uniform"
    code: int = 1

    @property
    def name(self) -> str:
        return "binary"

    def check_means(self, means: FloatArray) -> None:
        if np.any(np.abs(means) > 1.0 + 1e-12):
            raise ConfigError(
                "Binary feedback needs every mean value in [-1, 1]; got values in "
                f"[{np.min(means):.4g}, {np.max(means):.4g}]. Normalise the instance first."
            )

    def observe(self, means: FloatArray, variates: FloatArray) -> FloatArray:
        """Observations of ``means`` from standard uniforms (elementwise :func:`observe_code`)."""
        return _observe_array(self.code, 0.0, means, variates)

    def observe_scalar(self, mean: float, variate: float) -> float:
        """:meth:`observe` for one value, without array temporaries (hot path)."""
        return _observe(self.code, 0.0, mean, variate)

    def sample_sums(self, means: FloatArray, counts: np.ndarray, rng: np.random.Generator) -> FloatArray:
        c = np.asarray(counts, dtype=np.int64).reshape(np.shape(means)[:1] + (1,) * (np.ndim(means) - 1))
        p = np.clip(0.5 * (1.0 + means), 0.0, 1.0)
        ones = rng.binomial(np.broadcast_to(c, np.shape(means)), p)
        return (2 * ones - c).astype(np.float64)


@dataclass(frozen=True, slots=True)
class BernoulliNoise:
    """Bernoulli feedback ``y in {0, 1}`` with ``P(y = 1) = v`` for means ``v in [0, 1]``."""

    variate: Literal["uniform"] = "uniform"
    code: int = 2

    @property
    def name(self) -> str:
        return "bernoulli"

    def check_means(self, means: FloatArray) -> None:
        if np.any(means < -1e-12) or np.any(means > 1.0 + 1e-12):
            raise ConfigError(
                "Bernoulli feedback needs every mean value in [0, 1]; got values in "
                f"[{np.min(means):.4g}, {np.max(means):.4g}]."
            )

    def observe(self, means: FloatArray, variates: FloatArray) -> FloatArray:
        """Observations of ``means`` from standard uniforms (elementwise :func:`observe_code`)."""
        return _observe_array(self.code, 0.0, means, variates)

    def observe_scalar(self, mean: float, variate: float) -> float:
        """:meth:`observe` for one value, without array temporaries (hot path)."""
        return _observe(self.code, 0.0, mean, variate)

    def sample_sums(self, means: FloatArray, counts: np.ndarray, rng: np.random.Generator) -> FloatArray:
        c = np.asarray(counts, dtype=np.int64).reshape(np.shape(means)[:1] + (1,) * (np.ndim(means) - 1))
        p = np.clip(means, 0.0, 1.0)
        return rng.binomial(np.broadcast_to(c, np.shape(means)), p).astype(np.float64)


@dataclass(frozen=True, slots=True)
class ClippedGaussianNoise(_NormalObservations):
    """Gaussian noise clipped to ``[0, 1]``: ``y = min(max(v + sigma z, 0), 1)``.

    The noise of the authors' code of Pacchiano et al. (``SimpleGaussianArm(mean, 0.1, truncated=True)``:
    a sample above 1 is 1, below 0 is 0). The observation's mean is then not ``v`` near 0 or 1 (a mean
    of 0 with ``sigma = 0.1`` is observed with mean about 0.04); the instance's ``v`` stays the value the
    regret is measured with, as in that code."""

    sigma: float = 0.1
    variate: Literal["normal"] = "normal"
    code: int = 3

    def __post_init__(self) -> None:
        check_positive(self.sigma, "sigma", owner="ClippedGaussianNoise", allow_zero=True)

    @property
    def name(self) -> str:
        return f"clipped-gaussian(sigma={self.sigma:g})"

    def sample_sums(self, means: FloatArray, counts: np.ndarray, rng: np.random.Generator) -> FloatArray:
        """Sum of ``counts[i]`` independent clipped observations around ``means[i]`` (drawn one by one, in
        chunks: exact in law; no closed form)."""
        m = np.asarray(means, dtype=np.float64)
        c = np.broadcast_to(
            np.asarray(counts, dtype=np.int64).reshape(m.shape[:1] + (1,) * (m.ndim - 1)), m.shape
        )
        out = np.zeros(m.shape)
        for idx in np.ndindex(m.shape):
            left = int(c[idx])
            while left > 0:
                n = min(left, 1 << 16)
                out[idx] += float(np.clip(m[idx] + self.sigma * rng.standard_normal(n), 0.0, 1.0).sum())
                left -= n
        return out


NoiseModel = GaussianNoise | BinaryNoise | BernoulliNoise | ClippedGaussianNoise

#: Noise codes understood by compiled loops: observation of mean ``v`` with standard variate ``z``.
NOISE_CODES = {"gaussian": 0, "binary": 1, "bernoulli": 2, "clipped-gaussian": 3}


def make_noise(kind: str = "gaussian", sigma: float = 1.0) -> NoiseModel:
    """Build a noise model by name: ``"gaussian"`` (with ``sigma``), ``"binary"``, ``"bernoulli"`` or
    ``"clipped-gaussian"`` (with ``sigma``)."""
    if kind == "gaussian":
        return GaussianNoise(sigma=sigma)
    if kind == "clipped-gaussian":
        return ClippedGaussianNoise(sigma=sigma)
    if kind == "binary":
        return BinaryNoise()
    if kind == "bernoulli":
        return BernoulliNoise()
    raise ConfigError(
        "The 'noise' parameter must be one of 'gaussian', 'binary', 'bernoulli', 'clipped-gaussian'. "
        f"Got {kind!r} instead."
    )
