"""The CLUCB paper's claims (issue 44) read correctly on small hand-made stores: each passes on runs made
to satisfy it and fails on runs made to break it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandits.experiments.claims import check_claims


def _runs(*, clucb_bad=0, lucb_bad_at_high=True, fallback=50, growth=0.0, n=40, seed=0):
    """``n`` runs per method and alpha (0.05, 0.2): CLUCB with ``clucb_bad`` violating runs at the first
    alpha, LUCB violating (except at the largest alpha when ``lucb_bad_at_high`` is false)."""
    rng = np.random.default_rng(seed)
    rows = []
    for alpha in (0.05, 0.2):
        for label in ("LUCB", "CLUCB"):
            for rep in range(n):
                violations = 0
                if label == "LUCB" and (alpha < 0.1 or lucb_bad_at_high):
                    violations = int(rng.integers(40, 60) if alpha < 0.1 else rng.integers(5, 15))
                if label == "CLUCB" and alpha < 0.1 and rep < clucb_bad:
                    violations = 3
                tenth = 100.0 + rng.normal(0, 5) + (60.0 if label == "CLUCB" else 0.0)
                later = 200.0 + rng.normal(0, 5) + (growth if label == "CLUCB" else 0.0)
                extra = (40.0 if alpha < 0.1 else 0.0) if label == "CLUCB" else 0.0
                rows.append({
                    "status": "ok", "label": label, "sweep.value": alpha, "samples": 1000, "replicate": rep,
                    "algorithm.delta": 0.001, "conservative_violations": violations,
                    "conservative_min_margin": -1.0 if violations else 0.5,
                    "regret_tenth": tenth + extra, "regret": tenth + later + extra,
                    "diag.fallback_rounds": fallback if label == "CLUCB" else None,
                })  # fmt: skip
    return pd.DataFrame(rows)


def _verdicts(name, df):
    return {c["id"]: c["passed"] for c in check_claims(df, name)}


def test_claims_pass_on_runs_made_to_satisfy_them():
    df = _runs()
    v = _verdicts("clucb-violations", df)
    assert v == {
        "clucb-safe-first-1000": True,
        "lucb-violates": True,
        "lucb-violations-fall-with-alpha": True,
    }
    v = _verdicts("clucb-alpha", df)
    assert v == {"clucb-safe": True, "clucb-conservative-phase": True, "clucb-extra-regret-constant": True,
                 "clucb-regret-falls-with-alpha": True}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "claim", "kwargs"),
    [
        ("clucb-violations", "clucb-safe-first-1000", {"clucb_bad": 2}),  # 2 of 80 runs > 0.08 + 3 SE
        ("clucb-alpha", "clucb-safe", {"clucb_bad": 2}),
        ("clucb-violations", "lucb-violates", {"lucb_bad_at_high": False}),  # not at every alpha
        ("clucb-alpha", "clucb-conservative-phase", {"fallback": 0}),
        ("clucb-alpha", "clucb-extra-regret-constant", {"growth": 30.0}),
    ],
)
def test_each_claim_fails_on_runs_made_to_break_it(name, claim, kwargs):
    assert _verdicts(name, _runs(**kwargs))[claim] is False


def test_one_violating_run_in_eighty_is_within_the_allowance():
    # 80 runs at delta = 0.001: allowance 0.08 + 3 sqrt(0.0799) = 0.93: a single violating run exceeds it
    assert _verdicts("clucb-violations", _runs(clucb_bad=1))["clucb-safe-first-1000"] is False
    assert _verdicts("clucb-violations", _runs(clucb_bad=0))["clucb-safe-first-1000"] is True
