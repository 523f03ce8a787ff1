"""Bounds on bounded outcomes (estimators/bounded.py): exact fixed-count coverage, ordering, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from safebandits.estimators.bounded import (
    BOUNDS,
    anytime_level,
    clopper_pearson_lower,
    clopper_pearson_upper,
    kl_bernoulli,
    kl_lower,
    kl_upper,
    lower_bound,
    samples_until_below,
    sub_gaussian_lower,
    sub_gaussian_upper,
    upper_bound,
)
from safebandits.exceptions import ConfigError

DELTA = 0.05
LEVEL = math.log(1 / DELTA)
COUNTS = (1, 2, 3, 5, 10, 30, 100, 300, 1000)
#: True rates at the boundaries: near 0, around a toxicity limit, the middle, near 1.
RATES = (1e-4, 0.005, 0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.9, 0.99, 0.9999)


def fixed_bounds(name: str, k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of bound ``name`` at one count, one-sided error DELTA each."""
    if name == "clopper-pearson":
        return clopper_pearson_lower(k, n, DELTA), clopper_pearson_upper(k, n, DELTA)
    if name == "kl":
        return kl_lower(k / n, n, LEVEL), kl_upper(k / n, n, LEVEL)
    if name == "sub-gaussian":
        return sub_gaussian_lower(k / n, n, LEVEL), sub_gaussian_upper(k / n, n, LEVEL)
    # the mixture at level log(1 / delta) covers both sides at once (the whole sequence, a fortiori one n)
    return lower_bound(name, k, np.full(k.shape, n), DELTA), upper_bound(name, k, np.full(k.shape, n), DELTA)


def non_coverage(lower: np.ndarray, upper: np.ndarray, n: int, p: float) -> tuple[float, float]:
    """Exact probabilities, under Binomial(n, p), that the upper bound is below p and the lower above it."""
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    return float(pmf[upper < p].sum()), float(pmf[lower > p].sum())


@pytest.mark.parametrize("name", BOUNDS)
def test_exact_coverage_at_every_fixed_count(name):
    """The binomial law is summed exactly over every outcome count: no simulation error at all."""
    worst = 0.0
    for n in COUNTS:
        k = np.arange(n + 1, dtype=np.float64)
        lower, upper = fixed_bounds(name, k, n)
        for p in RATES:
            above, below = non_coverage(lower, upper, n, p)
            assert above <= DELTA + 1e-12, (name, n, p, above)
            assert below <= DELTA + 1e-12, (name, n, p, below)
            worst = max(worst, above, below)
    if name == "clopper-pearson":  # (exact: its error comes close to delta somewhere on the grid)
        assert worst > 0.5 * DELTA


def test_exact_coverage_check_catches_an_invalid_bound():
    """The check above can fail: the Wald interval ``p_hat + z sqrt(p_hat (1 - p_hat) / n)`` undercovers
    small rates (at ``k = 0`` it is 0)."""
    n, p = 30, 0.05
    k = np.arange(n + 1, dtype=np.float64)
    ph = k / n
    wald = ph + stats.norm.ppf(1 - DELTA) * np.sqrt(ph * (1 - ph) / n)
    above, _ = non_coverage(np.zeros(n + 1), wald, n, p)
    assert above > DELTA


def test_ordering_clopper_pearson_kl_sub_gaussian():
    """At one count and one level: Clopper-Pearson within KL within Hoeffding, on every outcome count."""
    for n in range(1, 151):
        k = np.arange(n + 1, dtype=np.float64)
        cp_lo, cp_up = fixed_bounds("clopper-pearson", k, n)
        kl_lo, kl_up = fixed_bounds("kl", k, n)
        sg_lo, sg_up = fixed_bounds("sub-gaussian", k, n)
        assert np.all(cp_up <= kl_up + 1e-9) and np.all(kl_up <= sg_up + 1e-12)
        assert np.all(cp_lo >= kl_lo - 1e-9) and np.all(kl_lo >= sg_lo - 1e-12)


def test_kl_bernoulli_edges():
    assert kl_bernoulli(0.0, 0.0) == 0.0 and kl_bernoulli(1.0, 1.0) == 0.0
    assert kl_bernoulli(0.5, 0.0) == math.inf and kl_bernoulli(0.5, 1.0) == math.inf
    assert kl_bernoulli(0.3, 0.5) == pytest.approx(0.3 * math.log(0.6) + 0.7 * math.log(1.4))


def test_kl_upper_solves_the_equation():
    q = kl_upper(0.05, 100, LEVEL)
    assert 100 * kl_bernoulli(0.05, q) == pytest.approx(LEVEL, rel=1e-9)
    assert kl_upper(0.3, 0, LEVEL) == 1.0 and kl_lower(0.3, 0, LEVEL) == 0.0


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 5000), frac=st.floats(0, 1), delta=st.floats(1e-6, 0.5), name=st.sampled_from(BOUNDS))
def test_properties(n, frac, delta, name):
    """Within [0, 1], lower <= mean <= upper, more successes raise both ends, more data at one mean
    tightens the upper end (at a known horizon: one level for every count)."""
    k = float(math.floor(frac * n))
    kw = {"n_actions": 3, "horizon": 10_000}
    lo = lower_bound(name, k, n, delta, **kw)
    up = upper_bound(name, k, n, delta, **kw)
    assert 0.0 <= lo <= k / n + 1e-12 and k / n - 1e-12 <= up <= 1.0
    if k < n:
        assert upper_bound(name, k + 1, n, delta, **kw) >= up - 1e-12
        assert lower_bound(name, k + 1, n, delta, **kw) >= lo - 1e-12
    assert upper_bound(name, 2 * k, 2 * n, delta, **kw) <= up + 1e-12


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 2000), frac=st.floats(0, 1), delta=st.floats(1e-4, 0.25))
def test_clopper_pearson_matches_scipy(n, frac, delta):
    """One-sided delta per side is scipy's exact two-sided interval at confidence 1 - 2 delta."""
    k = math.floor(frac * n)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 2 * delta, method="exact")
    assert clopper_pearson_lower(k, n, delta) == pytest.approx(ci.low, abs=1e-9)
    assert clopper_pearson_upper(k, n, delta) == pytest.approx(ci.high, abs=1e-9)


def test_anytime_level_schedules():
    assert anytime_level(0.05, 10, n_actions=5, horizon=2000) == pytest.approx(math.log(5 * 2000 / 0.05))
    assert anytime_level(0.05, 10, n_actions=5) == pytest.approx(math.log(5 * 10 * 11 / 0.05))
    assert anytime_level(0.05, 10, n_actions=5, bound="beta-mixture") == pytest.approx(math.log(5 / 0.05))
    # the unknown-horizon split sums to delta over all counts
    n = np.arange(1, 10**6 + 1, dtype=np.float64)
    assert np.exp(-anytime_level(0.05, n)).sum() == pytest.approx(0.05, rel=1e-5)


def test_bounded_outcomes_rescale():
    """Outcomes on [a, b]: the bound of the rescaled data, mapped back."""
    up = upper_bound("kl", [3.0], [10], 0.05, scale=(-1.0, 1.0))
    assert up[0] == pytest.approx(-1 + 2 * upper_bound("kl", [6.5], [10], 0.05))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: upper_bound("wald", 1, 10, 0.05), "bound"),
        (lambda: upper_bound("kl", 1, 10, 1.5), "delta"),
        (lambda: upper_bound("kl", 1, 10, 0.05, scale=(1, 0)), "scale"),
        (lambda: upper_bound("clopper-pearson", 0.5, 10, 0.05), "whole success counts"),
        (lambda: upper_bound("clopper-pearson", 1, 10, 0.05, scale=(0, 2)), "Bernoulli"),
        (lambda: kl_upper(1.5, 10, 1.0), "means"),
        (lambda: kl_upper(0.5, -1, 1.0), "counts"),
        (lambda: clopper_pearson_upper(11, 10, 0.05), "success counts"),
        (lambda: samples_until_below("kl", 1.5, 0.1, 0.05), "rate"),
    ],
)
def test_errors_name_the_parameter(call, match):
    with pytest.raises(ConfigError, match=match):
        call()


@pytest.mark.parametrize("name", BOUNDS)
def test_samples_until_below_is_the_first_count(name):
    n = samples_until_below(name, 0.05, 0.10, 0.05, n_actions=5)
    assert n is not None and n > 1
    if name != "clopper-pearson":  # (its public bound takes whole success counts only)
        at = [upper_bound(name, 0.05 * m, m, 0.05, n_actions=5) for m in (n - 1, n)]
        assert at[1] < 0.10 <= at[0]
    assert samples_until_below(name, 0.10, 0.10, 0.05) is None
    assert samples_until_below(name, 0.05, 0.10, 0.05, max_samples=5) is None


def test_samples_until_below_orders_the_bounds():
    """At a rate of 0.05 and a level of 0.10 (the dose-finding example's safe dose, 0.30 - L x step), over
    five actions, anytime: the mixture first, then Clopper-Pearson, KL, Hoeffding (issue 45)."""
    n = {b: samples_until_below(b, 0.05, 0.10, 0.05, n_actions=5) for b in BOUNDS}
    assert n["beta-mixture"] < n["clopper-pearson"] < n["kl"] < n["sub-gaussian"]
    assert n["sub-gaussian"] > 3 * n["kl"]
