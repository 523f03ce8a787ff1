"""The CLUCB2 paper's claims (issue 44; the library's reading of Garcelon et al. 2020's abstract) read
correctly on small hand-made stores: each passes on runs made to satisfy it and fails on runs made to break
it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from safebandits.experiments.claims import check_claims


def _row(label, value, rep, *, violations=0, regret=100.0, fallback=None):
    return {
        "status": "ok", "label": label, "sweep.value": value, "samples": 2000, "replicate": rep,
        "algorithm.delta": 0.001, "conservative_violations": violations,
        "conservative_min_margin": -1.0 if violations else 0.5, "regret": regret,
        "diag.fallback_rounds": fallback,
    }  # fmt: skip


def _regret_runs(*, clucb2_bad=0, gain=40.0, gain_at_high=True, fewer=50, n=40, seed=0):
    """``n`` runs per learner and alpha (0.05, 0.2): CLUCB2's regret ``gain`` below CLUCB's (not at the
    largest alpha unless ``gain_at_high``), ``fewer`` baseline rounds fewer, ``clucb2_bad`` violating runs."""
    rng = np.random.default_rng(seed)
    rows = []
    for alpha in (0.05, 0.2):
        for rep in range(n):
            base = 300.0 + rng.normal(0, 10)
            g = gain if (alpha < 0.1 or gain_at_high) else 0.0
            rows.append(_row("LUCB", alpha, rep, violations=5, regret=base - 50 + rng.normal(0, 10)))
            rows.append(
                _row("CLUCB", alpha, rep, regret=base + rng.normal(0, 10), fallback=200.0 + rng.normal(0, 5))
            )
            rows.append(
                _row(
                    "CLUCB2",
                    alpha,
                    rep,
                    violations=3 if rep < clucb2_bad else 0,
                    regret=base - g + rng.normal(0, 10),
                    fallback=200.0 - fewer + rng.normal(0, 5),
                )
            )
    return pd.DataFrame(rows)


def _checkpoint_runs(*, bad=0, gain=40.0, flat=False, n=40, seed=0):
    """``n`` runs per learner and tau (10, 500): the checkpoint learner's regret below CLUCB2's by ``gain``
    at the largest tau, falling with tau unless ``flat``."""
    rng = np.random.default_rng(seed)
    rows = []
    for tau in (10, 500):
        for rep in range(n):
            base = 300.0 + rng.normal(0, 10)
            drop = gain if tau == 500 else (gain if flat else 0.0)
            rows.append(_row("CLUCB2", tau, rep, regret=base + rng.normal(0, 10), fallback=100.0))
            rows.append(
                _row(
                    "CLUCB2-T",
                    tau,
                    rep,
                    violations=2 if rep < bad else 0,
                    regret=base - drop + rng.normal(0, 10),
                    fallback=60.0,
                )
            )
    return pd.DataFrame(rows)


def _verdicts(name, df):
    return {c["id"]: c["passed"] for c in check_claims(df, name)}


def test_claims_pass_on_runs_made_to_satisfy_them():
    assert _verdicts("clucb2-regret", _regret_runs()) == {
        "clucb2-safe": True,
        "clucb2-below-clucb": True,
        "clucb2-fewer-baseline-rounds": True,
    }
    assert _verdicts("clucb2-checkpoints", _checkpoint_runs()) == {
        "clucb2-checkpoint-safe": True,
        "checkpoints-lower-regret": True,
        "checkpoint-regret-falls-with-tau": True,
    }


@pytest.mark.parametrize(
    ("name", "claim", "df"),
    [
        ("clucb2-regret", "clucb2-safe", _regret_runs(clucb2_bad=1)),  # 1 of 80 runs > 0.08 + 3 SE
        ("clucb2-regret", "clucb2-below-clucb", _regret_runs(gain_at_high=False)),  # not at every alpha
        ("clucb2-regret", "clucb2-below-clucb", _regret_runs(gain=-40.0)),
        ("clucb2-regret", "clucb2-fewer-baseline-rounds", _regret_runs(fewer=0)),
        ("clucb2-checkpoints", "clucb2-checkpoint-safe", _checkpoint_runs(bad=1)),
        ("clucb2-checkpoints", "checkpoints-lower-regret", _checkpoint_runs(gain=0.0)),
        ("clucb2-checkpoints", "checkpoint-regret-falls-with-tau", _checkpoint_runs(flat=True)),
    ],
)
def test_each_claim_fails_on_runs_made_to_break_it(name, claim, df):
    assert _verdicts(name, df)[claim] is False


def test_claims_without_runs_fail_with_a_reason():
    claims = check_claims(_regret_runs().iloc[0:0], "clucb2-regret")
    assert all(c["passed"] is False for c in claims)
