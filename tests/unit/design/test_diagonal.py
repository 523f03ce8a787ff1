from __future__ import annotations

import numpy as np
import pytest

from safebandits.design import diagonal_design, frank_wolfe_design


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_the_dense_solver(seed):
    """A permuted identity is not dispatched: the dense Frank-Wolfe solver gives the same optimum."""
    rng = np.random.default_rng(seed)
    n, m = 12, 5
    targets = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.6)
    targets[:, 0] += 1.0  # every target non-zero
    weights = rng.uniform(0.5, 2.0, m)
    perm = rng.permutation(n)
    arms = np.eye(n)[perm]
    dense = frank_wolfe_design(arms, targets, weights, tol=1e-6)
    fast = diagonal_design(weights[:, None] * targets**2, tol=1e-6)
    assert fast.converged
    assert fast.value == pytest.approx(dense.value, rel=1e-4)
    assert fast.value - fast.gap <= dense.value * (1 + 1e-6)  # certificate is a lower bound
    # the dispatched path (diagonal arms) equals the direct call
    scaled = frank_wolfe_design(np.diag(np.full(n, 2.0)), targets, weights, tol=1e-6)
    assert scaled.value == pytest.approx(fast.value / 4.0, rel=1e-6)


def test_closed_forms_and_simplex():
    res = diagonal_design([[1.0, 4.0, 9.0]])  # lambda ~ sqrt(c)
    np.testing.assert_allclose(res.weights, np.array([1, 2, 3]) / 6)
    assert res.value == pytest.approx(36.0)
    rng = np.random.default_rng(3)
    z = (rng.random((8, 3000)) < 0.2).astype(float)
    for costs in (z, (z[:, None, :] != z[None, :, :]).reshape(64, -1).astype(float)):
        res = diagonal_design(costs, tol=1e-4)
        assert res.converged and res.gap <= 1e-4 * res.value
        assert res.weights.sum() == pytest.approx(1.0) and np.all(res.weights >= 0)
        assert np.all(res.weights[~costs.any(axis=0)] == 0.0)
        widths = costs @ np.divide(1.0, res.weights, out=np.zeros_like(res.weights), where=res.weights > 0)
        assert widths.max() == pytest.approx(res.value)


def test_zero_costs_and_errors():
    res = diagonal_design(np.zeros((2, 4)))
    np.testing.assert_allclose(res.weights, 0.25)
    assert res.value == 0.0
    with pytest.raises(ValueError, match="non-negative"):
        diagonal_design([[-1.0, 1.0]])
