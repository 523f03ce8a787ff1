"""Issue 43, item 2: G-ACOL's certified skips while ``|U| = 1`` take the decisions of the sample-by-sample
loop, bit for bit, and the certificate that the look-ahead keeps pulling its target is sound.

The skips (:func:`~safebandits.algorithms.pure_exploration._skips.try_skip` with the look-ahead rule)
play a whole stretch of pulls of the only arm of ``U`` when :func:`~safebandits.algorithms.
pure_exploration._skips.lookahead_keeps_target` proves that the look-ahead picks it at every sample of
the stretch; the run must end in exactly the state of the loop that takes every sample.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms import make_learner
from safebandits.algorithms.pure_exploration._skips import lookahead_keeps_target
from safebandits.experiments.simulate import run
from safebandits.problems import make_instance
from safebandits.problems.noise import BinaryNoise, GaussianNoise
from tests.unit.algorithms.test_acol_family import assert_same_state

#: (n_arms, d, seeds): unit-sphere instances whose G-ACOL runs reach ``|U| = 1`` within ~10^6 samples
#: (Gram numerics at 20 x 10, primal at 60 x 10).
CASES = [(20, 10, (2, 5, 6)), (60, 10, (6,))]


def _pair(inst, seed, config, budget):
    learners = []
    for skip in (False, True):
        learner = make_learner("g-acol", inst.public_info(), np.random.default_rng(seed + 1),
                               {**config, "certified_skip": skip})  # fmt: skip
        run(learner, inst.environment(np.random.default_rng(seed + 2)), inst, budget=budget)
        learners.append(learner)
    return learners


@pytest.mark.parametrize(("n", "d", "seeds"), CASES)
@pytest.mark.parametrize("width", ["theory", "tuned"])
def test_g_acol_skips_reproduce_the_sample_by_sample_run(n, d, seeds, width):
    skipped = 0
    for seed in seeds:
        inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=n, d=d)
        plain, fast = _pair(inst, seed, {"width": width, "tuned_width": 0.5}, 2_000_000)
        assert plain.skipped_samples == 0
        assert_same_state(plain, fast)
        np.testing.assert_array_equal(plain.ridge.sums, fast.ridge.sums)
        skipped += fast.skipped_samples
    if width == "theory":
        assert skipped > 0  # (the equalities above cover runs with skips)


@pytest.mark.parametrize("noise", [GaussianNoise(0.3), BinaryNoise()])
def test_g_acol_skips_with_short_refresh_periods_and_other_noise(noise):
    skipped = 0
    for seed in (2, 5, 6):
        inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=20, d=10)
        plain, fast = _pair(inst.with_noise(noise), seed, {"refresh_every": 100}, 1_000_000)
        assert_same_state(plain, fast)
        skipped += fast.skipped_samples
    assert skipped > 0


def _look_ahead_pick(arms, a, y):
    """G-ACOL's pick for the target ``y`` under the design matrix ``a``, evaluated afresh: ``argmin_k
    ||y||^2 - g_k^2 / (1 + ||x_k||^2)`` (lowest index on ties)."""
    a_inv = np.linalg.inv(a)
    g = arms @ (a_inv @ arms[y])
    s = np.einsum("ij,jk,ik->i", arms, a_inv, arms)
    return int(np.argmin(s[y] - g * g / (1.0 + s)))


def _design(seed, n, d, heavy):
    rng = np.random.default_rng(seed)
    arms = rng.normal(size=(n, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    counts = rng.integers(0, 30, size=n).astype(float)
    counts[0] = heavy  # the target, pulled much more than the others (as when |U| = 1 late in a run)
    a = 0.1 * np.eye(d) + (arms.T * counts) @ arms
    zrows = np.linalg.solve(np.linalg.cholesky(a), arms.T).T.copy()
    return arms, a, zrows


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 12),
    d=st.integers(1, 5),
    heavy=st.sampled_from([0.0, 10.0, 1e3, 1e5]),
    length=st.sampled_from([1, 100, 10**4, 10**6]),
)
def test_a_certified_target_stays_the_look_ahead_pick(seed, n, d, heavy, length):
    # soundness: when the certificate holds for a stretch of pulls of y, the look-ahead evaluated afresh
    # after any number m of them (first, last, and a spread between) still picks y
    arms, a, zrows = _design(seed, n, d, heavy)
    if not lookahead_keeps_target(zrows, 0, length):
        return
    y = arms[0]
    for m in sorted({0, 1, 2, length // 3, length - 1}):
        assert _look_ahead_pick(arms, a + m * np.outer(y, y), 0) == 0


def test_the_certificate_holds_for_a_heavily_pulled_target_and_refuses_a_tie():
    arms, _, zrows = _design(0, 8, 3, 1e5)
    assert lookahead_keeps_target(zrows, 0, 10**6)
    # an arm parallel to the target ties with it (the lower index would win): never certified
    twin = np.vstack([arms, arms[:1]])
    a = 0.1 * np.eye(3) + (twin.T * np.r_[1e5, np.ones(8)]) @ twin
    z = np.linalg.solve(np.linalg.cholesky(a), twin.T).T.copy()
    assert not lookahead_keeps_target(z, 0, 10)
    # a target without width left cannot lead by a margin the rounding respects
    assert not lookahead_keeps_target(np.zeros((3, 2)), 0, 10)
