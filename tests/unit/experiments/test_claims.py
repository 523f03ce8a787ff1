"""Claim checks on synthetic results tables: paper-like data passes, each violation fails its claim."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.experiments.claim_base import exact_median
from safebandits.experiments.claims import check_claims
from safebandits.papers.acol.claims import check_acol_regret_comparison, check_acol_synthetic

PANELS = {
    "irrelevant-epsilon": ("acol/irrelevant-dimensions", "epsilon", (0.02, 0.05, 0.1)),
    "irrelevant-d": ("acol/irrelevant-dimensions", "d", (5, 25, 50)),
    "sphere-n": ("acol/unit-sphere", "n_arms", (10, 50, 100)),
    "sphere-d": ("acol/unit-sphere", "d", (10, 50, 100)),
}
TUNED = {"G-ACOL": 50, "Greedy Max Var": 80, "Adaptive Uniform": 90, "G-ACOL Uniform": 70, "Max Rew-U": 60}


def paper_like(label: str, panel: str, value) -> float:
    grow = value / 5 if panel == "irrelevant-d" else 1.0
    static = {"Oracle": 1000, "ACOL": 1200, "G-Allocation": 5000 * grow, "Uniform": 8000 * grow}
    if label in static:
        return static[label]
    base, _, width = label.partition(" (")
    tuned = 40 if (base == "Max Rew-U" and panel.startswith("sphere")) else TUNED[base]
    return tuned * (1000 if width == "theory)" else 1)


LABELS = ["Oracle", "ACOL", "G-Allocation", "Uniform"] + [
    f"{b} ({w})" for b in TUNED for w in ("theory", "tuned")
]


def table(samples=paper_like, panels=PANELS, labels=LABELS, replicates=3, overrides=None) -> pd.DataFrame:
    """One row per run; ``overrides[(label, panel, value)] = dict(samples=..., stopped=..., correct=...)``."""
    rows = []
    for panel, (instance, param, values) in panels.items():
        for value in values:
            for label in labels:
                for rep in range(replicates):
                    row = {
                        "experiment": "acol-synthetic",
                        "scale": "quick",
                        "status": "ok",
                        "panel": panel,
                        "instance": instance,
                        "sweep.param": param,
                        "sweep.value": value,
                        "label": label,
                        "replicate": rep,
                        "samples": samples(label, panel, value) * (1 + 0.01 * rep),
                        "stopped": True,
                        "correct": True,
                        "recommended": 1,
                    }
                    row.update((overrides or {}).get((label, panel, value, rep), {}))
                    rows.append(row)
    df = pd.DataFrame(rows)
    df["stopped"] = df["stopped"].astype("boolean")
    df["correct"] = df["correct"].astype("boolean")
    return df


def by_id(claims):
    return {c["id"]: c for c in claims}


def test_paper_like_results_pass_every_claim():
    claims = check_acol_synthetic(table())
    assert [c["id"] for c in claims] == [
        "1-correct",
        "2-ordering",
        "3-d-dependence",
        "4b-eps-dependence",
        "4-tuning",
        "5-g-acol-theory",
        "6a-g-acol-tuned-best",
        "6b-max-rew-u-sphere",
        "6c-g-acol-tuned-comparable",
    ]
    failing = [c["id"] for c in claims if not c["passed"]]
    assert failing == ["4b-eps-dependence"]  # paper_like has no eps dependence
    json.dumps(claims, allow_nan=False)  # evidence is strict JSON
    c = by_id(claims)
    assert c["2-ordering"]["evidence"]["n_points"] == 12
    assert c["3-d-dependence"]["evidence"]["G-Allocation"]["ratio"] == pytest.approx(10)
    assert c["4-tuning"]["evidence"]["G-ACOL"]["min_ratio"] == pytest.approx(1000)
    for claim in claims:
        assert {"id", "claim", "passed", "verdict", "evidence"} <= set(claim) <= {
            "id", "claim", "passed", "verdict", "evidence", "budget_safe", "budget_exact"
        } and isinstance(claim["claim"], str)  # fmt: skip


def test_incorrect_stopped_run_fails_correctness_but_budget_hits_do_not():
    df = table(overrides={("ACOL", "sphere-n", 50, 1): {"correct": False}})
    c = by_id(check_acol_synthetic(df))["1-correct"]
    assert not c["passed"] and c["evidence"]["incorrect"] == 1
    assert c["evidence"]["per_method"]["ACOL"]["incorrect"] == 1
    assert c["evidence"]["incorrect_examples"][0]["label"] == "ACOL"
    df = table(overrides={("ACOL", "sphere-n", 50, 1): {"correct": False, "stopped": False}})
    c = by_id(check_acol_synthetic(df))["1-correct"]
    assert (
        c["passed"]
        and c["evidence"]["hit_budget"] == 1
        and c["evidence"]["per_method"]["ACOL"]["hit_budget"] == 1
    )


def test_failed_runs_are_reported_not_counted():
    df = table()
    df.loc[0, "status"] = "failed"
    c = by_id(check_acol_synthetic(df))["1-correct"]
    assert c["passed"] and c["evidence"]["failed_runs"] == 1


def test_acol_below_oracle_in_rare_cases_passes_but_often_fails():
    def rare(label, panel, value):
        if label == "ACOL" and panel == "sphere-d" and value == 50:
            return 900
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(rare)))["2-ordering"]
    assert c["passed"]  # "in rare cases, it even needs fewer samples than the oracle": 1 of 12 points
    assert c["evidence"]["points_acol_below_oracle"] == 1
    assert c["evidence"]["points_acol_not_below_g_allocation"] == 0

    def often(label, panel, value):
        if label == "ACOL" and panel.startswith("sphere"):
            return 900
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(often)))["2-ordering"]
    assert not c["passed"] and c["evidence"]["points_acol_below_oracle"] == 6  # half the points: not rare


def test_acol_above_g_allocation_fails_ordering():
    def samples(label, panel, value):
        return 6000 if label == "ACOL" and panel == "irrelevant-epsilon" else paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))["2-ordering"]
    assert not c["passed"] and c["evidence"]["points_acol_not_below_g_allocation"] == 3


def test_d_dependence_fails_when_acol_grows_or_uniform_stays_flat():
    def growing_acol(label, panel, value):
        if label == "ACOL" and panel == "irrelevant-d":
            return 100 * value
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(growing_acol)))["3-d-dependence"]
    assert not c["passed"] and c["evidence"]["ACOL"]["ratio"] == pytest.approx(10)

    def flat_uniform(label, panel, value):
        return 8000 if label == "Uniform" else paper_like(label, panel, value)

    assert not by_id(check_acol_synthetic(table(flat_uniform)))["3-d-dependence"]["passed"]


def test_claims_need_the_points_they_talk_about():
    panels = {k: v for k, v in PANELS.items() if k != "irrelevant-d"}
    c = by_id(check_acol_synthetic(table(panels=panels)))
    assert (
        not c["3-d-dependence"]["passed"]
        and "no irrelevant-dimensions" in c["3-d-dependence"]["evidence"]["note"]
    )
    assert c["2-ordering"]["passed"] and "9 points" in c["2-ordering"]["evidence"]["note"]
    one_d = {"irrelevant-d": ("acol/irrelevant-dimensions", "d", (25,))}
    c = by_id(check_acol_synthetic(table(panels=one_d)))["3-d-dependence"]
    assert not c["passed"] and "single d value" in c["evidence"]["note"]


def test_tuning_ratio_below_100_fails():
    def samples(label, panel, value):
        if label == "G-ACOL Uniform (theory)" and panel == "sphere-n" and value == 10:
            return 70 * 50
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))["4-tuning"]
    assert not c["passed"]
    assert c["evidence"]["G-ACOL Uniform"]["points_below_100"] == 1
    assert c["evidence"]["G-ACOL Uniform"]["min_ratio"] == pytest.approx(50)
    assert c["evidence"]["G-ACOL"]["points_below_100"] == 0


def test_tuning_reports_budget_hits():
    df = table(overrides={("G-ACOL (theory)", "sphere-d", 10, 0): {"stopped": False}})
    c = by_id(check_acol_synthetic(df))["4-tuning"]
    assert c["passed"] and c["evidence"]["G-ACOL"]["runs_hit_budget"]["G-ACOL (theory)"] == 1

    def samples(label, panel, value):
        return (
            50 * 50 if label == "G-ACOL (theory)" and panel == "sphere-d" else paper_like(label, panel, value)
        )

    c = by_id(
        check_acol_synthetic(
            table(samples, overrides={("G-ACOL (theory)", "sphere-d", 10, 0): {"stopped": False}})
        )
    )
    ev = c["4-tuning"]["evidence"]["G-ACOL"]
    assert not c["4-tuning"]["passed"]
    assert ev["points_below_100"] == 3 and ev["points_below_100_with_theory_budget_hits"] == 1


def test_g_acol_theory_below_acol_fails():
    def samples(label, panel, value):
        return 1000 if label == "G-ACOL (theory)" and value == 0.1 else paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))["5-g-acol-theory"]
    assert not c["passed"] and c["evidence"]["points_violating"] == 1


def test_g_acol_tuned_not_best_on_irrelevant_dims_fails():
    def samples(label, panel, value):
        if label == "Greedy Max Var (tuned)" and panel == "irrelevant-d" and value == 25:
            return 10
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))
    assert not c["6a-g-acol-tuned-best"]["passed"]
    ev = c["6a-g-acol-tuned-best"]["evidence"]
    assert (
        ev["points_not_best"] == 1
        and ev["best_method_per_point"]["irrelevant-d=25"] == "Greedy Max Var (tuned)"
    )
    assert c["6b-max-rew-u-sphere"]["passed"]  # the unit-sphere exception is judged separately


def test_g_acol_tuned_far_behind_max_rew_u_on_irrelevant_dims_fails_6c_only():
    def samples(label, panel, value):
        if label == "Max Rew-U (tuned)" and panel == "irrelevant-d" and value == 25:
            return 1  # G-ACOL (tuned) is then far more than 1.5x the best
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))
    assert not c["6c-g-acol-tuned-comparable"]["passed"]
    assert c["6c-g-acol-tuned-comparable"]["evidence"]["best_method_per_point"]["irrelevant-d=25"] == (
        "Max Rew-U (tuned)"
    )
    assert c["6a-g-acol-tuned-best"]["passed"]  # Max Rew-U is not among Figure 2's methods


def test_max_rew_u_sphere_exception_fails_when_g_acol_is_better():
    def samples(label, panel, value):
        if label == "Max Rew-U (tuned)":
            return 60
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))
    assert not c["6b-max-rew-u-sphere"]["passed"]
    assert c["6b-max-rew-u-sphere"]["evidence"]["points_maxrew_not_better"] == 6
    assert c["6a-g-acol-tuned-best"]["passed"]


def test_max_rew_u_sphere_exception_holds_at_most_points():
    def samples(label, panel, value):
        if label == "Max Rew-U (tuned)" and panel == "sphere-d" and value == 100:
            return 60  # loses at 1 of 6 unit-sphere points
        return paper_like(label, panel, value)

    c = by_id(check_acol_synthetic(table(samples)))["6b-max-rew-u-sphere"]
    assert c["passed"] and c["evidence"]["points_maxrew_better"] == 5


def test_missing_methods_fail_their_claims():
    df = table(labels=["ACOL", "Oracle"])
    c = by_id(check_acol_synthetic(df))
    assert c["1-correct"]["passed"]
    for cid in (
        "2-ordering",
        "3-d-dependence",
        "4-tuning",
        "5-g-acol-theory",
        "6a-g-acol-tuned-best",
        "6c-g-acol-tuned-comparable",
    ):
        assert not c[cid]["passed"], cid
    json.dumps(list(c.values()), allow_nan=False)


# -- regret comparison ------------------------------------------------------------------------------

REGRET_PANEL = {"one-dimensional": ("acol/one-dimensional", "threshold", (0.25,))}
REGRET = {"G-ACOL (theory)": 500, "Max Rew-U (theory)": 6000, "Max Rew-F (theory)": 40000, "ACOL": 800}


def regret_table(samples=REGRET):
    return table(lambda label, p, v: samples[label], panels=REGRET_PANEL, labels=list(samples), replicates=5)


def test_regret_comparison_passes_and_fails():
    claims = check_acol_regret_comparison(regret_table())
    c = by_id(claims)
    assert c["7-regret-ordering"]["passed"] and c["1-correct"]["passed"]
    ev = c["7-regret-ordering"]["evidence"]
    assert (
        ev["G-ACOL (theory)"]["mean"] == pytest.approx(500 * 1.02) and ev["Max Rew-F (theory)"]["runs"] == 5
    )
    assert ev["G-ACOL (theory)"]["se"] > 0
    swapped = {**REGRET, "Max Rew-U (theory)": 50000}
    assert not by_id(check_acol_regret_comparison(regret_table(swapped)))["7-regret-ordering"]["passed"]
    missing = {k: v for k, v in REGRET.items() if k != "Max Rew-F (theory)"}
    c = by_id(check_acol_regret_comparison(regret_table(missing)))["7-regret-ordering"]
    assert not c["passed"] and "Max Rew-F" in c["evidence"]["note"]


def test_check_claims_dispatch():
    assert check_claims(regret_table(), "acol-regret-comparison")[1]["id"] == "7-regret-ordering"
    assert check_claims(regret_table(), "nope") == []
    assert check_claims(regret_table().iloc[:0], "acol-synthetic") == []


def test_failures_only_at_budget_hits_are_inconclusive_not_passed():
    def samples(label, panel, value):
        if label == "G-ACOL (theory)" and value == 0.1:
            return 1000
        return paper_like(label, panel, value)

    df = table(samples)
    mask = (df["label"] == "G-ACOL (theory)") & (df["sweep.value"] == 0.1)
    df.loc[mask, "stopped"] = False  # these runs hit the budget: their median is a lower bound
    c = by_id(check_acol_synthetic(df))["5-g-acol-theory"]
    assert not c["passed"] and c["verdict"] == "inconclusive"
    c = by_id(check_acol_synthetic(table(samples)))["5-g-acol-theory"]
    assert not c["passed"] and c["verdict"] == "fail"
    assert by_id(check_acol_synthetic(table()))["2-ordering"]["verdict"] == "pass"


def test_eps_dependence_reads_a_slope_of_about_two():
    def samples(label, panel, value):
        base = paper_like(label, panel, value)
        return base * (0.05 / value) ** 2 if panel == "irrelevant-epsilon" else base

    c = by_id(check_acol_synthetic(table(samples)))["4b-eps-dependence"]
    assert c["passed"] and c["evidence"]["slopes"]["ACOL"] == pytest.approx(2.0, abs=1e-6)

    def cubic(label, panel, value):
        base = paper_like(label, panel, value)
        return (
            base * (0.05 / value) ** (3 if label == "Uniform" else 2)
            if panel == "irrelevant-epsilon"
            else base
        )

    c = by_id(check_acol_synthetic(table(cubic)))["4b-eps-dependence"]
    assert not c["passed"] and c["evidence"]["methods_outside_band"] == ["Uniform"]


def test_budget_hits_keep_a_pass_only_where_they_can_only_strengthen_it():
    """A censored run's samples are a lower bound: a pass stands when the censored method is one the
    reading wants large (``budget_safe``); a hit of any other compared method leaves it inconclusive."""

    def paper(overrides):
        df = table(overrides=overrides)
        df["scale"] = "paper"
        return by_id(check_claims(df, "acol-synthetic"))

    hit = {"stopped": False}
    c = paper({("G-ACOL (theory)", "sphere-d", 10, 0): hit})
    # G-ACOL (theory) must need more than ACOL (5) and more than tuned (4): its censored run can only
    # strengthen both readings
    for cid in ("5-g-acol-theory", "4-tuning"):
        assert c[cid]["verdict"] == "pass", (cid, c[cid]["reason"])
        assert "lower bounds" in c[cid]["reason"] and "G-ACOL (theory)" in c[cid]["reason"]
    # the slope reading has no such direction: inconclusive
    assert c["4b-eps-dependence"]["verdict"] != "pass"
    # 6a: a censored competitor keeps the pass, a censored G-ACOL (tuned) does not
    c = paper({("Greedy Max Var (tuned)", "irrelevant-d", 25, 1): hit})
    assert c["6a-g-acol-tuned-best"]["verdict"] == "pass"
    c = paper({("G-ACOL (tuned)", "irrelevant-d", 25, 1): hit})
    assert c["6a-g-acol-tuned-best"]["verdict"] == "inconclusive"
    assert c["6a-g-acol-tuned-best"]["evidence"]["runs_not_counted"]["hit_budget"] == {"G-ACOL (tuned)": 1}
    # 2: G-Allocation censored keeps the pass; the Oracle censored does not (it could then be above ACOL
    # at more points)
    c = paper({("G-Allocation", "sphere-n", 50, 0): hit})
    assert c["2-ordering"]["verdict"] == "pass"
    c = paper({("Oracle", "sphere-n", 50, 0): hit})
    assert c["2-ordering"]["verdict"] == "inconclusive"


def test_budget_hits_never_rescue_a_failing_reading():
    def samples(label, panel, value):
        return 1000 if label == "G-ACOL (theory)" and value == 0.1 else paper_like(label, panel, value)

    df = table(samples, overrides={("G-ACOL (theory)", "sphere-d", 10, 0): {"stopped": False}})
    df["scale"] = "paper"
    c = by_id(check_claims(df, "acol-synthetic"))["5-g-acol-theory"]
    assert c["raw_verdict"] == "fail" and c["verdict"] != "pass"


def test_exact_medians_decide_despite_budget_hits():
    """Fewer than half of a point's runs hit the budget, above every run that stopped: the medians are
    exact, so the verdict stands, pass or fail; half or more: a lower bound again."""

    def paper(samples=paper_like, overrides=None):
        df = table(samples, overrides=overrides)
        df["scale"] = "paper"
        return by_id(check_claims(df, "acol-synthetic"))

    top = {"stopped": False, "samples": 10**9}  # (replicate 2 is the largest of its point)
    c = paper(overrides={("G-ACOL (tuned)", "irrelevant-d", 25, 2): top})
    rec = c["6a-g-acol-tuned-best"]
    assert rec["verdict"] == "pass" and "exact" in rec["reason"], rec["reason"]
    assert "G-ACOL (tuned)" in rec["budget_exact"]

    # a failing reading with exact medians is a failure, not inconclusive
    def slow_gacol(label, panel, value):
        slow = label == "G-ACOL (tuned)" and panel == "irrelevant-d" and value == 25
        return 10_000 if slow else paper_like(label, panel, value)

    c = paper(slow_gacol, {("G-ACOL (tuned)", "irrelevant-d", 25, 2): top})
    assert c["6a-g-acol-tuned-best"]["raw_verdict"] == "fail"
    assert c["6a-g-acol-tuned-best"]["verdict"] == "fail"
    # two of three runs censored: the median is a lower bound; a censored G-ACOL (tuned) leaves 6a open
    c = paper(overrides={("G-ACOL (tuned)", "irrelevant-d", 25, r): top for r in (1, 2)})
    assert c["6a-g-acol-tuned-best"]["verdict"] == "inconclusive"
    # a hit at a point the reading does not use leaves it alone (3: irrelevant dimensions only)
    c = paper(overrides={("Uniform", "sphere-d", 50, r): top for r in (0, 1, 2)})
    assert c["3-d-dependence"]["verdict"] == "pass", c["3-d-dependence"]["reason"]
    assert c["2-ordering"]["verdict"] == "pass"  # (Uniform is safe for 2: it must be above ACOL)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 10**6), min_size=1, max_size=31),
    st.lists(st.integers(1, 10**6), max_size=31),
    st.integers(0, 10**6),
)
def test_exact_median_means_the_true_median(stopped_samples, extra, budget_gap):
    # runs that hit the budget B would have needed more than B (>= every stopped run); stored: B itself
    budget = max(stopped_samples) + budget_gap
    true = np.array(stopped_samples + [budget + 1 + e for e in extra], dtype=float)
    stored = np.array(stopped_samples + [budget] * len(extra), dtype=float)
    stopped = [True] * len(stopped_samples) + [False] * len(extra)
    exact = exact_median(stored, stopped)
    assert exact == (len(extra) <= (len(true) - 1) // 2)
    if exact:
        assert np.median(stored) == np.median(true)
