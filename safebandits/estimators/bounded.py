"""Confidence bounds on the mean of a bounded outcome, per action (issue 45, item 1).

A finite-action learner that observes Bernoulli (or ``[a, b]``-bounded) outcomes knows more than
"sub-Gaussian with proxy ``(b - a) / 2``": it knows the range. Three bounds, one-sided, each on the mean
``p`` of ``n`` independent outcomes with empirical mean ``p_hat`` and error probability ``delta``
(``level = log(1 / delta)``):

``"sub-gaussian"``
    Hoeffding (1963, Thm. 2), the width the library used for Bernoulli feedback so far:
    ``p <= p_hat + sqrt(level / (2 n))`` (sub-Gaussian proxy ``1/2`` on ``[0, 1]``). Valid for any
    ``[0, 1]``-bounded outcome.
``"kl"``
    Chernoff-Hoeffding in KL form (Hoeffding 1963, Thm. 1; Garivier & Cappe 2011, kl-UCB):
    ``p <= max{q >= p_hat : n kl(p_hat, q) <= level}`` with ``kl`` the Bernoulli relative entropy (and the
    mirror image for the lower bound). Valid for any ``[0, 1]``-bounded outcome: among variables with
    mean ``q`` on ``[0, 1]`` the Bernoulli has the largest moment generating function (convexity,
    Hoeffding 1963, Sec. 4), so the Bernoulli tail bound holds for all of them. Never wider than
    ``"sub-gaussian"`` (Pinsker: ``kl(p, q) >= 2 (p - q)^2``).
``"clopper-pearson"``
    Exact binomial (Clopper & Pearson 1934): the upper bound is the ``1 - delta`` quantile of
    ``Beta(k + 1, n - k)`` with ``k = n p_hat`` successes (1 when ``k = n``), the lower the ``delta``
    quantile of ``Beta(k, n - k + 1)`` (0 when ``k = 0``). Bernoulli outcomes only (it inverts the
    binomial law; it says nothing of other bounded outcomes). Never wider than ``"kl"`` (the Chernoff
    bound is an upper bound on the binomial tail that Clopper-Pearson inverts exactly).
``"beta-mixture"``
    A confidence sequence, valid at every count at once without a union over counts (Robbins 1970, the
    beta-binomial mixture; Howard, Ramdas, McAuliffe & Sekhon 2021, Ann. Statist. 49(2), conjugate
    mixtures): with ``S`` the sum of the outcomes, ``M_n(q) = B(a + S, b + n - S) / B(a, b) /
    (q^S (1 - q)^(n - S))`` is the Beta(``a``, ``b``) mixture of the likelihood ratios; the bounds are the
    ends of ``{q : log M_n(q) < level}`` with ``level = log(K / delta)`` whatever the count. By Ville's
    inequality ``P(exists n : M_n(p) >= K / delta) <= delta / K``. For outcomes on ``[0, 1]`` that are not
    Bernoulli each ratio ``(q'/q)^x ((1 - q')/(1 - q))^(1 - x)`` is convex in ``x``, so its mean is at most
    1 and ``M_n`` is a supermartingale: the bound holds for any bounded outcome. Prior: Jeffreys,
    ``a = b = 1/2`` (fixed before any data). One set covers both sides at once (``delta / K`` in all).

The first three cover with probability at least ``1 - delta`` for a *fixed* number of samples. A learner
needs them at every round for every action (the per-round promise), so :func:`anytime_level` splits
``delta`` over actions and sample counts (``"beta-mixture"`` needs the split over actions only): a union
bound; data of an action are read in the order they arrived, so the ``n``-th bound of an action is a
fixed-``n`` bound on its first ``n`` outcomes:

* known horizon ``T``: ``delta_n = delta / (K T)`` for every count ``n <= T``;
* unknown horizon: ``delta_n = delta / (K n (n + 1))`` (``sum_n 1 / (n (n + 1)) = 1``).

Either way every bound of every action holds at once with probability at least ``1 - delta`` (per side:
a learner that uses both sides of one action splits ``delta`` in two itself). Outcomes on ``[a, b]``
are rescaled to ``[0, 1]`` by :func:`upper_bound` / :func:`lower_bound` (all but
``"clopper-pearson"``). Sources and choices: ``docs/decisions/bounds.md``.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from safebandits._validation import check_choice, check_int, check_interval
from safebandits.exceptions import ConfigError
from safebandits.types import FloatArray

__all__ = [
    "BOUNDS",
    "BOUND_SOURCES",
    "MIXTURE_PRIOR",
    "UNIT_OUTCOMES",
    "anytime_level",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "kl_bernoulli",
    "kl_lower",
    "kl_lower_scalar",
    "kl_upper",
    "kl_upper_scalar",
    "lower_bound",
    "mixture_lower_scalar",
    "mixture_upper_scalar",
    "samples_until_below",
    "sub_gaussian_lower",
    "sub_gaussian_upper",
    "upper_bound",
]

#: The bounds by name. At one count and one level, each of the first three is never wider than the one
#: before it on Bernoulli outcomes; ``"beta-mixture"`` needs no union over counts (module docstring).
BOUNDS = ("sub-gaussian", "kl", "clopper-pearson", "beta-mixture")

#: Feedback kinds (``info.noise_kind``) whose outcomes lie in ``[0, 1]``: every bound but Clopper-Pearson
#: holds for them (Clopper-Pearson: ``"bernoulli"`` only).
UNIT_OUTCOMES = ("bernoulli", "clipped-gaussian")

#: Each bound in words: what it is, its source and the outcomes it holds for (the statements of
#: ``learners --for`` and the report name the bound in force with it).
BOUND_SOURCES = {
    "sub-gaussian": "Hoeffding's sub-Gaussian radius (Hoeffding 1963, Thm. 2; any outcome in [0, 1], or "
    "R-sub-Gaussian noise)",
    "kl": "the Chernoff bound in KL form (Hoeffding 1963, Thm. 1; Garivier and Cappe 2011, kl-UCB; any "
    "outcome in [0, 1]), never wider than Hoeffding's at the same level",
    "clopper-pearson": "the exact binomial bound (Clopper and Pearson 1934; Bernoulli outcomes only)",
    "beta-mixture": "the beta-binomial mixture confidence sequence, Jeffreys prior (Robbins 1970; Howard, "
    "Ramdas, McAuliffe and Sekhon 2021; any outcome in [0, 1], valid at every count at once)",
}

#: The Beta prior ``(a, b)`` of ``"beta-mixture"`` (Jeffreys).
MIXTURE_PRIOR = (0.5, 0.5)

#: Bisection steps of the KL inversions: ``2**-54`` of the unit interval, below float64's resolution.
_STEPS = 54


@numba.njit(cache=True)
def kl_bernoulli(p: float, q: float) -> float:
    """Bernoulli relative entropy ``kl(p, q) = p log(p / q) + (1 - p) log((1 - p) / (1 - q))``
    (``0 log 0 = 0``; ``inf`` where ``q`` is 0 or 1 and ``p`` differs from it)."""
    out = 0.0
    if p > 0.0:
        if q <= 0.0:
            return math.inf
        out += p * math.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return math.inf
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@numba.njit(cache=True)
def kl_upper_scalar(mean: float, n: float, level: float) -> float:
    """``max{q in [mean, 1] : n kl(mean, q) <= level}`` by bisection (unchecked, compiled loops).

    Returns the upper end of the last bracket, so the answer is never below the exact root (a valid
    bound stays valid). ``n <= 0`` gives 1 (no data)."""
    if n <= 0.0 or mean >= 1.0:
        return 1.0
    target = level / n
    lo, hi = mean, 1.0
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        if kl_bernoulli(mean, mid) > target:
            hi = mid
        else:
            lo = mid
    return hi


@numba.njit(cache=True)
def kl_lower_scalar(mean: float, n: float, level: float) -> float:
    """``min{q in [0, mean] : n kl(mean, q) <= level}`` (the mirror of :func:`kl_upper_scalar`; returns
    the lower end of the last bracket). ``n <= 0`` gives 0."""
    return 1.0 - kl_upper_scalar(1.0 - mean, n, level)


@numba.njit(cache=True)
def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


@numba.njit(cache=True)
def mixture_upper_scalar(total: float, n: float, level: float) -> float:
    """Upper end of ``{q : log M_n(q) < level}`` for the Beta mixture of :data:`MIXTURE_PRIOR` (module
    docstring), ``total`` the sum of ``n`` outcomes on ``[0, 1]`` (unchecked, compiled loops). The set is
    an interval around ``total / n`` (``log M_n`` is convex in ``q`` and not positive at the mean);
    bisection returns the upper end of its last bracket. ``n <= 0`` or ``total >= n`` gives 1."""
    if n <= 0.0 or total >= n:
        return 1.0
    a, b = MIXTURE_PRIOR
    c = _log_beta(a + total, b + n - total) - _log_beta(a, b)
    lo, hi = total / n, 1.0
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        log_m = c - (total * math.log(mid) if total > 0.0 else 0.0) - (n - total) * math.log1p(-mid)
        if log_m >= level:
            hi = mid
        else:
            lo = mid
    return hi


@numba.njit(cache=True)
def mixture_lower_scalar(total: float, n: float, level: float) -> float:
    """Lower end of the set of :func:`mixture_upper_scalar` (the prior is symmetric: its mirror image)."""
    return 1.0 - mixture_upper_scalar(n - total, n, level)


@numba.njit(cache=True)
def _mixture_into(totals, counts, levels, upper, out):
    for i in range(out.shape[0]):
        if upper:
            out[i] = mixture_upper_scalar(totals[i], counts[i], levels[i])
        else:
            out[i] = mixture_lower_scalar(totals[i], counts[i], levels[i])


@numba.njit(cache=True)
def _kl_into(means, counts, levels, upper, out):
    for i in range(out.shape[0]):
        if upper:
            out[i] = kl_upper_scalar(means[i], counts[i], levels[i])
        else:
            out[i] = kl_lower_scalar(means[i], counts[i], levels[i])


def _arrays(means: Any, counts: Any, levels: Any, owner: str) -> tuple[FloatArray, ...]:
    """Broadcast and check ``means`` in ``[0, 1]``, ``counts >= 0`` and ``levels > 0``."""
    try:
        m, n, lv = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (means, counts, levels)))
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"{owner} needs means, counts and levels of one shape (or scalars). Got shapes "
            f"{np.shape(means)}, {np.shape(counts)} and {np.shape(levels)} instead."
        ) from exc
    if not np.all((m >= 0.0) & (m <= 1.0)):
        raise ConfigError(f"The 'means' of {owner} must lie in [0, 1]. Got {means!r} instead.")
    if not np.all(np.isfinite(n) & (n >= 0.0)):
        raise ConfigError(f"The 'counts' of {owner} must be non-negative sample counts. Got {counts!r}.")
    if not np.all(np.isfinite(lv) & (lv > 0.0)):
        raise ConfigError(f"The 'level' of {owner} must be positive (log(1 / delta)). Got {levels!r}.")
    return m, n, lv


def _kl(means: Any, counts: Any, level: Any, upper: bool, owner: str) -> float | FloatArray:
    m, n, lv = _arrays(means, counts, level, owner)
    out = np.empty(m.size)
    _kl_into(m.ravel().copy(), n.ravel().copy(), lv.ravel().copy(), upper, out)
    return float(out[0]) if m.ndim == 0 else out.reshape(m.shape)


def kl_upper(means: Any, counts: Any, level: Any) -> float | FloatArray:
    """KL (Chernoff) upper bound ``max{q : n kl(p_hat, q) <= level}``, elementwise.

    Parameters
    ----------
    means : float or array in [0, 1]
        Empirical means ``p_hat`` (of outcomes in ``[0, 1]``).
    counts : float or array >= 0
        Sample counts ``n`` (0 gives the trivial bound 1).
    level : float or array > 0
        ``log(1 / delta)`` for a one-sided error ``delta`` (:func:`anytime_level` for every round).

    Examples
    --------
    >>> round(kl_upper(0.05, 100, math.log(1 / 0.05)), 4)
    0.1215
    """
    return _kl(means, counts, level, True, "kl_upper")


def kl_lower(means: Any, counts: Any, level: Any) -> float | FloatArray:
    """KL (Chernoff) lower bound ``min{q : n kl(p_hat, q) <= level}``, elementwise (see :func:`kl_upper`).

    Examples
    --------
    >>> round(kl_lower(0.05, 100, math.log(1 / 0.05)), 4)
    0.0134
    """
    return _kl(means, counts, level, False, "kl_lower")


def sub_gaussian_upper(means: Any, counts: Any, level: Any) -> float | FloatArray:
    """Hoeffding's sub-Gaussian bound on ``[0, 1]``: ``min(p_hat + sqrt(level / (2 n)), 1)``."""
    m, n, lv = _arrays(means, counts, level, "sub_gaussian_upper")
    with np.errstate(divide="ignore"):
        out = np.where(n > 0, np.minimum(m + np.sqrt(lv / (2.0 * np.maximum(n, 1e-300))), 1.0), 1.0)
    return float(out) if out.ndim == 0 else out


def sub_gaussian_lower(means: Any, counts: Any, level: Any) -> float | FloatArray:
    """The mirror of :func:`sub_gaussian_upper`: ``max(p_hat - sqrt(level / (2 n)), 0)``."""
    m = np.asarray(means, dtype=np.float64)
    out = 1.0 - np.asarray(sub_gaussian_upper(1.0 - m, counts, level))
    return float(out) if out.ndim == 0 else out


def _successes(successes: Any, counts: Any, delta: Any, owner: str) -> tuple[FloatArray, ...]:
    k, n, d = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (successes, counts, delta)))
    if not np.all(np.isfinite(n) & (n >= 0)) or not np.all((k >= 0) & (k <= n)):
        raise ConfigError(
            f"{owner} needs success counts between 0 and the sample counts. Got successes {successes!r} "
            f"and counts {counts!r} instead."
        )
    if not np.all((d > 0.0) & (d < 1.0)):
        raise ConfigError(f"The 'delta' parameter of {owner} must be in (0, 1). Got {delta!r} instead.")
    return k, n, d


def _cp_upper(k: FloatArray, n: FloatArray, delta: FloatArray) -> FloatArray:
    from scipy import stats  # (on use: scipy.stats costs a noticeable start-up import)

    full = k >= n
    with np.errstate(invalid="ignore", divide="ignore"):
        q = stats.beta.ppf(1.0 - delta, k + 1.0, np.where(full, 1.0, n - k))
    return np.where(full, 1.0, q)


def clopper_pearson_upper(successes: Any, counts: Any, delta: Any) -> float | FloatArray:
    """Clopper-Pearson upper bound: ``Beta(k + 1, n - k)``'s ``1 - delta`` quantile (1 if ``k = n``).

    Bernoulli outcomes only; elementwise (``delta`` may be an array too). ``successes`` may be real (a
    rate times a count, as :func:`samples_until_below` uses it): the Beta quantile is defined for real
    parameters.

    Examples
    --------
    >>> round(clopper_pearson_upper(5, 100, 0.05), 4)
    0.1023
    """
    out = _cp_upper(*_successes(successes, counts, delta, "clopper_pearson_upper"))
    return float(out) if out.ndim == 0 else out


def clopper_pearson_lower(successes: Any, counts: Any, delta: Any) -> float | FloatArray:
    """Clopper-Pearson lower bound: ``Beta(k, n - k + 1)``'s ``delta`` quantile (0 if ``k = 0``)."""
    k, n, d = _successes(successes, counts, delta, "clopper_pearson_lower")
    out = 1.0 - _cp_upper(n - k, n, d)
    return float(out) if out.ndim == 0 else out


def anytime_level(
    delta: float, counts: Any, *, n_actions: int = 1, horizon: int | None = None, bound: str = "kl"
) -> Any:
    """``log(1 / delta_n)`` of the union bound over actions and sample counts (module docstring).

    ``delta_n = delta / (K T)`` with a known ``horizon`` ``T``, else ``delta / (K n (n + 1))``; a count of
    0 is read as 1 (its bound is trivial anyway). ``bound="beta-mixture"``: ``log(K / delta)`` at every
    count (a confidence sequence needs no union over counts).

    Examples
    --------
    >>> round(anytime_level(0.05, 10, n_actions=5), 4)
    9.3057
    """
    delta = check_interval(delta, "delta", low=0.0, high=1.0, owner="anytime_level")
    k = check_int(n_actions, "n_actions", low=1, owner="anytime_level")
    n = np.maximum(np.asarray(counts, dtype=np.float64), 1.0)
    if bound == "beta-mixture":
        out = np.full(n.shape, math.log(k / delta))
    elif horizon is not None:
        t = check_int(horizon, "horizon", low=1, owner="anytime_level")
        out = np.full(n.shape, math.log(k * t / delta))
    else:
        out = math.log(k / delta) + np.log(n) + np.log1p(n)
    return float(out) if out.ndim == 0 else out


def _bound(
    kind: str, sums: Any, counts: Any, level: Any, scale: Any, upper: bool, owner: str
) -> float | FloatArray:
    """One side of bound ``kind`` at ``level`` (``log(1 / delta)``, elementwise) on outcomes in ``scale``."""
    kind = check_choice(kind, "bound", BOUNDS, owner=owner)
    try:
        lo, hi = (float(v) for v in scale)
    except (TypeError, ValueError):
        lo, hi = math.nan, math.nan
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ConfigError(f"The 'scale' of {owner} must be a range (a, b) with a < b. Got {scale!r} instead.")
    s, n = np.broadcast_arrays(np.asarray(sums, dtype=np.float64), np.asarray(counts, dtype=np.float64))
    if kind == "clopper-pearson":
        if (lo, hi) != (0.0, 1.0):
            raise ConfigError(
                f"The 'clopper-pearson' bound of {owner} is for Bernoulli outcomes on [0, 1]; got outcomes "
                f"on {tuple(scale)!r}. Use bound='kl', which holds for any bounded outcome."
            )
        delta = np.exp(-np.asarray(level, dtype=np.float64))
        out = np.asarray((clopper_pearson_upper if upper else clopper_pearson_lower)(s, n, delta))
    elif kind == "beta-mixture":
        m, n, lv = _arrays(
            np.where(n > 0, (s - lo * n) / ((hi - lo) * np.maximum(n, 1.0)), 0.0), n, level, owner
        )
        out = np.empty(m.size)
        _mixture_into((np.clip(m, 0.0, 1.0) * n).ravel(), n.ravel().copy(), lv.ravel().copy(), upper, out)
        out = out.reshape(m.shape)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, (s - lo * n) / ((hi - lo) * np.maximum(n, 1.0)), 0.0)
        if np.all(np.isfinite(mean)):  # (round-off at the ends of the range; outside it is an error below)
            mean = np.where(np.abs(mean - np.clip(mean, 0.0, 1.0)) < 1e-12, np.clip(mean, 0.0, 1.0), mean)
        fns = {"kl": (kl_upper, kl_lower), "sub-gaussian": (sub_gaussian_upper, sub_gaussian_lower)}
        out = np.asarray(fns[kind][0 if upper else 1](mean, n, level))
    out = lo + (hi - lo) * out
    return float(out) if out.ndim == 0 else out


def _check_successes(bound: Any, sums: Any, owner: str) -> None:
    k = np.asarray(sums, dtype=np.float64)
    if bound == "clopper-pearson" and not np.array_equal(k, np.round(k)):
        raise ConfigError(
            f"The 'clopper-pearson' bound of {owner} needs whole success counts as 'sums' (Bernoulli "
            f"outcomes). Got {sums!r} instead; use bound='kl' for other bounded outcomes."
        )


def upper_bound(
    bound: str,
    sums: Any,
    counts: Any,
    delta: float,
    *,
    n_actions: int = 1,
    horizon: int | None = None,
    scale: tuple[float, float] = (0.0, 1.0),
) -> float | FloatArray:
    """Anytime upper confidence bound on the mean of each action's outcomes (module docstring).

    Parameters
    ----------
    bound : {"sub-gaussian", "kl", "clopper-pearson"}
        Which bound (:data:`BOUNDS`); ``"clopper-pearson"`` needs Bernoulli outcomes (``scale = (0, 1)``
        and integral ``sums``).
    sums, counts : float or array
        Sum of each action's outcomes and its number of samples (0: the trivial bound ``b``).
    delta : float in (0, 1)
        Probability that any bound of any action fails, at any count (:func:`anytime_level`).
    n_actions : int >= 1
        ``K``, the number of actions the union bound runs over.
    horizon : int, optional
        Known horizon ``T`` (``delta / (K T)`` per count), else ``delta / (K n (n + 1))``.
    scale : (a, b)
        The range of the outcomes.

    Examples
    --------
    >>> round(upper_bound("kl", 5, 100, 0.05), 4)
    0.2289
    """
    level = anytime_level(delta, counts, n_actions=n_actions, horizon=horizon, bound=bound)
    _check_successes(bound, sums, "upper_bound")
    return _bound(bound, sums, counts, level, scale, True, "upper_bound")


def lower_bound(
    bound: str,
    sums: Any,
    counts: Any,
    delta: float,
    *,
    n_actions: int = 1,
    horizon: int | None = None,
    scale: tuple[float, float] = (0.0, 1.0),
) -> float | FloatArray:
    """Anytime lower confidence bound, the mirror of :func:`upper_bound` (same parameters)."""
    level = anytime_level(delta, counts, n_actions=n_actions, horizon=horizon, bound=bound)
    _check_successes(bound, sums, "lower_bound")
    return _bound(bound, sums, counts, level, scale, False, "lower_bound")


def samples_until_below(
    bound: str,
    rate: float,
    limit: float,
    delta: float,
    *,
    n_actions: int = 1,
    horizon: int | None = None,
    max_samples: int = 10**7,
) -> int | None:
    """Samples of one action until its anytime upper bound falls below ``limit``, at the empirical rate
    ``rate`` (the typical path: ``p_hat = rate`` at every count; ``n rate`` successes, real-valued for
    ``"clopper-pearson"``). ``None`` when it does not happen within ``max_samples`` (always when
    ``rate >= limit``).

    The bound at a fixed rate decreases in ``n`` (with a known horizon; with the ``n (n + 1)`` schedule
    once ``log(K / delta) > 2``, i.e. for every ``delta < K e^-2``), so the first such count is found by
    doubling then bisection. For the estimate of rounds spent on the safe action before a learner
    leaves it (``algorithms/compatibility.py``).

    Examples
    --------
    >>> samples_until_below("kl", 0.05, 0.10, 0.05, horizon=1)
    180
    """
    owner = "samples_until_below"
    rate = check_interval(rate, "rate", low=0.0, high=1.0, closed="both", owner=owner)
    limit = check_interval(limit, "limit", low=0.0, high=1.0, closed="right", owner=owner)
    cap = check_int(max_samples, "max_samples", low=1, owner=owner)

    def below(n: int) -> bool:
        level = anytime_level(delta, n, n_actions=n_actions, horizon=horizon, bound=bound)
        return float(_bound(bound, rate * n, n, level, (0.0, 1.0), True, owner)) < limit

    if rate >= limit or not below(cap):
        return None
    lo, hi = 0, 1  # (below(lo) is false: 0 samples give the trivial bound 1 >= limit)
    while not below(hi):
        lo, hi = hi, min(2 * hi, cap)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if below(mid):
            hi = mid
        else:
            lo = mid
    return hi
