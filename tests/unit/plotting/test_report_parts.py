"""Report helpers: natural order of labels, verdict counts by scale for any verdict string, outcomes in
which a run that hit the budget is its own category."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.plotting.figures import natural_key, outcome_table
from safebandits.plotting.report import verdict_table


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=20, unique=True))
def test_natural_key_orders_numbers_by_value(numbers):
    labels = [f"G-ACOL (tuned x{n})" for n in numbers]
    assert sorted(labels, key=natural_key) == [f"G-ACOL (tuned x{n})" for n in sorted(numbers)]


def test_natural_key_mixed():
    labels = ["x10", "x2", "x1.5", "ACOL", "x2.5"]
    assert sorted(labels, key=natural_key) == ["ACOL", "x1.5", "x2", "x2.5", "x10"]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["quick", "paper", "mid"]), st.sampled_from(["pass", "fail", "inconclusive",
                                                                                "not run", "odd verdict"])),
        max_size=30,
    )
)  # fmt: skip
def test_verdict_table_counts_any_verdict_by_scale(pairs):
    claims = [{"scale": s, "verdict": v, "passed": v == "pass"} for s, v in pairs]
    table = verdict_table(claims)
    for row in table["rows"]:
        for v in table["verdicts"]:
            assert row["counts"].get(v, 0) == sum(p == (row["scale"], v) for p in pairs)
        assert row["total"] == sum(s == row["scale"] for s, _ in pairs)
    scales = [r["scale"] for r in table["rows"]]
    first = [s for s in ("quick", "paper") if s in scales]
    assert scales[: len(first)] == first  # quick, then paper, then any other scale
    known = [v for v in ("pass", "fail", "inconclusive", "not run") if v in table["verdicts"]]
    assert table["verdicts"][: len(known)] == known


def test_budget_hit_runs_are_never_incorrect():
    runs = pd.DataFrame(
        {
            "status": ["ok"] * 4,
            "panel": ["p"] * 4,
            "sweep.value": [1] * 4,
            "label": ["A"] * 4,
            "stopped": [True, True, False, False],
            "correct": [True, False, False, False],
        }
    )
    row = outcome_table(runs).iloc[0]
    assert row["n"] == 4 and row["n_stopped"] == 2
    assert row["frac_correct_stopped"] == 0.5  # one of the two runs that stopped
    assert row["frac_budget"] == 0.5


def test_outcomes_without_a_stopping_rule():
    """Classification runs record no stop and no correct answer (nullable booleans): no budget hit."""
    runs = pd.DataFrame(
        {
            "status": ["ok", "ok"],
            "panel": ["p", "p"],
            "sweep.value": [0.1, 0.1],
            "label": ["Active", "Active"],
            "stopped": pd.array([pd.NA, pd.NA], dtype="boolean"),
            "correct": pd.array([pd.NA, True], dtype="boolean"),
        }
    )
    row = outcome_table(runs).iloc[0]
    assert row["frac_budget"] == 0.0 and row["frac_correct_stopped"] == 0.5
