"""Issue 31: beside/mab's other arms by the stated rule (harder to show safe than suboptimal)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.problems import make_instance


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 0.6), st.integers(3, 12))
def test_default_other_gap_is_half_the_tolerance(eps, k):
    inst = make_instance("beside/mab", n_arms=k, epsilon=eps)
    gaps = inst.threshold - inst.constraint_params[0]
    np.testing.assert_allclose(gaps[2:], eps / 2)
    values = inst.reward_param
    # the premise at eps = 0.5: value gap to the eps-good arm 2 above eps, safety gap below
    if eps == pytest.approx(0.5):
        assert values[1] - values[2] > eps > gaps[2]


def test_explicit_other_gap_is_kept():
    inst = make_instance("beside/mab", n_arms=6, other_safety_gap=1.0)
    np.testing.assert_allclose((inst.threshold - inst.constraint_params[0])[2:], 1.0)


def test_figure_2_instance_satisfies_the_rule():
    inst = make_instance("beside/mab", n_arms=10, epsilon=0.5)
    gaps = inst.threshold - inst.constraint_params[0]
    values = inst.reward_param
    assert gaps[2] == pytest.approx(0.25)
    assert values[1] - values[2] == pytest.approx(0.75)
    assert values[1] - values[2] > 0.5 > gaps[2]
    assert gaps[0] < gaps[2] < gaps[1]  # between the hard and the easy arm
