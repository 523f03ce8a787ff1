"""Claims of Zhou & Ji (CKB) on hand-made run tables: the stronger regret and the stronger violation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandits.papers.ckb.claims import (
    CKB,
    CKB_CLAIM_SETS,
    PAPER_METHODS,
    SLACK_LABEL,
    _claim_dual,
    _claim_few_violations,
    _claim_strong_violation,
    _claim_sublinear,
    _claim_v_zero,
    _ok,
    check_ckb_light,
    check_ckb_slack_horizons,
    check_ckb_synthetic,
    horizon_bound_slope,
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


def test_v_zero_is_read_per_run():
    # Two of five runs end with sum g > 0 while the mean over runs is negative: V(T) = [sum_t g(x_t)]_+ is
    # a per-run quantity, so the claim fails (issue 31: the mean-over-runs reading is withdrawn).
    df = _table(cost=[0.01, 0.02, -0.2, -0.2, -0.2])
    claim = _claim_v_zero(_ok(df), CKB, 0)
    assert not claim["passed"]
    ev = claim["evidence"]["by_method"]["CKB-UCB"]
    assert ev["runs_with_V>0"] == 2 and ev["mean_sum_g"] == pytest.approx(-0.114 * T)
    assert ev["max_V"] == pytest.approx(0.02 * T) and not ev["ok"]
    # every run at or below zero (a zero sum included) passes
    passed = _claim_v_zero(_ok(_table(cost=[0.0, -0.01, -0.2, 0.0, -1e-3])), CKB, 0)
    assert passed["passed"] and passed["evidence"]["by_method"]["CKB-TS"]["runs_with_V>0"] == 0
    # one run of one method above zero is enough to fail
    one = _table(cost=[-0.1] * 5)
    one.loc[(one["label"] == "CKB-Rand") & (one["replicate"] == 3), "cost"] = 1e-6
    claim = _claim_v_zero(_ok(one), CKB, 0)
    assert not claim["passed"] and claim["evidence"]["by_method"]["CKB-UCB"]["ok"]
    assert not _claim_v_zero(_ok(_table()), PAPER_METHODS, 0)["passed"]  # baselines absent


def test_v_zero_is_claimed_on_synthetic_and_light_only():
    # Sec. 5.1 states V(T) = 0 for synthetic and light data; Sec. 5.2 (finance) reads only N.
    from safebandits.papers.ckb.claims import CLAIM_META, check_ckb_finance
    from safebandits.papers.ckb.digest import COVERAGE

    assert "ckb-v-zero" not in [c["id"] for c in check_ckb_finance(_table())]
    assert "ckb-v-zero" in [c["id"] for c in check_ckb_synthetic(_table())]
    assert "ckb-v-zero" in [c["id"] for c in check_ckb_light(_table())]
    assert "ckb-v-zero" not in CLAIM_META["ckb-finance"]
    item4 = next(refs for num, _, refs in COVERAGE if num == 4)
    assert {e for e, _ in item4} == {"ckb-synthetic", "ckb-light"}


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


# -- Section 4 across horizons (ckb-slack-horizons, issue 17) ---------------------------------------
HORIZONS = (1_000, 3_162, 10_000, 31_623, 100_000)


def _sweep(regret_of_t, sum_g_of_t=lambda t: -0.1 * t, runs=4, base=True) -> pd.DataFrame:
    """Runs of CKB-UCB (slack) (and CKB-UCB) at every horizon; ``regret_of_t(t)`` is the R+ of every run."""
    rows = []
    for label in (SLACK_LABEL, "CKB-UCB") if base else (SLACK_LABEL,):
        for t in HORIZONS:
            for rep in range(runs):
                r = float(regret_of_t(t))
                rows.append(
                    {"label": label, "status": "ok", "replicate": rep, "panel": f"T={t}", "sweep.value": 0.1,
                     "instance.T": t, "samples": t, "cost": float(sum_g_of_t(t)) / t, "violations": 3,
                     "regret": r, "regret_tenth": r / 3, "policy_regret": r, "policy_regret_tenth": r / 3,
                     "diag.slack": 0.1 if label == SLACK_LABEL else 0.0}
                )  # fmt: skip
    return pd.DataFrame(rows)


def test_horizon_bound_slope_is_the_secant_of_the_bound_order():
    # Two horizons: the least-squares slope is the secant 0.5 + 2 ln(ln T2 / ln T1) / ln(T2 / T1).
    want = 0.5 + 2 * np.log(np.log(1e4) / np.log(1e3)) / np.log(10.0)
    assert horizon_bound_slope([1_000, 10_000]) == pytest.approx(want)
    assert horizon_bound_slope(HORIZONS) == pytest.approx(0.7211, abs=1e-3)
    assert horizon_bound_slope(HORIZONS, 0.0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="two or more"):
        horizon_bound_slope([1_000, 1_000])


@pytest.mark.parametrize(
    ("regret", "passed"),
    [
        (lambda t: 3.0 * np.sqrt(t) * np.log(t), True),  # slope 0.5 + 1/ln T < bound's 0.5 + 2/ln T
        (lambda t: 0.05 * t, False),  # linear across horizons
        (lambda t: 0.02 * t**0.8, False),  # polynomial above the bound's order
        (lambda t: 0.0, True),  # no regret at all
    ],
)
def test_slack_claim_compares_regret_across_horizons(regret, passed):
    claim = check_ckb_slack_horizons(_sweep(regret))[0]
    assert claim["id"] == "ckb-slack" and claim["passed"] is passed
    ev = claim["evidence"]
    assert ev["horizons"] == list(HORIZONS) and ev["v_zero_ok"] and ev["regret_ok"] is passed
    assert ev["slope_max"] == pytest.approx(horizon_bound_slope(HORIZONS))
    assert "slope=" in claim["key_numbers"]


def test_slack_claim_needs_violation_bounded_or_zero_per_run():
    # V(T) > 0 and growing with T (5 at T = 3,162, 50 at the largest horizon): not bounded
    def sum_g(t):
        return {3_162: 5.0, HORIZONS[-1]: 50.0}.get(t, -1.0)

    claim = check_ckb_slack_horizons(_sweep(lambda t: 10.0, sum_g))[0]
    assert not claim["passed"] and claim["evidence"]["regret_ok"] and not claim["evidence"]["v_zero_ok"]
    assert claim["evidence"]["with_slack"]["3162"]["runs_with_V>0"] == 4
    # V(T) > 0 at one horizon only, back to 0 at the largest: bounded (not zero)
    claim = check_ckb_slack_horizons(_sweep(lambda t: 10.0, lambda t: 5.0 if t == 3_162 else -1.0))[0]
    ev = claim["evidence"]
    assert claim["passed"] and ev["v_bounded"] and not ev["v_all_zero"]


def test_slack_claim_reads_each_run_not_the_mean_and_needs_two_horizons():
    df = _sweep(lambda t: np.sqrt(t), base=False)
    # one run in four ends with V(T) = 0.01 T > 0 at every horizon: the mean over runs stays < 0 (the
    # reading before issue 31 passed it), but that run's violation grows with T
    df.loc[df["replicate"] == 0, "cost"] = 0.01
    claim = check_ckb_slack_horizons(df)[0]
    assert not claim["passed"] and claim["evidence"]["without_slack"] == {}
    assert claim["evidence"]["with_slack"]["1000"]["runs_with_V>0"] == 1
    df.loc[df["replicate"] == 0, "cost"] = 2.0 / df.loc[df["replicate"] == 0, "samples"]  # V(T) = 2 always
    assert check_ckb_slack_horizons(df)[0]["passed"]  # bounded per run
    one = check_ckb_slack_horizons(df[df["instance.T"] == 1_000])[0]
    assert not one["passed"] and "two or more" in one["evidence"]["note"]


def test_synthetic_claim_set_no_longer_reads_the_slack_within_one_horizon():
    assert "ckb-slack" not in [c["id"] for c in check_ckb_synthetic(_table())]
    assert CKB_CLAIM_SETS["ckb-slack-horizons"] is check_ckb_slack_horizons


def test_slack_sweep_experiment_runs_separate_horizons():
    from safebandits.experiments.spec import expand, get_experiment

    spec = get_experiment("ckb-slack-horizons")
    assert spec.labels == ["CKB-UCB", SLACK_LABEL] and spec.claims == "ckb-slack-horizons"
    tasks = expand(spec, "quick")
    assert sorted({t.instance_params["T"] for t in tasks}) == list(HORIZONS)
    assert len(tasks) == len(HORIZONS) * 2 * spec.replicates["quick"]
    assert {t.algorithm_params.get("slack") for t in tasks if t.label == SLACK_LABEL} == {"auto"}
