"""Theory quantities against closed forms derived in the digest (acol.md sections 4.1, 4.4, 7)."""

import math

import numpy as np
import pytest

from safebandits import make_instance
from safebandits.papers.acol.cbai_bounds import cbai_bounds, h_clb, h_clb_all_arms


@pytest.mark.parametrize("d, eps", [(5, 0.05), (20, 0.05), (10, 0.1)])
def test_irrelevant_dimensions_closed_forms(d, eps):
    inst = make_instance("acol/irrelevant-dimensions", d=d, epsilon=eps)
    assert h_clb(inst) == pytest.approx(1 / eps**2, rel=1e-3)  # independent of d
    assert h_clb_all_arms(inst) == pytest.approx((d - 1) + 1 / eps**2, rel=1e-3)
    b = cbai_bounds(inst, delta=0.05)
    assert b["worst_case"] == pytest.approx(d / eps**2)
    assert b["g_design_value"] == pytest.approx(d, rel=1e-3)  # Kiefer-Wolfowitz
    assert b["lower_bound"] == pytest.approx(2 * math.log(1 / (2.4 * 0.05)) / eps**2, rel=1e-3)
    assert b["acol_rounds"] == math.ceil(math.log2(1 / eps))


def test_one_dimensional_h_clb_is_36():
    inst = make_instance("acol/one-dimensional")
    assert h_clb(inst) == pytest.approx(36.0, rel=1e-3)


@pytest.mark.parametrize("seed", range(5))
def test_ordering_of_bounds(seed):
    inst = make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=15, d=5)
    b = cbai_bounds(inst)
    # Proposition 1: H_CLB <= H~_CLB <= d / C_min^2
    assert b["h_clb"] <= b["h_clb_all_arms"] * (1 + 1e-3) <= b["worst_case"] * (1 + 2e-3)
    assert 0 < b["lower_bound"] < b["oracle_bound"]
    assert b["oracle_bound"] <= b["g_allocation_bound"] * (1 + 1e-9) or b["h_clb"] > inst.dim


def test_learned_threshold_keeps_h_clb():
    inst = make_instance("acol/irrelevant-dimensions", d=5, epsilon=0.1)
    aug = inst.with_learned_threshold()
    # the constant feature adds a direction to learn: the problem can only get harder
    assert h_clb(aug) >= h_clb(inst) * (1 - 1e-3)


def test_bad_delta():
    inst = make_instance("acol/one-dimensional")
    with pytest.raises(ValueError, match="delta"):
        cbai_bounds(inst, delta=1.5)
