"""Issue 42: the scoreboard page carries a robustness marker and when each reading was fixed, reads other
seed sets for the marker only, labels diagnostics; the report's console prints a line per experiment and
the experiments skipped."""

from __future__ import annotations

import pytest

from safebandits.experiments import claims_scoring, claims_sources
from safebandits.experiments.claims_scoreboard import scoreboard_markdown
from safebandits.experiments.claims_scoring import score_sources, skipped_experiments
from safebandits.experiments.store import ResultsStore
from tests.unit.experiments.test_claims_meta import ball_table


def _store(path, seed=0, regret=None, stamp="2026-11-24T07:00"):
    df = ball_table(labels=("LC-LUCB", "Safe-LTS"), regret=regret)
    with ResultsStore(path, mode="w") as store:
        for i, row in enumerate(df.to_dict(orient="records")):
            key = f"{seed}/{row['sweep.value']}/{row['label']}/{row['replicate']}"
            store.write({"pk": f"{key}#h{seed}", "run_key": key, "config_hash": f"h{seed}", "wall_s": 0.5,
                         "seed": seed, "timestamp": f"{stamp}:{i:02d}+00:00", **row})  # fmt: skip
    return path


@pytest.fixture(autouse=True)
def _any_run_count(monkeypatch):
    """These stores hold a few hand-made runs, not an experiment's full set: completeness is not read."""
    monkeypatch.setattr(claims_sources, "expected_runs", lambda spec, scale: None)
    monkeypatch.setattr(claims_scoring, "_seed_keys", lambda spec, scale, seed: None)


def _row(page, claim):
    return next(line for line in page.splitlines() if f"`{claim}`" in line and "| paper |" in line)


def test_a_second_seed_set_that_flips_makes_the_verdict_fragile_not_different(tmp_path):
    one = _store(tmp_path / "seed0")
    flipped = _store(tmp_path / "seed1", seed=1, regret={"LC-LUCB": 2000.0, "Safe-LTS": 1000.0})
    page = scoreboard_markdown([one, flipped], commit="abc1234")
    row = _row(page, "e2-vs-safe-lts")
    assert "**PASS**" in row and "fragile: flips across seed sets (seed 0: PASS, seed 1: FAIL)" in row
    # with the same verdict on both seed sets (no declared setting): robust
    same = _store(tmp_path / "seed1b", seed=1)
    row = _row(scoreboard_markdown([one, same], commit="abc1234"), "e2-vs-safe-lts")
    assert "**PASS**" in row and "robust: 2 seed sets" in row
    # one seed set: untested, with what is missing
    row = _row(scoreboard_markdown([one], commit="abc1234"), "e2-vs-safe-lts")
    assert "untested: 1 seed set (needs 2)" in row


def test_the_page_says_whether_each_reading_predates_its_data(tmp_path):
    page = scoreboard_markdown([_store(tmp_path / "r")], commit="abc1234")
    assert "| robustness | reading fixed |" in page
    # data of 2026-11-24, seed 0: every stage-wise reading was fixed later -> post-hoc
    assert "post-hoc (fixed 2026-11-2" in _row(page, "e2-vs-safe-lts")
    assert "Paper-scale readings: post-hoc" in page
    assert "no confirmatory run yet" in _row(page, "e2-vs-safe-lts")
    # fresh data with a new seed, made after every reading was fixed: it confirms (or not) the reading
    fresh = _store(
        tmp_path / "s", seed=3, stamp="2026-12-24T07:00", regret={"LC-LUCB": 2000.0, "Safe-LTS": 1.0}
    )
    row = _row(scoreboard_markdown([tmp_path / "r", fresh], commit="abc"), "e2-vs-safe-lts")
    assert "**PASS**" in row and "confirmatory run(s): seed 3: FAIL" in row
    # seed 3 alone is not the experiment's own seed: it gives no verdict row
    assert "`e2-vs-safe-lts`" not in scoreboard_markdown([fresh], commit="abc")


def test_scored_claims_carry_their_kind_and_diagnostics_are_counted_apart(tmp_path):
    scored = score_sources([_store(tmp_path / "r")])
    kinds = {c["id"]: c["kind"] for c in scored.claims}
    assert kinds["e2-vs-safe-lts"] == "paper"
    page = scoreboard_markdown([_store(tmp_path / "r2")], commit="abc1234")
    assert (
        "Verdicts of the papers' claims:" in page and "Library diagnostics (not the papers' verdicts)" in page
    )


def test_report_summary_has_a_line_per_experiment_and_the_skipped_ones(tmp_path):
    from safebandits.cli.stores import summary_lines

    claims = [
        {"experiment": "e", "scale": "quick", "id": "a", "verdict": "pass", "passed": True},
        {"experiment": "e", "scale": "quick", "id": "b", "verdict": "fail", "passed": False},
        {"experiment": "e", "scale": "quick", "id": "c", "verdict": "fail", "passed": False,
         "kind": "diagnostic"},
    ]  # fmt: skip
    lines = summary_lines(
        claims, "r/index.html", [{"experiment": "x", "scale": "quick", "why": "data missing"}]
    )
    assert lines[0].startswith("r/index.html (1/2 claims pass")
    assert lines[1] == "  e (quick): 1 pass, 1 fail; 1 diagnostic(s) -> r/index.html#e-quick"
    assert lines[2] == "  skipped x (quick): data missing"
    assert len(lines) == 3


def test_skipped_experiments_name_the_missing_data(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEBANDITS_DATA", str(tmp_path / "nowhere"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    df = ball_table().assign(experiment="stagewise-ball", scale="quick")
    skipped = {s["experiment"]: s["why"] for s in skipped_experiments(df)}
    assert "stagewise-ball" not in skipped
    assert skipped["stagewise-cyclic"] == "not run into this store"
    assert skipped["fdr-german"].startswith("data missing")
