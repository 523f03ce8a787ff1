"""Claims of Zhou & Ji (CKB) on hand-made run tables: the stronger regret and the stronger violation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandits.experiments.claims_ckb import (
    CKB,
    PAPER_METHODS,
    _claim_dual,
    _claim_few_violations,
    _claim_strong_violation,
    _claim_sublinear,
    _claim_v_zero,
    _ok,
    check_ckb_light,
)

T = 10_000


def _table(**cols_by_label) -> pd.DataFrame:
    """Five runs per CKB variant; ``cols_by_label`` maps a column to a per-replicate array."""
    rows = []
    for label in CKB:
        for rep in range(5):
            row = {"label": label, "status": "ok", "replicate": rep, "panel": "p", "sweep.value": 0.1}
            row.update({"samples": T, "cost": -0.1, "violations": 0, "regret": 50.0, "regret_tenth": 20.0})
            row.update({"policy_regret": 50.0, "policy_regret_tenth": 20.0})
            row.update({"positive_cost": 0.0, "positive_cost_tenth": 0.0})
            row.update({k: float(np.asarray(v)[rep]) for k, v in cols_by_label.items()})
            rows.append(row)
    return pd.DataFrame(rows)


def test_sublinear_passes_on_a_flattening_stronger_regret():
    claim = _claim_sublinear(_ok(_table()))
    assert claim["passed"] and claim["evidence"]["CKB-UCB"]["slope"] == pytest.approx(np.log10(2.5))


def test_negative_regret_bought_with_violations_does_not_pass_trivially():
    # R(T) < 0 (an infeasible point beats x*), but R+ grows linearly in the runs where it is positive.
    df = _table(
        regret=[-900.0] * 5,
        regret_tenth=[-90.0] * 5,
        policy_regret=[1000.0, 1000.0, -50.0, 1000.0, -50.0],
        policy_regret_tenth=[100.0, 100.0, -5.0, 100.0, -5.0],
    )
    claim = _claim_sublinear(_ok(df))
    assert not claim["passed"]
    ev = claim["evidence"]["CKB-UCB"]
    assert ev["slope"] == pytest.approx(1.0) and ev["runs_with_R+_negative"] == 2


def test_sublinear_falls_back_to_R_without_the_stronger_regret_column():
    df = _table().drop(columns=["policy_regret_tenth"])
    claim = _claim_sublinear(_ok(df))
    assert claim["passed"] and "no R+(T/10)" in claim["evidence"]["CKB-TS"]["quantity"]


@pytest.mark.parametrize(
    ("end", "tenth", "passed"),
    [(0.0, 0.0, True), (40.0, 10.0, True), (100.0, 10.0, False), (5.0, 0.0, False)],
)
def test_stronger_violation_slope(end, tenth, passed):
    df = _table(positive_cost=[end] * 5, positive_cost_tenth=[tenth] * 5)
    assert _claim_strong_violation(_ok(df))["passed"] is passed


def test_light_claim_set_includes_the_stronger_violation():
    ids = [c["id"] for c in check_ckb_light(_table())]
    assert "ckb-strong-violation-sublinear" in ids and "ckb-sublinear" in ids


def test_v_zero_is_read_on_the_mean_over_runs():
    # Two of five runs end with sum g > 0, but the mean over runs is negative: the paper's reading passes.
    df = _table(cost=[0.01, 0.02, -0.2, -0.2, -0.2])
    claim = _claim_v_zero(_ok(df), CKB, 0)
    assert claim["passed"]
    ev = claim["evidence"]["by_method"]["CKB-UCB"]
    assert ev["runs_with_V>0"] == 2 and ev["mean_sum_g"] == pytest.approx(-0.114 * T)
    assert not _claim_v_zero(_ok(_table(cost=[0.05, 0.05, -0.01, 0.0, 0.0])), CKB, 0)["passed"]
    assert not _claim_v_zero(_ok(_table()), PAPER_METHODS, 0)["passed"]  # baselines absent


@pytest.mark.parametrize(
    ("key", "n", "passed"),
    [
        ("ckb-synthetic", 5, True),
        ("ckb-synthetic", 6, False),
        ("ckb-light", 0, True),
        ("ckb-light", 1, False),
    ],
)
def test_few_violations_uses_the_papers_counts(key, n, passed):
    claim = _claim_few_violations(_ok(_table(violations=[n] * 5)), key)
    assert claim["passed"] is passed
    assert claim["evidence"]["CKB-UCB"]["limit"] == {"ckb-synthetic": 5.0, "ckb-light": 0.0}[key]


def test_dual_claim_can_fail_when_phi_sits_at_rho():
    df = _table(**{"diag.phi": [0.5] * 5, "diag.phi_max": [1.0] * 5, "diag.rho": [2.0] * 5})
    assert _claim_dual(_ok(df))["passed"]
    df = _table(**{"diag.phi": [0.5, 0.5, 2.0, 0.5, 0.5], "diag.phi_max": [2.0] * 5, "diag.rho": [2.0] * 5})
    claim = _claim_dual(_ok(df))
    assert not claim["passed"] and claim["evidence"]["runs_pinned_at_T"] == 3
