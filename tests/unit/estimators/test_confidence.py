"""Confidence widths of Propositions 2 and 3."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.estimators.confidence import adaptive_width, adaptive_width_scalar, static_width
from safebandits.exceptions import ConfigError


def test_static_width_formula():
    assert static_width(10, 0.05) == pytest.approx(math.sqrt(2 * math.log(200)))
    assert static_width(1, 0.5) == pytest.approx(math.sqrt(2 * math.log(2)))


def test_static_width_monotone():
    deltas = [0.5, 0.1, 0.05, 0.01, 1e-6]
    widths = [static_width(10, d) for d in deltas]
    assert np.all(np.diff(widths) > 0)
    assert static_width(100, 0.05) > static_width(10, 0.05)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_widths_reject_bad_delta(bad):
    with pytest.raises(ConfigError, match="delta"):
        static_width(10, bad)
    with pytest.raises(ConfigError, match="delta"):
        adaptive_width(5, 3, bad, 0.1)


def test_adaptive_width_formula_matches_authors_code():
    # sqbeta = R*sqrt(d*log((1+N*L**2/lam)/delta)) + sqrt(lam)*S
    expected = 2.0 * math.sqrt(4 * math.log((1 + 17 * 1.5**2 / 0.1) / 0.05)) + math.sqrt(0.1) * 3.0
    assert adaptive_width(17, 4, 0.05, 0.1, 2.0, 1.5, 3.0) == pytest.approx(expected, rel=1e-14)


def test_adaptive_width_vectorised_and_monotone():
    t = np.arange(0, 1000, 7)
    w = adaptive_width(t, 5, 0.05, 0.1)
    assert isinstance(w, np.ndarray) and w.shape == t.shape
    assert np.all(np.diff(w) > 0)
    assert isinstance(adaptive_width(3, 5, 0.05, 0.1), float)
    for k in (0, 5, 99):
        assert w[k] == pytest.approx(adaptive_width(int(t[k]), 5, 0.05, 0.1), rel=1e-15)
    assert adaptive_width(10, 5, 0.01, 0.1) > adaptive_width(10, 5, 0.05, 0.1)
    assert adaptive_width(10, 8, 0.05, 0.1) > adaptive_width(10, 5, 0.05, 0.1)


def test_adaptive_width_scalar_agrees():
    for t in (0, 1, 10, 12345):
        assert adaptive_width_scalar(float(t), 7.0, 0.05, 0.1, 1.0, 1.0, 1.0) == pytest.approx(
            adaptive_width(t, 7, 0.05, 0.1), rel=1e-13
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reg": 0.0}, "reg"),
        ({"dim": 0}, "dim"),
        ({"t": -1}, "'t'"),
        ({"noise_bound": -1.0}, "noise_bound"),
        ({"arm_norm_bound": 0.0}, "arm_norm_bound"),
        ({"param_norm_bound": -1.0}, "param_norm_bound"),
    ],
)
def test_adaptive_width_rejects_bad_arguments(kwargs, match):
    args = {"t": 1, "dim": 2, "delta": 0.05, "reg": 0.1, **kwargs}
    with pytest.raises(ConfigError, match=match):
        adaptive_width(**args)
