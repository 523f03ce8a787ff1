"""One noise formula: every path of every noise model computes ``observe_code`` bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from safebandits.problems.noise import BernoulliNoise, BinaryNoise, GaussianNoise, observe_code, observe_into


@pytest.mark.parametrize("model", [GaussianNoise(0.3), GaussianNoise(0.0), BinaryNoise(), BernoulliNoise()])
@pytest.mark.parametrize("size", [1, 3, 33, 500])  # (small arrays: a Python loop; large: compiled)
def test_all_paths_agree_with_observe_code(model, size):
    rng = np.random.default_rng(size)
    if model.code == 0:
        means, z = rng.normal(size=size), rng.normal(size=size)
    else:
        lo = -1.0 if model.code == 1 else 0.0
        means, z = rng.uniform(lo, 1.0, size=size), rng.random(size)
    sigma = getattr(model, "sigma", 0.0)
    expected = np.array([observe_code(model.code, sigma, m, v) for m, v in zip(means, z)])  # compiled
    np.testing.assert_array_equal(model.observe(means, z), expected)
    np.testing.assert_array_equal([model.observe_scalar(m, v) for m, v in zip(means, z)], expected)
    out = np.empty(size)
    observe_into(model.code, sigma, means, z, out)
    np.testing.assert_array_equal(out, expected)
    # 2-D inputs keep their shape
    np.testing.assert_array_equal(model.observe(means[None, :], z[None, :]), expected[None, :])
