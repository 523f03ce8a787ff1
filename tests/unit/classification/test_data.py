from __future__ import annotations

import numpy as np
import pytest

from safebandits.classification import half_circle_pool, load_adult, load_german


def test_adult(shared_data):
    pool = load_adult(shared_data)
    assert pool.features.shape[0] == 48_842
    assert pool.eta.sum() == 11_687  # 7,841 + 3,846 records with income > 50K
    assert np.all(np.isfinite(pool.features))
    numeric = pool.features[:, :5]
    np.testing.assert_allclose(numeric.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(numeric.std(axis=0), 1.0, atol=1e-9)
    assert any(name.endswith("=missing") for name in pool.feature_names)  # '?' kept as a category
    onehot = pool.features[:, 5:]
    assert set(np.unique(onehot)) == {0.0, 1.0}
    assert np.all(onehot.sum(axis=1) == 7)  # one level per categorical column


def test_german(shared_data):
    pool = load_german(shared_data / "uci_german")
    assert pool.features.shape[0] == 1000
    assert pool.eta.sum() == 300  # bad credit
    assert np.all(pool.features[:, 7:].sum(axis=1) == 13)


def test_half_circle():
    pool = half_circle_pool(np.random.default_rng(0), n_points=500, boundary=0.25, label_noise=0.1)
    assert pool.features.shape == (500, 2)
    assert set(np.unique(pool.eta)) == {0.1, 0.9}
    radius = np.linalg.norm(pool.features, axis=1)
    assert np.all((radius >= 0.9) & (radius <= 1.0)) and np.all(pool.features[:, 1] >= 0)
    angle = np.arctan2(pool.features[:, 1], pool.features[:, 0])
    assert np.all((angle < np.pi / 4) == (pool.eta > 0.5))
    with pytest.raises(ValueError, match="boundary"):
        half_circle_pool(np.random.default_rng(0), boundary=1.5)
