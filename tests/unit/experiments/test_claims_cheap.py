"""Readings of the cheap missing claims (issue 17, item 4): BESIDE Example 1 and the vacuous constraint."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from safebandits.papers.beside.claims import PAYS_SLOPE, check_example1, check_vacuous


def by_id(claims):
    return {c["id"]: c for c in claims}


@pytest.mark.parametrize(
    ("k2", "k3", "e2", "e3"),
    [(0.0, 0.0, True, True), (2.0, 0.0, False, True), (0.0, 2.0, True, False), (0.9, 1.1, True, False)],
)
def test_example1_fails_when_beside_pays_the_gap(k2, k3, e2, e3):
    rows = [
        {
            "status": "ok",
            "panel": panel,
            "label": lbl,
            "sweep.value": g,
            "samples": 1000 * (1 / abs(g)) ** (k if lbl == "BESIDE" else 2.0),
            "stopped": True,
            "correct": True,
        }
        for panel, k, gaps in (("e2-gap", k2, (0.1, 0.05, 0.025)), ("e3-safety", k3, (-0.04, -0.02, -0.01)))
        for g in gaps
        for lbl in ("BESIDE", "XY_diff-only")
    ]
    c = by_id(check_example1(pd.DataFrame(rows)))
    assert c["example1-no-delta-e2"]["passed"] is e2
    assert c["example1-no-dsafe-e3"]["passed"] is e3
    assert c["example1-no-delta-e2"]["evidence"]["slope_BESIDE"] == pytest.approx(k2)
    assert PAYS_SLOPE == 1.0


@pytest.mark.parametrize(
    ("ratio", "wrong", "rate_ok", "best_ok"),
    [(2.0, 0, True, True), (4.0, 0, False, True), (1.0, 10, True, False)],
)
def test_vacuous_reads_rage_ratio_and_returned_arm(ratio, wrong, rate_ok, best_ok):
    rows = []
    for omega in (0.5, 0.3, 0.1):
        rage = 100 / (1 - math.cos(omega)) ** 2
        for rep in range(10):
            for lbl, n in (("BESIDE", ratio * rage), ("RAGE", rage)):
                rows.append(
                    {
                        "status": "ok",
                        "label": lbl,
                        "sweep.value": omega,
                        "samples": n,
                        "stopped": True,
                        "correct": not (lbl == "BESIDE" and omega == 0.1 and rep < wrong),
                        "instance.d": 4,
                        "algorithm.delta": 0.1,
                    }
                )
    c = by_id(check_vacuous(pd.DataFrame(rows)))
    assert c["vacuous-rage-rate"]["passed"] is rate_ok  # log(5 / 0.1) = 3.91
    assert c["vacuous-returns-best"]["passed"] is best_ok


@pytest.mark.parametrize(
    ("check", "label", "violations", "decade", "safe", "shape"),
    [
        ("oplb", "OPLB", 0, 10**0.5, True, True),
        ("oplb", "OPLB", 1, 10**0.5, False, True),
        ("opnlb", "OPNLB", 0, 10.0, True, False),  # linear regret
        ("opnlb", "OPNLB", 0, 10**0.5, True, True),
    ],
)
def test_oplb_opnlb_safety_and_slope(check, label, violations, decade, safe, shape):
    from safebandits.papers.stagewise.claims import check_oplb_random, check_opnlb_finite

    rows = [
        {"status": "ok", "panel": "p", "sweep.value": 1, "label": label, "replicate": rep,
         "regret": 100.0 * decade, "regret_tenth": 100.0, "violations": 0,
         "policy_violations": violations if rep == 0 else 0, "instance.T": 20_000, "instance.tau": 0.5}
        for rep in range(3)
    ]  # fmt: skip
    fn = check_oplb_random if check == "oplb" else check_opnlb_finite
    c = by_id(fn(pd.DataFrame(rows)))
    assert c[f"{check}-safety"]["passed"] is safe
    assert c[f"{check}-slope"]["passed"] is shape


@pytest.mark.parametrize(("decade", "passed"), [(10.0, True), (10**0.95, True), (10**0.8, False)])
def test_sgp_linear_start_needs_a_slope_above_the_sublinear_limit(decade, passed):
    from safebandits.papers.ckb.claims import check_ckb_sgp_start

    rows = [
        {"status": "ok", "label": "SGP-UCB", "regret": 20.0 * decade, "regret_tenth": 20.0, "cost": -0.1,
         "samples": 500, "violations": 0}
        for _ in range(3)
    ]  # fmt: skip
    c = by_id(check_ckb_sgp_start(pd.DataFrame(rows)))
    assert c["ckb-sgp-linear-start"]["passed"] is passed


def test_lower_bound_instances_follow_the_construction():
    from safebandits.problems import make_instance

    nu = make_instance("stagewise/lower-bound", variant="nu", gap=0.1)
    nu_prime = make_instance("stagewise/lower-bound", variant="nu-prime", gap=0.1)
    d, delta = 3 / 7, 0.5 / 7
    assert nu.optimal_policy_value == pytest.approx(d + 10 * delta / 3)  # 2/3 on arm 0, 1/3 on arm 1
    assert nu_prime.cost_params[0, 3] == pytest.approx(0.4)
    assert nu_prime.optimal_policy_value > d + 4 * delta  # arm 3 mixed with arm 1 (not arm 3 alone)


@pytest.mark.parametrize(
    ("regret", "big_t", "passed"), [(3.0, 10_000, True), (2.0, 10_000, False), (3.0, 1_000, False)]
)
def test_lower_bound_reading(regret, big_t, passed):
    from safebandits.papers.stagewise.claims import check_lower_bound

    rows = [
        {"status": "ok", "panel": panel, "sweep.value": 0.1, "label": "OPB", "replicate": 0,
         "regret": regret if panel == "nu-prime" else 0.5, "regret_tenth": 1.0, "instance.gap": 0.1,
         "instance.safe_reward": 0.5, "instance.T": big_t, "instance.tau": 0.5}
        for panel in ("nu", "nu-prime")
    ]  # fmt: skip
    c = by_id(check_lower_bound(pd.DataFrame(rows)))["lb-regret"]  # B = 0.5 / (21 * 0.01) = 2.38
    assert c["passed"] is passed
