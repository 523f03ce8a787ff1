import math

import numpy as np
import pytest

from safebandits.design import Design, frank_wolfe_design, uniform_design
from safebandits.exceptions import ConfigError

TOL = 1e-3


def objective(arms, weights, targets=None, target_weights=None):
    """``max_y w_y y^T A(weights)^{-1} y`` computed independently (pseudo-inverse, original coordinates)."""
    arms = np.asarray(arms, dtype=float)
    targets = arms if targets is None else np.asarray(targets, dtype=float)
    tw = np.ones(len(targets)) if target_weights is None else np.asarray(target_weights, dtype=float)
    a = arms.T @ (np.asarray(weights)[:, None] * arms)
    widths = np.einsum("ij,jk,ik->i", targets, np.linalg.pinv(a, rcond=1e-12, hermitian=True), targets)
    return float(np.max(tw * widths))


def random_arms(n, d, seed):
    return np.random.default_rng(seed).standard_normal((n, d))


# --------------------------------------------------------------------------------------------------
# known optima
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "d"), [(30, 10), (100, 30), (12, 3)])
def test_kiefer_wolfowitz_gap_rule(n, d):
    arms = random_arms(n, d, seed=n * 1000 + d)
    res = frank_wolfe_design(arms, tol=TOL)
    assert res.converged
    assert d * (1 - 1e-9) <= res.value <= d * (1 + 2 * TOL)
    assert res.value - d <= res.gap + 1e-12  # the certificate covers the true suboptimality
    assert res.gap <= TOL * res.value
    assert res.value == pytest.approx(objective(arms, res.weights), rel=1e-9)


def test_kiefer_wolfowitz_relative_change_rule():
    d = 10
    arms = random_arms(30, d, seed=3010)
    res = frank_wolfe_design(arms, tol=1e-2, stop="relative-change")
    assert res.converged
    assert math.isnan(res.gap)
    assert d * (1 - 1e-9) <= res.value <= d * 1.05
    assert res.value == pytest.approx(objective(arms, res.weights), rel=1e-9)


def test_relative_change_rule_runs_to_max_iter():
    arms = random_arms(30, 10, seed=1)
    res = frank_wolfe_design(arms, tol=1e-9, max_iter=50, stop="relative-change")
    assert not res.converged
    assert res.n_iter == 50


@pytest.mark.parametrize("stop", ["gap", "relative-change"])
def test_non_spanning_arms_value_is_rank(stop):
    arms = random_arms(10, 30, seed=1030)  # rank 10 in R^30
    res = frank_wolfe_design(arms, tol=TOL, stop=stop)
    bound = 1 + 2 * TOL if stop == "gap" else 1.05
    assert 10 * (1 - 1e-9) <= res.value <= 10 * bound
    assert res.value == pytest.approx(objective(arms, res.weights), rel=1e-9)


def test_rank_deficient_arms_with_targets_in_span():
    rng = np.random.default_rng(7)
    arms = rng.standard_normal((40, 4)) @ rng.standard_normal((4, 12))  # rank 4 in R^12
    targets = rng.standard_normal((15, 40)) @ arms / 10.0
    res = frank_wolfe_design(arms, targets, tol=TOL)
    assert res.converged
    assert res.value == pytest.approx(objective(arms, res.weights, targets), rel=1e-8)
    assert frank_wolfe_design(arms, tol=TOL).value == pytest.approx(4.0, rel=2 * TOL)


def test_multi_armed_closed_form():
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    res = frank_wolfe_design(np.eye(5), target_weights=w, tol=TOL)
    # max_i w_i / lambda_i is minimised by lambda proportional to w, with value sum(w).
    np.testing.assert_allclose(res.weights, w / w.sum(), atol=1e-2)
    assert w.sum() * (1 - 1e-9) <= res.value <= w.sum() * (1 + 2 * TOL)
    assert res.value - w.sum() <= res.gap + 1e-12


def test_transductive_single_target_closed_form():
    res = frank_wolfe_design(np.eye(2), targets=[[1.0, 1.0]], tol=TOL)
    np.testing.assert_allclose(res.weights, [0.5, 0.5], atol=1e-6)
    assert res.value == pytest.approx(4.0, rel=TOL)
    assert res.value - 4.0 <= res.gap + 1e-12


def test_single_target_singular_optimum():
    # The c-optimal design for y = (1, 1) puts all weight on the arm y itself (value 1).
    arms = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    res = frank_wolfe_design(arms, targets=[[1.0, 1.0]], tol=TOL)
    assert res.converged
    assert 1.0 - 1e-9 <= res.value <= 1.0 + 2 * TOL
    assert res.weights[2] > 0.99


def test_single_target_tight_tolerance_is_exact():
    res = frank_wolfe_design([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], targets=[[1.0, 1.0]], tol=1e-6)
    assert res.converged
    np.testing.assert_array_equal(res.weights, [0.0, 0.0, 1.0])
    assert res.value == pytest.approx(1.0, abs=1e-12)


def test_subset_of_independent_arms_singular_optimum():
    """ACOL's case: arms linearly independent (n < d), targets a subset S; the optimum is uniform on S."""
    arms = random_arms(12, 30, seed=12)
    subset = [0, 3, 4, 7, 10]
    res = frank_wolfe_design(arms, targets=arms[subset], tol=TOL)
    assert res.converged
    assert 5 * (1 - 1e-9) <= res.value <= 5 * (1 + 2 * TOL)
    assert res.value - 5 <= res.gap + 1e-12
    off = np.setdiff1d(np.arange(12), subset)
    assert res.weights[off].sum() <= 2 * TOL
    assert res.value == pytest.approx(objective(arms, res.weights, arms[subset]), rel=1e-9)


def test_multi_armed_with_wide_weight_range():
    w = 10.0 ** np.random.default_rng(3).uniform(0.0, 4.0, 20)
    res = frank_wolfe_design(np.eye(20), target_weights=w, tol=1e-4)
    assert res.converged
    np.testing.assert_allclose(res.weights, w / w.sum(), rtol=1e-2)
    assert w.sum() * (1 - 1e-9) <= res.value <= w.sum() * (1 + 2e-4)


def test_zero_arm_is_allowed_and_unused():
    res = frank_wolfe_design([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]], tol=TOL)
    assert res.weights[1] == 0.0
    assert res.value == pytest.approx(2.0, rel=2 * TOL)


def test_transductive_differences_closed_form():
    k = 4
    i, j = np.triu_indices(k, 1)
    diffs = np.eye(k)[i] - np.eye(k)[j]
    # ||e_i - e_j||^2 = 1 / lambda_i + 1 / lambda_j: the uniform design is optimal, value 2k.
    res = frank_wolfe_design(np.eye(k), targets=diffs, tol=TOL)
    np.testing.assert_allclose(res.weights, np.full(k, 1 / k), atol=1e-2)
    assert 2 * k * (1 - 1e-9) <= res.value <= 2 * k * (1 + 2 * TOL)
    assert res.value - 2 * k <= res.gap + 1e-12


def test_target_outside_span_is_rejected():
    arms = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    with pytest.raises(ConfigError, match=r"'targets' parameter.*row span"):
        frank_wolfe_design(arms, targets=[[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def test_all_zero_targets_have_value_zero():
    res = frank_wolfe_design(np.eye(3), targets=np.zeros((2, 3)))
    assert res.value == 0.0
    assert res.gap == 0.0
    np.testing.assert_allclose(res.weights, np.full(3, 1 / 3))


# --------------------------------------------------------------------------------------------------
# certificate, invariances, simplex, determinism
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_certificate_bounds_every_design(seed):
    """``value - gap`` is a lower bound on the objective of any design (here: random ones)."""
    rng = np.random.default_rng(seed)
    arms = rng.standard_normal((25, 5))
    targets = rng.standard_normal((12, 5))
    tw = rng.uniform(0.5, 2.0, 12)
    res = frank_wolfe_design(arms, targets, tw, tol=TOL)
    assert res.converged
    lower = res.value - res.gap
    for _ in range(20):
        other = rng.dirichlet(np.full(25, 0.3))
        assert objective(arms, other, targets, tw) >= lower - 1e-9
    authors = frank_wolfe_design(arms, targets, tw, tol=1e-2, stop="relative-change")
    assert authors.value >= lower - 1e-9
    assert res.value == pytest.approx(objective(arms, res.weights, targets, tw), rel=1e-9)


def test_certificate_holds_when_not_converged():
    arms = random_arms(60, 12, seed=11)
    res = frank_wolfe_design(arms, tol=1e-6, max_iter=30)
    assert not res.converged
    assert res.n_iter <= 30
    assert res.value - 12 <= res.gap + 1e-12


def test_scaling_invariances():
    rng = np.random.default_rng(5)
    arms = rng.standard_normal((20, 4))
    targets = rng.standard_normal((8, 4))
    base = frank_wolfe_design(arms, targets, tol=TOL)
    scaled_arms = frank_wolfe_design(2.0 * arms, targets, tol=TOL)
    scaled_weights = frank_wolfe_design(arms, targets, np.full(8, 3.0), tol=TOL)
    assert scaled_arms.value == pytest.approx(base.value / 4.0, rel=3 * TOL)
    assert scaled_weights.value == pytest.approx(3.0 * base.value, rel=3 * TOL)


@pytest.mark.parametrize("stop", ["gap", "relative-change"])
def test_weights_on_simplex_and_deterministic(stop):
    rng = np.random.default_rng(9)
    arms = rng.standard_normal((40, 6))
    targets = rng.standard_normal((10, 6))
    first = frank_wolfe_design(arms, targets, tol=1e-2, stop=stop)
    second = frank_wolfe_design(arms.tolist(), targets.tolist(), tol=1e-2, stop=stop)
    assert isinstance(first, Design)
    assert first.weights.shape == (40,)
    assert first.weights.dtype == np.float64
    assert np.all(first.weights >= 0.0)
    assert first.weights.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(first.weights, second.weights)
    assert first.value == second.value
    assert first.n_iter == second.n_iter


def test_small_weights_are_pruned():
    # The short arm is never chosen: 2/(k+2) steps shrink its weight to about 2e-9 in 2e4 steps.
    arms = [[1.0, 0.0], [0.0, 1.0], [0.01, 0.01]]
    res = frank_wolfe_design(arms, tol=1e-9, max_iter=20_000, stop="relative-change")
    assert res.weights[2] == 0.0
    assert res.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert res.value == pytest.approx(objective(arms, res.weights), rel=1e-12)
    for design in (frank_wolfe_design(random_arms(100, 5, seed=4), tol=TOL), res):
        positive = design.weights[design.weights > 0]
        assert positive.min() >= 1e-8 * positive.max()


def test_init_warm_start_and_non_spanning_init():
    arms = random_arms(30, 6, seed=8)
    cold = frank_wolfe_design(arms, tol=TOL)
    warm = frank_wolfe_design(arms, tol=TOL, init=cold.weights)
    assert warm.converged
    assert warm.value <= 6 * (1 + 2 * TOL)
    one_arm = np.zeros(30)
    one_arm[0] = 5.0  # does not span R^6: mixed with the uniform design
    res = frank_wolfe_design(arms, tol=TOL, init=one_arm)
    assert res.converged
    assert res.value <= 6 * (1 + 2 * TOL)


def test_uniform_design():
    np.testing.assert_allclose(uniform_design(4), np.full(4, 0.25))
    with pytest.raises(ConfigError, match="'n_arms'"):
        uniform_design(0)


# --------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------
ARMS = np.eye(3)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"arms": [[1.0, np.nan], [0.0, 1.0]]}, "arms"),
        ({"arms": [[1.0, np.inf], [0.0, 1.0]]}, "arms"),
        ({"arms": [1.0, 2.0]}, "arms"),
        ({"arms": np.zeros((0, 3))}, "arms"),
        ({"arms": np.zeros((3, 0))}, "arms"),
        ({"arms": np.zeros((3, 2))}, "arms"),
        ({"arms": "abc"}, "arms"),
        ({"targets": [[1.0, 0.0]]}, "targets"),
        ({"targets": [[np.nan, 0.0, 0.0]]}, "targets"),
        ({"targets": np.zeros((0, 3))}, "targets"),
        ({"target_weights": [1.0, 0.0, 1.0]}, "target_weights"),
        ({"target_weights": [1.0, -1.0, 1.0]}, "target_weights"),
        ({"target_weights": [1.0, 1.0]}, "target_weights"),
        ({"target_weights": [1.0, np.nan, 1.0]}, "target_weights"),
        ({"tol": 0.0}, "tol"),
        ({"tol": 1.0}, "tol"),
        ({"tol": -0.1}, "tol"),
        ({"tol": math.nan}, "tol"),
        ({"tol": "0.1"}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 10.5}, "max_iter"),  # (integral floats such as 10.0 count as integers)
        ({"stop": "never"}, "stop"),
        ({"init": [1.0, -0.5, 0.5]}, "init"),
        ({"init": [0.0, 0.0, 0.0]}, "init"),
        ({"init": [0.5, 0.5]}, "init"),
    ],
)
def test_invalid_arguments_raise_config_error(kwargs, name):
    args = {"arms": ARMS, **kwargs}
    with pytest.raises(ConfigError, match=f"'{name}' parameter"):
        frank_wolfe_design(**args)


def test_config_error_is_value_error():
    with pytest.raises(ValueError, match="'tol' parameter of frank_wolfe_design"):
        frank_wolfe_design(ARMS, tol=2.0)
