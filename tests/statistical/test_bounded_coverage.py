"""Anytime coverage of the bounds on bounded outcomes (estimators/bounded.py), simulated.

Each replicate draws one sequence of N outcomes (fixed seeds); a bound fails in a replicate when, at any
count ``n <= N``, its upper end is below the true mean or its lower end above it (the per-round promise:
every round at once). The failure count must stay within the ``1 - 1e-6`` quantile of Binomial(R, delta)
(a binomial-test margin). True means sit at the boundaries (near 0, at a toxicity-like 0.05, 0.3, near
1); Bernoulli outcomes for every bound, and two bounded outcomes that are not Bernoulli (a Beta law and a
Gaussian clipped to [0, 1]) for the bounds that hold for them. A control shows the check can fail: the
KL bound at the fixed-count level ``log(1 / delta)`` (no union over counts) fails it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from safebandits.estimators.bounded import BOUNDS, kl_upper, lower_bound, upper_bound

DELTA = 0.1
R, N = 1000, 300
MARGIN = int(stats.binom.ppf(1 - 1e-6, R, DELTA))


def outcomes(law: str, p: float, seed: int) -> np.ndarray:
    """(R, N) outcomes on [0, 1] with mean p."""
    rng = np.random.default_rng(seed)
    if law == "bernoulli":
        return (rng.random((R, N)) < p).astype(np.float64)
    if law == "beta":  # (Beta(a, b) with mean p and a + b = 2: spread, not two-valued)
        return rng.beta(2 * p, 2 * (1 - p), size=(R, N))
    raise AssertionError(law)


def failures(name: str, x: np.ndarray, p: float, horizon: int | None) -> int:
    sums = np.cumsum(x, axis=1)
    counts = np.broadcast_to(np.arange(1, N + 1, dtype=np.float64), sums.shape)
    kw = {"n_actions": 1, "horizon": horizon}
    if name == "clopper-pearson":
        sums = np.round(sums)
    up = upper_bound(name, sums, counts, DELTA, **kw)
    lo = lower_bound(name, sums, counts, DELTA, **kw)
    # one side at delta each (the mixture: both sides at delta together); count each side apart
    return max(int(np.any(up < p, axis=1).sum()), int(np.any(lo > p, axis=1).sum()))


CASES = [
    (name, law, p, horizon)
    for p in (0.005, 0.05, 0.3, 0.97)
    for name in BOUNDS
    for law in ("bernoulli", "beta")
    if not (law != "bernoulli" and name == "clopper-pearson")
    for horizon in (None, N)
]
#: One case per bound in the default run; the whole grid with ``-m slow``.
FAST = {(name, "bernoulli", 0.05, None) for name in BOUNDS} | {("kl", "beta", 0.05, None)}


@pytest.mark.parametrize(
    ("name", "law", "p", "horizon"),
    [c if c in FAST else pytest.param(*c, marks=pytest.mark.slow) for c in CASES],
)
def test_anytime_coverage(name, law, p, horizon):
    x = outcomes(law, p, seed=int(1000 * p) + 7 * BOUNDS.index(name))
    assert failures(name, x, p, horizon) <= MARGIN


def test_clipped_gaussian_outcomes():
    """A clipped Gaussian (the library's ``clipped-gaussian`` noise) at a mean near 0: mass at 0."""
    rng = np.random.default_rng(3)
    raw = np.clip(-0.2 + 0.5 * rng.standard_normal((R, N)), 0.0, 1.0)
    p = float(np.mean(np.clip(-0.2 + 0.5 * np.random.default_rng(4).standard_normal(2 * 10**6), 0, 1)))
    for name in ("kl", "beta-mixture"):
        assert failures(name, raw, p, None) <= MARGIN


def test_the_check_catches_a_missing_union():
    """KL at the fixed-count level log(1 / delta), read at every count: far more than delta R failures."""
    p = 0.3
    x = outcomes("bernoulli", p, seed=11)
    sums = np.cumsum(x, axis=1)
    up = kl_upper(sums / np.arange(1, N + 1), np.arange(1, N + 1), np.log(1 / DELTA))
    assert int(np.any(up < p, axis=1).sum()) > MARGIN
