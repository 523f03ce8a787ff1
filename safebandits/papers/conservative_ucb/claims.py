"""Claims of Wu, Shariff, Lattimore & Szepesvari (2016), "Conservative Bandits" (digest
``docs/conservative_ucb.md``, section 5), read on the runs of ``cucb-horizon`` and
``cucb-alpha`` (regret runs with the ``conservative_*`` columns: the constraint under the truth).

Readings, fixed before the paper-scale data (the quick seed-0 data in view):

* **safe** (Sec. 3's guarantee; the abstract's "maintaining their revenue above a fixed baseline,
  uniformly over time"): per Conservative UCB variant, the runs with any round whose cumulative mean
  reward falls below ``(1 - alpha) t mu_0`` are at most ``sum delta + 3 sqrt(sum delta (1 - delta))``
  over its runs (``delta = 1 / T`` each: the authors' experiments) -- with ``delta = 1/T`` that is
  zero runs at both scales;
* **UCB violates** (Sec. 1: standard algorithms "experiment wildly, at least initially, and as such may
  initially lose too much revenue"): UCB does not keep the guarantee -- its runs with a violating round,
  pooled over the horizon sweep, exceed the allowance above;
* **below BudgetFirst** (a library reading of the experiments' comparison; the paper's figures could not
  be read here): Conservative UCB's (known ``mu_0``) mean regret is below BudgetFirst's at the largest
  horizon swept (at short horizons BudgetFirst's budget phase covers the whole run: it plays the default
  arm, regret ``0.1 T``, and exploring cannot pay back);
* **regret falls with alpha** (a library reading of experiment 2): Conservative UCB's mean regret at the
  largest alpha swept is below its mean regret at the smallest, by more than 2 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim, z_margin
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.conservative_ucb.digest import PAPER as CONSERVATIVE

__all__ = ["check_conservative_alpha", "check_conservative_horizon"]

CUCB = "Conservative UCB"
CUCB_UNKNOWN = "Conservative UCB (unknown mu_0)"
SAFE_METHODS = (CUCB, CUCB_UNKNOWN)


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[df["status"] == "ok"].copy()
    for c in ("regret", "conservative_violations", "conservative_min_margin", "samples", "sweep.value"):
        if c in ok:
            ok[c] = pd.to_numeric(ok[c], errors="coerce")
    return ok


def _safe(ok: pd.DataFrame, cid: str) -> Claim:
    """Per Conservative UCB variant: violating runs within ``delta`` (``1 / T`` per run) + 3 SE."""
    evidence: dict[str, object] = {}
    passed, margins = True, []
    for label in SAFE_METHODS:
        sub = ok[ok["label"] == label]
        if sub.empty or "conservative_violations" not in sub:
            return _claim(cid, _SAFE_TEXT, False, {"runs": 0}, reason=f"no runs of {label}")
        allowed, sd = _allowance(sub)
        bad = int((sub["conservative_violations"] > 0).sum())
        passed = passed and bad <= allowed
        margins.append(z_margin(allowed - bad, sd or None))
        evidence[label] = {
            "runs": len(sub),
            "runs_with_a_violating_round": bad,
            "allowed": allowed,
            "smallest_margin": float(sub["conservative_min_margin"].min()),
        }
    finite = [m for m in margins if m is not None]
    return _claim(cid, _SAFE_TEXT, passed, evidence, margin_se=min(finite) if finite else None)


_SAFE_TEXT = (
    "Conservative UCB (known and unknown mu_0) keeps sum_s mu_{I_s} >= (1 - alpha) t mu_0 in every round, "
    "in all runs but at most a delta fraction (+ 3 SE)."
)


def _allowance(sub: pd.DataFrame) -> tuple[float, float]:
    """``(sum delta + 3 sqrt(sum delta (1 - delta)), sqrt(sum delta (1 - delta)))`` over runs with
    ``delta = 1 / T`` (the learners' default: the authors' experiments)."""
    delta = 1.0 / np.maximum(sub["samples"].to_numpy(dtype=float), 2.0)
    sd = math.sqrt(float(np.sum(delta * (1.0 - delta))))
    return float(delta.sum() + 3.0 * sd), sd


def _ucb_violates(ok: pd.DataFrame) -> Claim:
    text = (
        "UCB does not keep the constraint: its runs with a round below (1 - alpha) t mu_0, over the horizon "
        "sweep, exceed the delta + 3 SE allowance Conservative UCB is held to."
    )
    sub = ok[ok["label"] == "UCB"]
    if sub.empty:
        return _claim("ucb-violates", text, False, {"runs": 0}, reason="no UCB runs")
    allowed, sd = _allowance(sub)
    bad = int((sub["conservative_violations"] > 0).sum())
    frac = (sub["conservative_violations"] > 0).groupby(sub["sweep.value"]).mean()
    evidence = {
        "runs": len(sub),
        "runs_with_a_violating_round": bad,
        "allowed": allowed,
        "violating_fraction_by_point": {f"{k:g}": float(v) for k, v in frac.items()},
        "smallest_margin": float(sub["conservative_min_margin"].min()),
    }
    return _claim(
        "ucb-violates", text, bad > allowed, evidence, margin_se=z_margin(bad - allowed, sd or None)
    )


def _below_budget_first(ok: pd.DataFrame) -> Claim:
    text = "Conservative UCB's mean regret is below BudgetFirst's at the largest horizon swept."
    runs = {lbl: ok[ok["label"] == lbl] for lbl in (CUCB, "BudgetFirst")}
    if any(r.empty for r in runs.values()):
        return _claim("cucb-below-budget-first", text, False, {}, reason="a method has no runs")
    top = float(min(r["sweep.value"].max() for r in runs.values()))
    a, b = (r.loc[r["sweep.value"] == top, "regret"] for r in runs.values())
    diff = float(b.mean() - a.mean())
    se = (
        math.sqrt(float(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))) if min(len(a), len(b)) > 1 else None
    )
    evidence = {"T": top, "cucb_regret": float(a.mean()), "budget_first_regret": float(b.mean())}
    return _claim("cucb-below-budget-first", text, diff > 0, evidence, margin_se=z_margin(diff, se))


def check_conservative_horizon(df: pd.DataFrame) -> list[Claim]:
    """Experiment 1: safety of both Conservative UCB variants, UCB's violations, the comparison with
    BudgetFirst."""
    ok = _ok(df)
    return [_safe(ok, "cucb-safe"), _ucb_violates(ok), _below_budget_first(ok)]


def check_conservative_alpha(df: pd.DataFrame) -> list[Claim]:
    """Experiment 2: safety at every alpha; Conservative UCB's regret falls as alpha grows."""
    ok = _ok(df)
    text = "Conservative UCB's mean regret at the largest alpha swept is below that at the smallest (> 2 SE)."
    sub = ok[ok["label"] == CUCB]
    by = sub.groupby("sweep.value")["regret"]
    if by.ngroups < 2:
        falls = _claim("cucb-regret-falls-with-alpha", text, False, {}, reason="fewer than two alphas")
    else:
        lo, hi = by.mean().index.min(), by.mean().index.max()
        diff = float(by.mean()[lo] - by.mean()[hi])
        se = math.sqrt(float(by.var(ddof=1)[lo] / by.size()[lo] + by.var(ddof=1)[hi] / by.size()[hi]))
        margin = z_margin(diff, se)
        passed = margin is not None and margin > 2.0
        evidence = {"alpha_low": float(lo), "alpha_high": float(hi), "regret_drop": diff}
        falls = _claim("cucb-regret-falls-with-alpha", text, passed, evidence, margin_se=margin)
    return [_safe(ok, "cucb-safe-alpha"), falls]


_SAFE_META = (
    "Sec. 3 and the abstract: the revenue stays above (1 - alpha) x the baseline's, uniformly over time."
)
register_claims(
    "cucb-horizon",
    check_conservative_horizon,
    {
        "cucb-safe": _m(CONSERVATIVE, _SAFE_META, SAFE_METHODS, scale="any"),
        "ucb-violates": _m(
            CONSERVATIVE,
            "Sec. 1: standard bandit algorithms 'may initially lose too much revenue'.",
            ("UCB",),
            scale="any",
        ),
        "cucb-below-budget-first": _m(
            CONSERVATIVE,
            "Library reading of experiment 1 (the paper's figure unread): Conservative UCB < BudgetFirst.",
            (CUCB, "BudgetFirst"),
            kind="diagnostic",
        ),
    },
)
register_claims(
    "cucb-alpha",
    check_conservative_alpha,
    {
        "cucb-safe-alpha": _m(CONSERVATIVE, _SAFE_META, SAFE_METHODS, scale="any"),
        "cucb-regret-falls-with-alpha": _m(
            CONSERVATIVE,
            "Library reading of experiment 2 (the paper's figure unread): regret falls as alpha grows.",
            (CUCB,),
            kind="diagnostic",
        ),
    },
)
