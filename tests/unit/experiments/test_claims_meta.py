"""Verdict mechanics (issue 17): pass / fail / inconclusive / not run, the scale rule, failed and
budget-hit runs, the claims' metadata, the stage-wise and BESIDE readings and the scoreboard."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.experiments.claims import _all_claim_sets, check_claims
from safebandits.experiments.claims_meta import LEGEND, VERDICTS, claim_metadata
from safebandits.experiments.claims_scoreboard import scoreboard_frame, write_scoreboard_data
from safebandits.papers.beside.claims import check_hard
from safebandits.papers.stagewise.claims import bound_slope, check_opb_four_arm

CLAIM_META = claim_metadata()  # (loads the paper packages' claims modules)


def ball_table(
    scale: str = "paper", labels=("LC-LUCB", "Safe-LTS"), regret=None, status=None
) -> pd.DataFrame:
    """stagewise-ball runs: 2 dimensions x 3 replicates per label; LC-LUCB below Safe-LTS by default."""
    rows = []
    for label in labels:
        for d in (5, 10):
            for rep in range(3):
                r = (regret or {"LC-LUCB": 100.0, "Safe-LTS": 1000.0})[label]
                rows.append(
                    {
                        "experiment": "stagewise-ball",
                        "scale": scale,
                        "status": (status or {}).get((label, d, rep), "ok"),
                        "panel": f"ball-d{d}",
                        "sweep.value": d,
                        "label": label,
                        "replicate": rep,
                        "regret": r,
                        "regret_tenth": r / 3,
                        "violations": 0,
                        "policy_violations": 0,
                        "tail_cost": 0.5,
                        "tail_reward": 0.5,
                        "stopped": True,
                        "instance.T": 1000,
                        "instance.tau": 0.5,
                        "optimism_failures": 0 if label == "LC-LUCB" else None,
                    }
                )
    return pd.DataFrame(rows)


def by_id(claims):
    return {c["id"]: c for c in claims}


def test_every_claim_set_has_metadata_and_every_reading_its_wording():
    sets = _all_claim_sets()
    assert set(CLAIM_META) == set(sets)
    for key, metas in CLAIM_META.items():
        for cid, meta in metas.items():
            assert meta.wording and meta.paper, (key, cid)
            assert meta.scale in ("any", "paper"), (key, cid)


def test_paper_scale_gives_the_readings_verdict():
    c = by_id(check_claims(ball_table(), "stagewise-ball"))
    assert c["e2-vs-safe-lts"]["verdict"] == "pass" and c["e2-vs-safe-lts"]["passed"]
    assert c["e2-safety"]["verdict"] == "pass"
    worse = by_id(check_claims(ball_table(regret={"LC-LUCB": 2000.0, "Safe-LTS": 1000.0}), "stagewise-ball"))
    assert worse["e2-vs-safe-lts"]["verdict"] == "fail" and not worse["e2-vs-safe-lts"]["passed"]
    for rec in worse.values():
        assert rec["wording"] and rec["paper"] and rec["scale_decides"] in ("any", "paper")


def test_quick_scale_never_fails_a_claim_only_the_paper_scale_decides():
    df = ball_table(scale="quick", regret={"LC-LUCB": 2000.0, "Safe-LTS": 1000.0})
    c = by_id(check_claims(df, "stagewise-ball"))["e2-vs-safe-lts"]
    assert c["verdict"] == "inconclusive" and not c["passed"]
    assert c["raw_verdict"] == "fail" and "paper scale" in c["reason"]
    assert by_id(check_claims(df, "stagewise-ball"))["e2-safety"]["verdict"] == "pass"  # any scale decides


def test_absent_method_is_not_run_not_fail():
    c = by_id(check_claims(ball_table(labels=("LC-LUCB",)), "stagewise-ball"))
    assert c["e2-vs-safe-lts"]["verdict"] == "not run"
    assert "Safe-LTS" in c["e2-vs-safe-lts"]["reason"]
    assert c["e2-safety"]["verdict"] == "pass"


def test_missing_records_are_added_as_not_run():
    # The FDR claim sets return nothing without both methods; the scoreboard still lists their claims.
    df = pd.DataFrame(
        {"experiment": ["fdr-halfcircle"], "scale": ["paper"], "status": ["ok"], "label": ["Active"]}
    )
    claims = check_claims(df, "fdr-halfcircle")
    assert {c["id"] for c in claims} == set(CLAIM_META["fdr-halfcircle"])
    assert all(c["verdict"] == "not run" for c in claims)


def test_failed_runs_make_their_claims_inconclusive_and_are_counted():
    df = ball_table(status={("Safe-LTS", 10, 2): "failed"})
    c = by_id(check_claims(df, "stagewise-ball"))
    for cid in ("e2-vs-safe-lts", "e2-safety"):
        assert c[cid]["verdict"] == "inconclusive", cid
        assert c[cid]["evidence"]["runs_not_counted"]["failed"] == {"Safe-LTS": 1}
        assert "failed" in c[cid]["reason"]


def test_budget_hits_make_their_claims_inconclusive():
    df = ball_table()
    df.loc[(df["label"] == "LC-LUCB") & (df["replicate"] == 0), "stopped"] = False
    c = by_id(check_claims(df, "stagewise-ball"))["e2-vs-safe-lts"]
    assert c["verdict"] == "inconclusive" and c["evidence"]["runs_not_counted"]["hit_budget"] == {
        "LC-LUCB": 2
    }


@settings(max_examples=25, deadline=None)
@given(
    scale=st.sampled_from(["quick", "paper"]),
    lc=st.floats(1.0, 5000.0),
    lts=st.floats(1.0, 5000.0),
    drop_lts=st.booleans(),
    failed=st.booleans(),
)
def test_verdicts_are_consistent(scale, lc, lts, drop_lts, failed):
    labels = ("LC-LUCB",) if drop_lts else ("LC-LUCB", "Safe-LTS")
    status = {("LC-LUCB", 5, 0): "failed"} if failed else None
    claims = check_claims(
        ball_table(scale, labels, {"LC-LUCB": lc, "Safe-LTS": lts}, status), "stagewise-ball"
    )
    for c in claims:
        assert c["verdict"] in VERDICTS and c["passed"] == (c["verdict"] == "pass")
        if c["verdict"] in ("inconclusive", "not run"):
            assert c["reason"]
        if scale == "quick" and c["scale_decides"] == "paper":
            assert c["verdict"] != "fail"
    json.dumps(claims, allow_nan=False)


def test_legend_says_quick_is_a_smoke_test():
    assert "quick scale is a smoke test" in LEGEND and "paper scale decides" in LEGEND


def test_scoreboard_rows_and_files(tmp_path):
    claims = [
        {"experiment": "stagewise-ball", "scale": "paper", **c}
        for c in check_claims(ball_table(), "stagewise-ball")
    ]
    frame = scoreboard_frame(claims)
    assert list(frame["id"]) == ["e2-safety", "e2-vs-safe-lts", "e2-optimism"]
    assert (frame["verdict"] == "pass").all() and frame["wording"].str.len().min() > 10
    assert "total=0" in frame.loc[0, "key_numbers"]
    write_scoreboard_data(claims, tmp_path)
    rows = json.loads((tmp_path / "scoreboard.json").read_text())
    assert rows[1]["paper"].startswith("Pacchiano") and (tmp_path / "scoreboard.csv").exists()


# -- readings ---------------------------------------------------------------------------------------


def test_bound_slope_of_sqrt_t_log_t():
    assert bound_slope(1e6, 0.0) == pytest.approx(0.5)
    assert bound_slope(1e6, 1.0) == pytest.approx(0.5 + math.log10(math.log(1e6) / math.log(1e5)))
    assert bound_slope(1e6, 1.0) < 0.6  # the former fixed threshold was looser than the bound


def test_opb_slope_uses_the_bound_of_its_theorem():
    def four_arm(ratio):
        rows = [
            {"status": "ok", "label": "OPB", "panel": "four-arm", "sweep.value": tau, "replicate": 0,
             "regret": 100.0 * ratio, "regret_tenth": 100.0, "violations": 0, "policy_violations": 0,
             "tail_cost": 0.5, "tail_reward": 0.7, "instance.T": 1e6, "instance.tau": tau}
            for tau in (0.2, 0.5, 0.8)
        ]  # fmt: skip
        return by_id(check_opb_four_arm(pd.DataFrame(rows)))["e4-slope"]

    assert four_arm(10**0.53)["passed"]  # below 0.5 + 0.5 log10(ln 1e6 / ln 1e5) = 0.540
    assert not four_arm(10**0.56)["passed"]


@pytest.mark.parametrize(
    ("beside", "xy", "passed"),
    [(2.0, 3.0, True), (2.4, 2.6, True), (2.5, 2.5, False), (1.4, 3.0, False), (2.0, 3.5, False)],
)
def test_beside_slope_bands_do_not_overlap(beside, xy, passed):
    eps = [0.04, 0.02, 0.01]
    rows = [
        {"status": "ok", "label": lbl, "sweep.value": e, "samples": (1 / e) ** k, "stopped": True,
         "correct": True}
        for e in eps
        for lbl, k in (("BESIDE", beside), ("XY_diff-only", xy))
    ]  # fmt: skip
    c = by_id(check_hard(pd.DataFrame(rows)))["hard-slopes"]
    assert c["passed"] is passed


def test_scoreboard_page_from_a_results_dir(tmp_path, monkeypatch):
    from safebandits.experiments import claims_sources
    from safebandits.experiments.claims_scoreboard import scoreboard_markdown
    from safebandits.experiments.store import ResultsStore

    df = ball_table(labels=("LC-LUCB",))
    with ResultsStore(tmp_path, mode="w") as store:
        for i, row in enumerate(df.to_dict(orient="records")):
            key = f"0/{row['sweep.value']}/{row['label']}/{row['replicate']}"
            ts = f"2026-11-24T07:00:{i:02d}+00:00"
            store.write(
                {"pk": f"{key}#h", "run_key": key, "config_hash": "h", "wall_s": 0.5, "timestamp": ts, **row}
            )
    from safebandits.experiments.spec import expand, get_experiment

    n_paper = len(expand(get_experiment("stagewise-ball"), "paper"))
    page = scoreboard_markdown(tmp_path, commit="abc1234")
    assert "commit `abc1234`" in page and "paper scale decides" in page
    # 5 s of timestamps + the first run's 0.5 s; none of the 6 stored runs is one of the scale's runs;
    # runs stored without their CPU time: the compute column says so (the wall-time sum stays beside it)
    assert f"| stagewise-ball | paper | 6 (0 of {n_paper}) | 0 | 6 | unknown (wall only) | 3 |" in page
    assert "`e2-vs-safe-lts` | **NOT RUN**" in page
    # a claim read on an incomplete paper-scale store cannot decide
    assert "`e2-safety` | **INCONCLUSIVE**" in page and f"incomplete: 0 of the {n_paper} runs" in page
    assert "Section-5 claims no experiment evaluates yet" in page and "benchmark = measured" in page
    stored = {f"0/{r['sweep.value']}/{r['label']}/{r['replicate']}#h" for r in df.to_dict(orient="records")}
    monkeypatch.setattr(claims_sources, "expected_runs", lambda spec, scale: stored)
    complete = scoreboard_markdown(tmp_path, commit="abc1234")
    assert "`e2-safety` | **PASS**" in complete and "| 6 (6 of 6) |" in complete


def test_robustness_claims_are_never_passed_vacuously():
    from safebandits.papers.acol.claims_driving import check_acol_robustness

    def runs(base_costs):
        rows = [
            {"status": "ok", "instance.objective": "penalised", "instance.scenario": sc,
             "instance.penalty": lam, "reward": -lam, "cost": cost}
            for sc, costs in (("base", base_costs), ("other", (2.0, 0.5)))
            for lam, cost in zip((0.0, 1.0), costs)
        ] + [
            {"status": "ok", "instance.objective": "constrained", "instance.scenario": sc,
             "instance.penalty": None, "reward": 0.5, "cost": 0.9, "algorithm.constrained_solver": solver}
            for sc in ("base", "other")
            for solver in ("wen-topcu", "warm-polish")  # the paper's reference and the library's
        ]  # fmt: skip
        return by_id(check_acol_robustness(pd.DataFrame(rows)))

    ids = (
        "9a-constrained-beats-penalised",
        "9c-smallest-feasible-lambda-worse",
        "9a-polished",
        "9c-polished",
    )
    c = runs((2.0, 0.5))
    assert all(c[cid]["verdict"] == "pass" for cid in ids)
    c = runs((2.0, 3.0))  # no feasible penalised solution in "base": nothing to compare there
    for cid in ids:
        assert c[cid]["verdict"] == "inconclusive" and "base" in c[cid]["reason"], cid


def test_cost_approaches_tau_from_below_at_d10():
    from safebandits.papers.stagewise.claims import check_stagewise_cyclic

    def cyclic(costs):
        rows = [
            {"status": "ok", "label": "LC-LUCB", "panel": "cyclic-d10", "sweep.value": tau, "replicate": 0,
             "regret": 10.0, "regret_tenth": 5.0, "violations": 0, "policy_violations": 0, "tail_cost": cost,
             "tail_reward": 0.5, "instance.T": 1e6, "instance.tau": tau}
            for tau, cost in zip((0.2, 0.5, 0.8), costs)
        ]  # fmt: skip
        return by_id(check_stagewise_cyclic(pd.DataFrame(rows)))["e1-cost-tau"]

    assert cyclic((0.19, 0.49, 0.56))["passed"]
    assert not cyclic((0.15, 0.49, 0.56))["passed"]  # 0.05 below tau
    assert not cyclic((0.21, 0.49, 0.56))["passed"]  # above tau


def test_claim_meta_checks_its_scale():
    from safebandits.exceptions import ConfigError
    from safebandits.experiments.claims_meta import ClaimMeta

    with pytest.raises(ConfigError, match="'scale' parameter of ClaimMeta"):
        ClaimMeta("p", "w", scale="quick")


def test_every_returned_claim_has_its_metadata():
    from tests.unit.experiments.test_claims import regret_table, table

    for df, key in ((table(), "acol-synthetic"), (regret_table(), "acol-regret-comparison")):
        df = df.assign(scale="paper")
        for c in check_claims(df, key):
            assert c["id"] in CLAIM_META[key] and c["wording"], c["id"]
    for c in check_claims(ball_table(), "stagewise-ball"):
        assert c["id"] in CLAIM_META["stagewise-ball"]


def test_unevaluated_rows_have_known_statuses_and_benchmarks_name_their_command():
    from safebandits.experiments.claims_coverage import UNEVALUATED_STATUS, unevaluated_items

    rows = unevaluated_items()
    assert {row[3] for row in rows} <= set(UNEVALUATED_STATUS)
    bench = [row for row in rows if row[3] == "benchmark"]
    assert bench and all("benchmarks/bench_" in row[4] for row in bench)
    assert not any(row[1] == "ckb §5.7" for row in rows)  # the slack claim has its experiment


def test_incomplete_store_keeps_a_counter_example():
    from safebandits.experiments.claims_scoreboard import mark_incomplete

    base = {"id": "x", "reason": ""}
    assert mark_incomplete({**base, "verdict": "pass", "scale_decides": "any"}, 1, 2, "paper")["verdict"] == (
        "inconclusive"
    )
    refuted = mark_incomplete({**base, "verdict": "fail", "scale_decides": "any"}, 1, 2, "paper")
    assert refuted["verdict"] == "fail"
    unread = mark_incomplete({**base, "verdict": "fail", "scale_decides": "paper"}, 1, 2, "paper")
    assert unread["verdict"] == "inconclusive" and "incomplete: 1 of the 2 runs" in unread["reason"]
    assert mark_incomplete({**base, "verdict": "not run"}, 1, 2, "paper")["verdict"] == "not run"


def test_scoreboard_compute_column_is_cpu_time():
    """The compute column sums the runs' CPU seconds (wall seconds beside it); runs without ``cpu_s``
    (stores written before it) make it unknown, or partial when only some runs have it."""
    from safebandits.experiments.claims_scoreboard import _cpu_cell, wall_times

    base = {"status": "ok", "timestamp": "2026-11-24T07:00:00+00:00"}
    df = pd.DataFrame(
        [
            {**base, "experiment": "a", "scale": "quick", "wall_s": 9.0, "cpu_s": 1.0},
            {**base, "experiment": "a", "scale": "quick", "wall_s": 9.0, "cpu_s": 2.0},
            {**base, "experiment": "b", "scale": "quick", "wall_s": 5.0, "cpu_s": float("nan")},
            {**base, "experiment": "c", "scale": "quick", "wall_s": 5.0, "cpu_s": 4.0},
            {**base, "experiment": "c", "scale": "quick", "wall_s": 5.0, "cpu_s": float("nan")},
        ]
    )
    t = wall_times(df).set_index("experiment")
    assert t.loc["a", "sum_run_cpu_s"] == 3.0 and t.loc["a", "sum_run_wall_s"] == 18.0
    cells = {e: _cpu_cell(r.sum_run_cpu_s, r.cpu_runs, r.runs) for e, r in t.iterrows()}
    assert cells == {"a": "3", "b": "unknown (wall only)", "c": "4 (1 of 2 runs; the rest wall only)"}
    # a frame without the column at all (an old store read by hand)
    old = wall_times(df.drop(columns=["cpu_s"])).set_index("experiment")
    assert (old["cpu_runs"] == 0).all()
