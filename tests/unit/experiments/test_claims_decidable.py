"""Issue 31: readings that cannot decide are inconclusive with their reason; knife-edge passes and fails
carry their margin in standard errors; slope checks are library diagnostics and the theorems are read as
bounds (issue 42)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.experiments.claim_base import KNIFE_EDGE_SE, claim, z_margin
from safebandits.experiments.claims import check_claims
from safebandits.experiments.claims_meta import finalise_claims
from safebandits.papers.stagewise.claims import slope_se, theorem_bound


def by_id(claims):
    return {c["id"]: c for c in claims}


@settings(max_examples=100, deadline=None)
@given(st.floats(-1e6, 1e6), st.floats(1e-6, 1e6))
def test_z_margin_is_the_difference_in_standard_errors(diff, se):
    assert z_margin(diff, se) == pytest.approx(diff / se)


def test_z_margin_without_an_error():
    assert z_margin(1.0, None) is None and z_margin(0.0, 0.0) is None
    assert z_margin(2.0, 0.0) == math.inf and z_margin(-2.0, 0.0) == -math.inf


def _final(rec):
    df = pd.DataFrame({"label": ["A"], "status": ["ok"], "scale": ["paper"], "stopped": [True]})
    return finalise_claims([rec], df, "no-such-set")[0]


@pytest.mark.parametrize("margin, flagged", [(0.5, True), (-1.9, True), (2.5, False), (-3.0, False)])
def test_knife_edge_keeps_the_verdict_and_gives_the_margin(margin, flagged):
    rec = _final(claim("x", "text", margin > 0, {"value": 1.0}, margin_se=margin))
    assert rec["verdict"] == ("pass" if margin > 0 else "fail")
    assert rec.get("knife_edge", False) is flagged
    assert rec["evidence"]["margin_se"] == margin
    assert ("knife-edge" in rec["reason"]) is flagged
    if flagged:
        assert f"{margin:+.2f} standard errors" in rec["reason"] and abs(margin) < KNIFE_EDGE_SE


def test_infinite_margin_is_stored_as_text_and_is_no_knife_edge():
    rec = _final(claim("x", "text", True, {}, margin_se=math.inf))
    assert "margin_se" not in rec and rec["evidence"]["margin_se"] == "inf" and "knife" not in rec["reason"]
    json.dumps(rec, allow_nan=False)


def test_cannot_decide_is_inconclusive_with_its_reason_and_keeps_the_outcome():
    rec = _final(claim("x", "text", False, {"v": 1}, cannot_decide="both at the ceiling"))
    assert rec["verdict"] == "inconclusive" and not rec["passed"]
    assert "both at the ceiling" in rec["reason"] and rec["evidence"]["reading_outcome"] == "fail"


def _runs(curves_by_label):
    rows = [
        {"status": "ok", "label": label, "curve": json.dumps(c), "sweep.value": 0.15, "scale": "paper"}
        for label, curves in curves_by_label.items()
        for c in curves
    ]
    return pd.DataFrame(rows)


def _pr(labels, precision, recall):
    return {"labels": labels, "precision": precision, "recall": recall, "accuracy": [0.9] * len(labels),
            "fdr": [1 - p for p in precision]}  # fmt: skip


def test_halfcircle_precision_at_the_ceiling_is_inconclusive():
    labels = [20, 60, 100, 200, 300]
    # Passive at its final precision from its first batch; Active reaches it at 60 labels only
    passive = [_pr(labels, [0.9997] * 5, [0.5, 0.7, 0.8, 0.9, 0.99]) for _ in range(3)]
    active = [_pr(labels, [0.9990, 0.9998, 0.9998, 0.9998, 0.9998], [0.6, 0.9, 0.99, 0.99, 0.99])] * 3
    c = by_id(check_claims(_runs({"Active": active, "Passive": passive}), "fdr-halfcircle"))
    prec = c["halfcircle-precision"]
    assert prec["verdict"] == "inconclusive" and "ceiling" in prec["reason"]
    assert prec["evidence"]["reading_outcome"] == "fail"
    # recall learns: Passive reaches its final recall at 300, Active at 100 (ratio 1/3): decided
    assert c["halfcircle-recall"]["verdict"] == "pass"


def test_dominance_margin_is_the_smallest_over_ticks_and_metrics():
    labels = [500, 750, 2000]
    rng = np.random.default_rng(0)
    act = [_pr(labels, list(0.80 + 0.01 * rng.standard_normal(3)), [0.5] * 3) for _ in range(10)]
    pas = [_pr(labels, list(0.79 + 0.01 * rng.standard_normal(3)), [0.5] * 3) for _ in range(10)]
    for a, p in zip(act, pas):
        a["accuracy"], p["accuracy"] = [0.9] * 3, [0.8] * 3
    c = by_id(check_claims(_runs({"Active": act, "Passive": pas}), "fdr-adult"))["adult-ticks"]
    zs = [row["fdr margin_se"] for row in c["evidence"]["points"]]
    assert c["margin_se"] == pytest.approx(min(zs))  # accuracy margins are infinite (no spread)


def _opb_rows(regret, tenth, K=20, tau=0.2, alpha=11.0):
    return pd.DataFrame(
        {
            "experiment": "opb-random", "scale": "paper", "status": "ok", "stopped": True, "label": "OPB",
            "panel": f"mab-K{K}", "sweep.value": tau, "instance.tau": tau, "instance.T": 1_000_000,
            "instance.K": K, "diag.alpha_r": alpha, "algorithm.delta": 0.05, "regret": regret,
            "regret_tenth": tenth, "violations": 0, "policy_violations": 0, "max_policy_cost": 0.0,
            "tail_reward": 0.5, "tail_cost": 0.1, "replicate": range(len(regret)),
        }
    )  # fmt: skip


def test_slope_se_matches_a_bootstrap():
    rng = np.random.default_rng(1)
    a = 1000 + 100 * rng.standard_normal(400)
    b = 0.4 * a + 20 * rng.standard_normal(400)
    boot = [np.log10(a[i].mean() / b[i].mean()) for i in rng.integers(0, 400, (2000, 400))]
    assert slope_se(a, b) == pytest.approx(np.std(boot), rel=0.1)


def test_theorem31_bound_value():
    part = _opb_rows([1.0], [1.0])
    t, k, d = 1e6, 20, 0.05
    log_term = math.log(4 * k * t / d)
    want = 11 * (2 * math.sqrt(2 * k * t * log_term) + 4 * math.sqrt(t * math.log(2 / d) * log_term))
    assert theorem_bound("OPB", part, t) == pytest.approx(want)
    assert theorem_bound("OPLB", part, t) is None


def test_slope_is_a_diagnostic_never_softened_and_the_theorem_is_read_as_its_bound():
    """Issue 42: a slope above the bound shape's is a FAIL of the diagnostic (no pre-asymptotic rule),
    while the paper's claim, Theorem 31, is read as the bound with its constants."""
    rng = np.random.default_rng(2)
    tenth = 20_000 + 100 * rng.standard_normal(10)
    claims = by_id(check_claims(_opb_rows(tenth * 10**0.6, tenth), "opb-random"))
    c = claims["e3-slope"]
    assert c["verdict"] == "fail" and c["kind"] == "diagnostic" and "pre-asymptotic" not in c["reason"]
    b = claims["e3-bound"]
    assert b["verdict"] == "pass" and b["kind"] == "paper" and b["evidence"]["max_regret_over_bound"] < 1
    # a regret above the theorem's bound: the paper's claim fails
    big = tenth * 100
    end = big * 10**0.6 + 1000 * rng.standard_normal(10)
    claims = by_id(check_claims(_opb_rows(end, big), "opb-random"))
    assert claims["e3-slope"]["verdict"] == "fail" and claims["e3-slope"]["margin_se"] < -KNIFE_EDGE_SE
    assert claims["e3-bound"]["verdict"] == "fail"
    # below the shape: a pass with its margin
    end = tenth * 10**0.3 + 100 * rng.standard_normal(10)
    c = by_id(check_claims(_opb_rows(end, tenth), "opb-random"))["e3-slope"]
    assert c["verdict"] == "pass" and c["margin_se"] > KNIFE_EDGE_SE


def test_bound_reading_allows_a_delta_fraction_of_runs_above_the_bound():
    part = _opb_rows([1.0], [1.0])
    bound = theorem_bound("OPB", part, 1e6)
    # 20 runs, delta = 0.05: one run above the bound is allowed, two are not
    for above, verdict in ((1, "pass"), (2, "fail")):
        regret = [0.1 * bound] * (20 - above) + [1.1 * bound] * above
        c = by_id(check_claims(_opb_rows(regret, [1.0] * 20), "opb-random"))["e3-bound"]
        assert c["verdict"] == verdict
        assert c["evidence"]["points"]["mab-K20:0.2"]["fraction_within_bound"] == pytest.approx(
            1 - above / 20
        )


def _oplb_rows(regret, tenth, d=2, alpha=4.0, beta=1.5, delta=0.05):
    return pd.DataFrame(
        {
            "experiment": "oplb-random", "scale": "paper", "status": "ok", "stopped": True, "label": "OPLB",
            "panel": "linear", "sweep.value": d, "instance.T": 1_000_000, "instance.d": d,
            "diag.alpha_r": alpha, "diag.beta_r": beta, "algorithm.reg": 1.0, "algorithm.delta": delta,
            "regret": regret, "regret_tenth": tenth, "violations": 0, "policy_violations": 0,
            "optimism_failures": 0, "replicate": range(len(regret)),
        }
    )  # fmt: skip


def test_theorem27_bound_value_and_its_probability():
    """Issue 42: OPLB's Theorem 27 (eq. 35) with its constants (L = 1), read per run at T/10 and T, at
    the stated probability 1 - 2 delta."""
    t, a, b, d, lam, delta = 1e6, 4.0, 1.5, 2, 1.0, 0.05
    azuma = 2 * (a + 1) * b / math.sqrt(lam) * math.sqrt(2 * t * math.log(1 / delta))
    want = azuma + (a + 1) * b * math.sqrt(2 * t * d * math.log(1 + t / lam))
    assert theorem_bound("OPLB", _oplb_rows([1.0], [1.0]), t) == pytest.approx(want)
    tenth = theorem_bound("OPLB", _oplb_rows([1.0], [1.0]), t / 10)
    # 10 runs, delta = 0.05: at least 1 - 2 delta = 90% within, so one run above passes and two fail
    for above, verdict in ((1, "pass"), (2, "fail")):
        regret = [0.1 * want] * (10 - above) + [1.1 * want] * above
        c = by_id(check_claims(_oplb_rows(regret, [0.1 * tenth] * 10), "oplb-random"))
        assert c["oplb-bound"]["verdict"] == verdict and c["oplb-bound"]["kind"] == "paper"
        assert c["oplb-bound"]["evidence"]["points"]["linear:2"]["fraction_needed"] == pytest.approx(0.9)
        assert c["oplb-slope"]["kind"] == "diagnostic"


def test_theorem38_is_an_order_never_decided():
    """Issue 42: Theorem 38 states R = O(...) without a constant: its reading is inconclusive with the
    reason, whatever the regret; the expression with a unit constant is in the evidence."""
    from safebandits.algorithms.regret.opnlb import confidence_radius
    from safebandits.papers.stagewise.claims_bounds import theorem38_expression

    def rows(regret):
        return pd.DataFrame(
            {
                "experiment": "opnlb-finite", "scale": "paper", "status": "ok", "stopped": True,
                "label": "OPNLB", "panel": "finite-class", "sweep.value": 0.3, "instance.T": 1_000_000,
                "diag.alpha_r": 3.0, "algorithm.delta": 0.05, "instance.n_actions": 5,
                "instance.n_functions": 20, "regret": regret, "regret_tenth": [r / 3 for r in regret],
                "violations": 0, "policy_violations": 0, "optimism_failures": 0,
                "replicate": range(len(regret)),
            }
        )  # fmt: skip

    width = math.sqrt(1e6 * 5 * confidence_radius(1_000_000, 20, 0.025))
    assert theorem38_expression(rows([1.0]), 1e6) == pytest.approx(width * 4 + 5 * 4)
    for regret in ([1.0] * 5, [1e9] * 5):
        c = by_id(check_claims(rows(regret), "opnlb-finite"))["opnlb-bound"]
        assert c["verdict"] == "inconclusive" and "without the constant" in c["reason"]
        assert c["evidence"]["reading_outcome"] == ("pass" if regret[0] < 1e3 else "fail")
