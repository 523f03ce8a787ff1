"""Claims of Garcelon, Ghavamzadeh, Lazaric & Pirotta (2020), "Improved Algorithms for Conservative
Exploration in Bandits" (digest ``docs/clucb2.md``, section 5), read on the runs of ``clucb2-regret`` and
``clucb2-checkpoints``: regret runs with the ``conservative_*`` columns (the constraint under the truth,
at the problem's checkpoints) and the learners' ``diag.fallback_rounds``.

Every reading is the library's reading of a sentence of the abstract (the paper's experiments and figures
were not read), fixed before any data of these experiments (the ledger dates them):

* **safe** (abstract: "the performance is almost never worse than the performance of the baseline"):
  CLUCB2's runs with a violating round are at most ``n delta + 3 sqrt(n delta (1 - delta))`` over its
  ``n`` runs (``delta`` the runs' own, 0.001); in ``clucb2-checkpoints`` the checkpoint learner's runs
  with a violating *checkpoint* (the rounds the constraint is verified at), within the same allowance;
* **below CLUCB** (abstract: CLUCB2 "outperforms state-of-the-art conservative bandit algorithms in a
  number of synthetic ... problems"): at every alpha swept, CLUCB2's mean regret at ``T`` is below
  CLUCB's by more than 2 standard errors;
* **fewer baseline rounds** (diagnostic; a review's summary: CLUCB2 "plays optimistic yet safe actions
  beyond just the UCB arm or baseline"): at every alpha, CLUCB2's mean number of baseline rounds is below
  CLUCB's by more than 2 standard errors;
* **checkpoints lower the regret** (abstract: "this relaxed constraint favorably impacts the regret ... of
  CLUCB2"): at the largest ``tau`` swept, the checkpoint learner's mean regret is below CLUCB2's (every
  round verified) by more than 2 standard errors;
* **regret falls with tau** (diagnostic; the review: "improved regret with less frequent checks"): the
  checkpoint learner's mean regret at the largest ``tau`` is below that at the smallest by more than 2
  standard errors.
"""

from __future__ import annotations

import math

import pandas as pd

from safebandits.experiments.claim_base import Claim, z_margin
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.clucb.claims import _allowance, _bad, _ok
from safebandits.papers.clucb.clucb2.digest import PAPER as CLUCB2_PAPER

__all__ = ["check_clucb2_checkpoints", "check_clucb2_regret"]

CLUCB, CLUCB2, CLUCB2T = "CLUCB", "CLUCB2", "CLUCB2-T"


def _safe(ok: pd.DataFrame, label: str, cid: str, text: str) -> Claim:
    sub = ok[ok["label"] == label]
    if sub.empty or "conservative_violations" not in sub:
        return _claim(cid, text, False, {"runs": 0}, reason=f"no runs of {label}")
    allowed, sd = _allowance(sub)
    bad = _bad(sub)
    evidence = {"runs": len(sub), "runs_with_a_violating_round": bad, "allowed": allowed,
                "smallest_margin": float(sub["conservative_min_margin"].min())}  # fmt: skip
    return _claim(cid, text, bad <= allowed, evidence, margin_se=z_margin(allowed - bad, sd or None))


def _gap(low: pd.Series, high: pd.Series) -> tuple[float, float]:
    """``mean(high) - mean(low)`` and its standard error (two independent samples)."""
    diff = float(high.mean() - low.mean())
    se = math.sqrt(float(high.var(ddof=1) / len(high) + low.var(ddof=1) / len(low)))
    return diff, se


def _below_at_every_value(ok: pd.DataFrame, mine: str, other: str, column: str, cid: str, text: str) -> Claim:
    """At every swept value, ``mine``'s mean ``column`` below ``other``'s by more than 2 SE."""
    points, margins, passed = {}, [], True
    for value, part in ok.groupby("sweep.value"):
        a, b = part.loc[part["label"] == mine, column], part.loc[part["label"] == other, column]
        if min(len(a), len(b)) < 2:
            return _claim(cid, text, False, {}, reason=f"too few runs at {value:g}")
        diff, se = _gap(a, b)
        margin = z_margin(diff, se)
        passed = passed and margin is not None and margin > 2.0
        margins.append(margin)
        points[f"{value:g}"] = {f"{mine}": float(a.mean()), f"{other}": float(b.mean()), "se": se}
    finite = [m for m in margins if m is not None]
    return _claim(cid, text, passed, {"by_value": points}, margin_se=min(finite) if finite else None)


def _fewer_baseline_rounds(ok: pd.DataFrame) -> Claim:
    text = "At every alpha, CLUCB2 plays the baseline in fewer rounds than CLUCB (> 2 SE)."
    if "diag.fallback_rounds" not in ok:
        return _claim("clucb2-fewer-baseline-rounds", text, False, {}, reason="no baseline-round counts")
    return _below_at_every_value(ok, CLUCB2, CLUCB, "diag.fallback_rounds", "clucb2-fewer-baseline-rounds",
                                 text)  # fmt: skip


def _checkpoints_lower(ok: pd.DataFrame) -> Claim:
    text = (
        "At the largest checkpoint period tau swept, CLUCB2 for the checkpoint constraint has a lower mean "
        "regret than CLUCB2 verified every round (> 2 SE)."
    )
    if ok.empty:
        return _claim("checkpoints-lower-regret", text, False, {}, reason="no runs")
    top = ok[ok["sweep.value"] == ok["sweep.value"].max()]
    mine, other = top.loc[top["label"] == CLUCB2T, "regret"], top.loc[top["label"] == CLUCB2, "regret"]
    if min(len(mine), len(other)) < 2:
        return _claim("checkpoints-lower-regret", text, False, {}, reason="too few runs at the largest tau")
    diff, se = _gap(mine, other)
    margin = z_margin(diff, se)
    evidence = {"tau": float(top["sweep.value"].iloc[0]), "regret_checkpoint": float(mine.mean()),
                "regret_every_round": float(other.mean())}  # fmt: skip
    return _claim(
        "checkpoints-lower-regret", text, margin is not None and margin > 2.0, evidence, margin_se=margin
    )


def _falls_with_tau(ok: pd.DataFrame) -> Claim:
    text = "CLUCB2-T's mean regret at the largest tau swept is below that at the smallest (> 2 SE)."
    by = ok[ok["label"] == CLUCB2T].groupby("sweep.value")["regret"]
    if by.ngroups < 2:
        return _claim("checkpoint-regret-falls-with-tau", text, False, {}, reason="fewer than two taus")
    lo, hi = min(by.groups), max(by.groups)
    diff, se = _gap(by.get_group(hi), by.get_group(lo))
    margin = z_margin(diff, se)
    evidence = {"tau_low": float(lo), "tau_high": float(hi), "regret_low": float(by.get_group(lo).mean()),
                "regret_high": float(by.get_group(hi).mean())}  # fmt: skip
    return _claim("checkpoint-regret-falls-with-tau", text, margin is not None and margin > 2.0, evidence,
                  margin_se=margin)  # fmt: skip


def check_clucb2_regret(df: pd.DataFrame) -> list[Claim]:
    """CLUCB2's safety, its regret and its baseline rounds against CLUCB's, at every alpha."""
    ok = _ok(df)
    safe = _safe(
        ok, CLUCB2, "clucb2-safe",
        "CLUCB2 keeps sum_s r_{a_s} >= (1 - alpha) sum_s r_{b_s} in every round, in all runs but at most a "
        "delta fraction (+ 3 SE).",
    )  # fmt: skip
    below = _below_at_every_value(
        ok, CLUCB2, CLUCB, "regret", "clucb2-below-clucb",
        "At every alpha, CLUCB2's mean regret is below CLUCB's (> 2 SE).",
    )  # fmt: skip
    return [safe, below, _fewer_baseline_rounds(ok)]


def check_clucb2_checkpoints(df: pd.DataFrame) -> list[Claim]:
    """The checkpoint learner's safety at the checkpoints, and its regret against CLUCB2's and tau."""
    ok = _ok(df)
    safe = _safe(
        ok, CLUCB2T, "clucb2-checkpoint-safe",
        "CLUCB2 for the checkpoint constraint keeps sum_s r_{a_s} >= (1 - alpha) sum_s r_{b_s} at every "
        "checkpoint, in all runs but at most a delta fraction (+ 3 SE).",
    )  # fmt: skip
    return [safe, _checkpoints_lower(ok), _falls_with_tau(ok)]


_ABSTRACT = "Abstract (the library's reading; the paper's experiments were not read): "
register_claims(
    "clucb2-regret",
    check_clucb2_regret,
    {
        "clucb2-safe": _m(
            CLUCB2_PAPER,
            _ABSTRACT + "'the performance is almost never worse than the performance of the baseline'.",
            (CLUCB2,),
            scale="any",
        ),
        "clucb2-below-clucb": _m(
            CLUCB2_PAPER,
            _ABSTRACT + "CLUCB2 'outperforms state-of-the-art conservative bandit algorithms in a number of "
            "synthetic ... problems' (CLUCB the state of the art compared).",
            (CLUCB2, CLUCB),
        ),
        "clucb2-fewer-baseline-rounds": _m(
            CLUCB2_PAPER,
            "Library reading of a review's summary: CLUCB2 plays optimistic yet safe actions beyond the UCB "
            "arm or the baseline.",
            (CLUCB2, CLUCB),
            kind="diagnostic",
        ),
    },
)
register_claims(
    "clucb2-checkpoints",
    check_clucb2_checkpoints,
    {
        "clucb2-checkpoint-safe": _m(
            CLUCB2_PAPER,
            _ABSTRACT + "the performance 'verified only at predefined checkpoints' is kept there.",
            (CLUCB2T,),
            scale="any",
        ),
        "checkpoints-lower-regret": _m(
            CLUCB2_PAPER,
            _ABSTRACT + "'this relaxed constraint favorably impacts the regret and empirical performance of "
            "CLUCB2'.",
            (CLUCB2T, CLUCB2),
        ),
        "checkpoint-regret-falls-with-tau": _m(
            CLUCB2_PAPER,
            "Library reading of a review's summary ('improved regret with less frequent checks'): the "
            "regret falls as the checkpoints grow apart.",
            (CLUCB2T,),
            kind="diagnostic",
        ),
    },
)
