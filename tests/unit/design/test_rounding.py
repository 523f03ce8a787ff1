import numpy as np
import pytest

from safebandits.design import frank_wolfe_design, round_design
from safebandits.exceptions import ConfigError

RULES = ["pukelsheim", "acol-code"]


def random_weights(rng, n, n_zero):
    w = rng.dirichlet(np.full(n, 0.5))
    w[rng.choice(n, n_zero, replace=False)] = 0.0
    return w


def cases():
    """(weights, N) pairs: many supports, N = 1, N < support, N = support, large N."""
    rng = np.random.default_rng(2024)
    out = []
    for _ in range(60):
        n = int(rng.integers(1, 40))
        w = random_weights(rng, n, int(rng.integers(0, n)))
        if w.sum() == 0.0:
            w[0] = 1.0
        w /= w.sum()
        p = int(np.count_nonzero(w))
        for n_samples in {1, 2, max(p - 1, 1), p, p + 1, 5 * p, int(rng.integers(1, 500)), 10**7}:
            out.append((w, n_samples))
    return out


@pytest.mark.parametrize("rule", RULES)
def test_totals_exact_and_support_respected(rule):
    for w, n_samples in cases():
        counts = round_design(w, n_samples, rule=rule)
        assert counts.dtype == np.int64
        assert counts.shape == w.shape
        assert counts.sum() == n_samples
        assert np.all(counts >= 0)
        assert np.all(counts[w == 0.0] == 0)


def test_near_proportional_and_adams_property():
    for w, n_samples in cases():
        p = np.count_nonzero(w)
        counts = round_design(w, n_samples)
        assert np.all(np.abs(counts - n_samples * w) <= p)
        if n_samples >= p:
            # Adams apportionment: n_i = ceil(w_i / D) for a divisor D, hence n_i >= (N - p) w_i
            # and every support point gets a sample.
            assert np.all(counts[w > 0] >= 1)
            assert np.all(counts >= (n_samples - p) * w - 1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_efficiency_of_rounded_designs(seed):
    """N max_x ||x||^2_{A(n)^{-1}} <= N / (N - p) * design value <= (1 + 2 p / N) * value for N >= 2p.

    Follows from n_i >= (N - p) w_i, i.e. A(n) >= (N - p) A(w) (Pukelsheim 2006, ch. 12).
    """
    rng = np.random.default_rng(seed)
    arms = rng.standard_normal((40, 6))
    design = frank_wolfe_design(arms, tol=1e-3)
    w = design.weights
    p = np.count_nonzero(w)
    for n_samples in (5 * p, 7 * p + 3, 50 * p):
        counts = round_design(w, n_samples)
        a = arms.T @ (counts[:, None] * arms)
        rounded = n_samples * np.max(np.einsum("ij,jk,ik->i", arms, np.linalg.inv(a), arms))
        assert rounded <= n_samples / (n_samples - p) * design.value * (1 + 1e-12)
        assert rounded <= (1 + 2 * p / n_samples) * design.value


def test_known_examples():
    np.testing.assert_array_equal(round_design([0.5, 0.25, 0.25, 0.0], 7), [3, 2, 2, 0])
    # Pukelsheim increases argmin n_i / w_i (tie -> larger weight); the authors' loop argmin (n_i - 1) / w_i.
    np.testing.assert_array_equal(round_design([0.9, 0.1], 11), [10, 1])
    np.testing.assert_array_equal(round_design([0.9, 0.1], 11, rule="acol-code"), [9, 2])
    np.testing.assert_array_equal(round_design([1.0, 0.0], 5), [5, 0])


def test_fewer_samples_than_support_go_to_largest_weights():
    np.testing.assert_array_equal(round_design([0.2, 0.5, 0.3], 2), [0, 1, 1])
    np.testing.assert_array_equal(round_design([0.2, 0.5, 0.3], 1), [0, 1, 0])
    counts = round_design(np.full(100, 0.01), 7)
    assert counts.sum() == 7
    assert counts.max() == 1


def test_unnormalised_weights_and_numpy_integers():
    expected = round_design([0.5, 0.25, 0.25], 8)
    np.testing.assert_array_equal(round_design([2.0, 1.0, 1.0], np.int64(8)), expected)
    np.testing.assert_array_equal(round_design(np.array([3, 1]), 4), [3, 1])


def test_large_sample_size():
    w = np.random.default_rng(1).dirichlet(np.ones(500))
    counts = round_design(w, 10**7)
    assert counts.sum() == 10**7
    assert np.max(np.abs(counts - 10**7 * w)) <= 500


@pytest.mark.parametrize(
    ("weights", "n_samples", "name"),
    [
        ([0.5, -0.1, 0.6], 10, "weights"),
        ([0.5, np.nan], 10, "weights"),
        ([0.5, np.inf], 10, "weights"),
        ([0.0, 0.0], 10, "weights"),
        ([], 10, "weights"),
        ([[0.5, 0.5]], 10, "weights"),
        ([0.5, 0.5], 0, "n_samples"),
        ([0.5, 0.5], -3, "n_samples"),
        ([0.5, 0.5], 2.5, "n_samples"),
        ([0.5, 0.5], 10.5, "n_samples"),  # (integral floats such as 10.0 count as integers)
        ([0.5, 0.5], "10", "n_samples"),
        ([0.5, 0.5], True, "n_samples"),
    ],
)
def test_invalid_arguments_raise_config_error(weights, n_samples, name):
    with pytest.raises(ConfigError, match=f"'{name}' parameter of round_design"):
        round_design(weights, n_samples)


def test_invalid_rule():
    with pytest.raises(ValueError, match="'rule' parameter"):
        round_design([0.5, 0.5], 3, rule="multinomial")
