"""Claims of Zhou & Ji (CKB) on hand-made run tables: the stronger regret and the stronger violation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandits.experiments.claims_ckb import (
    CKB,
    _claim_strong_violation,
    _claim_sublinear,
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
