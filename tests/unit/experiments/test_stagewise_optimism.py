"""The optimism check of Pacchiano et al. (digest §5.3, Lemmas 18 / 29 / 37): claim readings on synthetic
tables and a tiny-scale run of ``stagewise-optimism`` that stores the new column and trace."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from safebandits.experiments.claims import check_claims
from safebandits.experiments.claims_coverage import unevaluated_items
from safebandits.experiments.claims_meta import CLAIM_META
from safebandits.papers.stagewise.claims import check_oplb_random, check_stagewise_optimism

ABLATION = "LC-LUCB (alpha_r = 1)"


def by_id(claims):
    return {c["id"]: c for c in claims}


def table(failures: dict[str, list[int | None]], scale: str = "quick", delta: float = 0.05) -> pd.DataFrame:
    """One run per entry of ``failures[label]``; the runs cycle over tau in (0.2, 0.5, 0.8)."""
    rows = []
    for label, counts in failures.items():
        for i, n in enumerate(counts):
            tau = (0.2, 0.5, 0.8)[i % 3]
            rows.append(
                {
                    "experiment": "stagewise-optimism", "scale": scale, "status": "ok", "stopped": True,
                    "panel": "optimism-d10", "sweep.value": tau, "label": label, "replicate": i // 3,
                    "regret": 10.0, "regret_tenth": 3.0, "violations": 0, "policy_violations": 0,
                    "instance.T": 1000, "instance.tau": tau, "algorithm.delta": delta,
                    "optimism_failures": n,
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("theory", "ablation", "theory_ok", "ablation_ok"),
    [
        ([0] * 6, [5, 900, 3, 1, 2, 7], True, True),
        ([0, 0, 0, 0, 1, 0], [5, 900, 3, 1, 2, 7], False, True),  # one run of 6 fails: 5/6 < 0.95
        ([0] * 6, [5, 900, 0, 1, 2, 0], True, False),  # tau = 0.8: no failing run
    ],
)
def test_optimism_claims_read_the_failing_runs(theory, ablation, theory_ok, ablation_ok):
    c = by_id(check_claims(table({"LC-LUCB": theory, ABLATION: ablation}), "stagewise-optimism"))
    assert c["opt-theory"]["verdict"] == ("pass" if theory_ok else "fail")  # any scale decides
    assert c["opt-ablation-fails"]["verdict"] == ("pass" if ablation_ok else "fail")
    assert c["opt-theory"]["evidence"]["runs_failing"] == sum(n > 0 for n in theory)


def test_optimism_fraction_is_against_delta():
    """With 40 runs and delta = 0.05, two failing runs (95% clean) pass, three fail."""
    two = [1, 1] + [0] * 38
    three = [1, 1, 1] + [0] * 37
    assert by_id(check_stagewise_optimism(table({"LC-LUCB": two})))["opt-theory"]["passed"]
    assert not by_id(check_stagewise_optimism(table({"LC-LUCB": three})))["opt-theory"]["passed"]


def test_optimism_without_counts_is_not_run():
    df = table({"LC-LUCB": [None] * 3}).drop(columns=["optimism_failures"])
    c = by_id(check_claims(df, "stagewise-optimism"))
    assert c["opt-theory"]["verdict"] == "not run"
    assert c["opt-ablation-fails"]["verdict"] == "not run"


def test_oplb_optimism_claim_and_metadata():
    df = table({"OPLB": [0, 0, 2]})
    c = by_id(check_oplb_random(df))
    assert c["oplb-optimism"]["passed"] is False
    assert c["oplb-optimism"]["evidence"]["points"]["optimism-d10:0.8"]["runs_failing"] == 1
    for key, cid in (("stagewise-cyclic", "e1-optimism"), ("stagewise-ball", "e2-optimism"),
                     ("oplb-random", "oplb-optimism"), ("opnlb-finite", "opnlb-optimism"),
                     ("stagewise-optimism", "opt-theory")):  # fmt: skip
        assert CLAIM_META[key][cid].scale == "any"
    assert not [u for u in unevaluated_items() if u.item == "stagewise §5.3"]


def test_tiny_optimism_experiment_stores_the_column_and_trace(tmp_path):
    from safebandits.cli import cli
    from safebandits.experiments.results import load_results
    from safebandits.experiments.store import ResultsStore

    out = tmp_path / "res"
    res = CliRunner().invoke(
        cli,
        ["run", "stagewise-optimism", "--set", "T=200", "--replicates", "1",
         "--workers", "1", "--out", str(out), "-q"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    df = load_results(out, experiment="stagewise-optimism")
    got = df.groupby("label")["optimism_failures"]
    assert got.max()["LC-LUCB"] == 0 and got.min()[ABLATION] > 0  # tau * alpha_r = tau < the optimum
    with ResultsStore(out) as store:
        traces = store.traces("optimism")
    assert len(traces) == 6
    assert all(t["rounds"] == 200 for t in traces.values())
    c = by_id(check_claims(df, "stagewise-optimism"))
    assert c["opt-theory"]["verdict"] == "pass" and c["opt-ablation-fails"]["verdict"] == "pass"


def test_not_run_keeps_the_claim_sets_reason():
    df = table({"LC-LUCB": [None] * 3}).drop(columns=["optimism_failures"])
    c = by_id(check_claims(df, "stagewise-optimism"))["opt-theory"]
    assert "no LC-LUCB run with an optimism_failures count" in c["reason"]
