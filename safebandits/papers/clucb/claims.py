"""Claims of Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy (2017), "Conservative Contextual Linear
Bandits" (digest ``docs/clucb.md``, section 5), read on the runs of ``clucb-alpha`` (Fig. 1) and
``clucb-violations`` (Fig. 2): regret runs with the ``conservative_*`` columns (the constraint under the
truth) and CLUCB's ``diag.fallback_rounds``.

Readings, fixed before any data of these experiments (the ledger dates them):

* **safe** (Sec. 3's guarantee; Fig. 2 shows CLUCB at 0%): CLUCB's runs with any round whose cumulative
  mean reward falls below ``(1 - alpha)`` times the baseline's are at most ``n delta + 3 sqrt(n delta (1 -
  delta))`` over its ``n`` runs (``delta`` the runs' own, 0.001: the paper's), in each experiment;
* **LUCB violates** (Fig. 2: the percentage of the first 1,000 rounds at which LUCB violates the
  constraint): at *every* alpha swept, LUCB's runs with a violating round exceed that allowance;
* **LUCB's violations fall with alpha** (diagnostic, a library reading of Fig. 2: a looser constraint is
  violated less): LUCB's mean violating rounds at the smallest alpha exceed those at the largest by more
  than 2 standard errors;
* **conservative phase** (Sec. 5 on Fig. 1: "per-step regret of CLUCB remains constant at the beginning
  (the conservative phase) ... CLUCB follows the baseline policy"): every CLUCB run plays the baseline in
  some rounds (``diag.fallback_rounds > 0``), at every alpha;
* **extra regret constant** (diagnostic, a library reading of Thm. 2's decomposition "LUCB's regret plus
  a constant"): at every alpha, CLUCB's mean regret minus LUCB's grows by at most 2 standard errors from
  ``T / 10`` to ``T`` (the cost of conservatism is paid early);
* **regret falls with alpha** (diagnostic, a library reading of Fig. 1, the figure unread): CLUCB's mean
  regret at the largest alpha is below that at the smallest by more than 2 standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim, z_margin
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.clucb.digest import PAPER as CLUCB_PAPER

__all__ = ["check_clucb_alpha", "check_clucb_violations"]

CLUCB, LUCB = "CLUCB", "LUCB"
_NUMERIC = ("regret", "regret_tenth", "samples", "sweep.value", "conservative_violations",
            "conservative_min_margin", "diag.fallback_rounds", "algorithm.delta")  # fmt: skip


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[df["status"] == "ok"].copy()
    for c in _NUMERIC:
        if c in ok:
            ok[c] = pd.to_numeric(ok[c], errors="coerce")
    return ok


def _allowance(sub: pd.DataFrame) -> tuple[float, float]:
    """``(sum delta + 3 sqrt(sum delta (1 - delta)), sqrt(sum delta (1 - delta)))`` over the runs, each
    with its own ``delta`` (``algorithm.delta``; ``1 / T`` where it is missing: the learners' default)."""
    t = sub["samples"].to_numpy(dtype=float)
    delta = (
        sub["algorithm.delta"].to_numpy(dtype=float) if "algorithm.delta" in sub else np.full(t.size, np.nan)
    )
    delta = np.where(np.isfinite(delta), delta, 1.0 / np.maximum(t, 2.0))
    sd = math.sqrt(float(np.sum(delta * (1.0 - delta))))
    return float(delta.sum() + 3.0 * sd), sd


def _bad(sub: pd.DataFrame) -> int:
    return int((sub["conservative_violations"] > 0).sum())


_SAFE_TEXT = (
    "CLUCB keeps sum_s r_{a_s} >= (1 - alpha) sum_s r_{b_s} in every round, in all runs but at most a delta "
    "fraction (+ 3 SE)."
)


def _safe(ok: pd.DataFrame, cid: str) -> Claim:
    sub = ok[ok["label"] == CLUCB]
    if sub.empty or "conservative_violations" not in sub:
        return _claim(cid, _SAFE_TEXT, False, {"runs": 0}, reason="no runs of CLUCB")
    allowed, sd = _allowance(sub)
    bad = _bad(sub)
    evidence = {"runs": len(sub), "runs_with_a_violating_round": bad, "allowed": allowed,
                "smallest_margin": float(sub["conservative_min_margin"].min())}  # fmt: skip
    return _claim(cid, _SAFE_TEXT, bad <= allowed, evidence, margin_se=z_margin(allowed - bad, sd or None))


def _lucb_violates(ok: pd.DataFrame) -> Claim:
    text = (
        "LUCB violates the constraint in the first 1,000 rounds: at every alpha, its runs with a violating "
        "round exceed the delta + 3 SE allowance CLUCB is held to."
    )
    sub = ok[ok["label"] == LUCB]
    if sub.empty:
        return _claim("lucb-violates", text, False, {"runs": 0}, reason="no LUCB runs")
    points, margins, passed = {}, [], True
    for value, part in sub.groupby("sweep.value"):
        allowed, sd = _allowance(part)
        bad = _bad(part)
        passed = passed and bad > allowed
        margins.append(z_margin(bad - allowed, sd or None))
        points[f"{value:g}"] = {
            "runs": len(part),
            "runs_with_a_violating_round": bad,
            "allowed": allowed,
            "violating_rounds_percent": float(
                100.0 * (part["conservative_violations"] / part["samples"]).mean()
            ),
        }
    finite = [m for m in margins if m is not None]
    return _claim(
        "lucb-violates", text, passed, {"by_alpha": points}, margin_se=min(finite) if finite else None
    )


def _falls(ok: pd.DataFrame, label: str, column: str, cid: str, text: str) -> Claim:
    """``column``'s mean over ``label``'s runs at the smallest alpha above that at the largest, > 2 SE."""
    by = ok[ok["label"] == label].groupby("sweep.value")[column]
    if by.ngroups < 2:
        return _claim(cid, text, False, {}, reason="fewer than two alphas")
    mean, var, size = by.mean(), by.var(ddof=1), by.size()
    lo, hi = mean.index.min(), mean.index.max()
    diff = float(mean[lo] - mean[hi])
    se = math.sqrt(float(var[lo] / size[lo] + var[hi] / size[hi]))
    margin = z_margin(diff, se)
    evidence = {"alpha_low": float(lo), "alpha_high": float(hi), f"{column}_low": float(mean[lo]),
                f"{column}_high": float(mean[hi])}  # fmt: skip
    return _claim(cid, text, margin is not None and margin > 2.0, evidence, margin_se=margin)


def _conservative_phase(ok: pd.DataFrame) -> Claim:
    text = "Every CLUCB run follows the baseline in some rounds (the conservative phase), at every alpha."
    sub = ok[ok["label"] == CLUCB]
    if sub.empty or "diag.fallback_rounds" not in sub:
        return _claim("clucb-conservative-phase", text, False, {"runs": 0}, reason="no CLUCB runs")
    fb = sub["diag.fallback_rounds"]
    by = fb.groupby(sub["sweep.value"])
    evidence = {
        "runs": len(sub),
        "runs_without_a_baseline_round": int((fb <= 0).sum()),
        "mean_baseline_rounds_by_alpha": {f"{k:g}": float(v) for k, v in by.mean().items()},
        "fewest_baseline_rounds": float(fb.min()),
    }
    return _claim("clucb-conservative-phase", text, bool((fb > 0).all()), evidence)


def _extra_constant(ok: pd.DataFrame) -> Claim:
    text = (
        "CLUCB's regret is LUCB's plus a constant: at every alpha, CLUCB's mean extra regret over LUCB grows "
        "by at most 2 SE from T/10 to T."
    )
    points, margins, passed = {}, [], True
    for value, part in ok.groupby("sweep.value"):
        c, u = part[part["label"] == CLUCB], part[part["label"] == LUCB]
        if min(len(c), len(u)) < 2:
            return _claim("clucb-extra-regret-constant", text, False, {}, reason=f"too few runs at {value:g}")
        gc, gu = c["regret"] - c["regret_tenth"], u["regret"] - u["regret_tenth"]
        growth = float(gc.mean() - gu.mean())
        se = math.sqrt(float(gc.var(ddof=1) / len(gc) + gu.var(ddof=1) / len(gu)))
        margin = z_margin(2.0 * se - growth, se)
        passed = passed and growth <= 2.0 * se
        margins.append(margin)
        points[f"{value:g}"] = {"extra_at_tenth": float(c["regret_tenth"].mean() - u["regret_tenth"].mean()),
                                "extra_at_T": float(c["regret"].mean() - u["regret"].mean()),
                                "growth": growth, "se": se}  # fmt: skip
    finite = [m for m in margins if m is not None]
    return _claim(
        "clucb-extra-regret-constant",
        text,
        passed,
        {"by_alpha": points},
        margin_se=min(finite) if finite else None,
    )


def check_clucb_alpha(df: pd.DataFrame) -> list[Claim]:
    """Fig. 1: CLUCB's safety, its conservative phase, its extra regret over LUCB, its regret against
    alpha."""
    ok = _ok(df)
    falls = _falls(
        ok, CLUCB, "regret", "clucb-regret-falls-with-alpha",
        "CLUCB's mean regret at the largest alpha swept is below that at the smallest (> 2 SE).",
    )  # fmt: skip
    return [_safe(ok, "clucb-safe"), _conservative_phase(ok), _extra_constant(ok), falls]


def check_clucb_violations(df: pd.DataFrame) -> list[Claim]:
    """Fig. 2: CLUCB never violates the constraint in the first 1,000 rounds; LUCB does, less at larger
    alpha."""
    ok = _ok(df)
    falls = _falls(
        ok, LUCB, "conservative_violations", "lucb-violations-fall-with-alpha",
        "LUCB's mean violating rounds (first 1,000) at the smallest alpha exceed those at the largest "
        "(> 2 SE).",
    )  # fmt: skip
    return [_safe(ok, "clucb-safe-first-1000"), _lucb_violates(ok), falls]


_SAFE_META = (
    "Sec. 3 and the abstract: the performance stays above (1 - alpha) x the baseline's, uniformly over time."
)
register_claims(
    "clucb-alpha",
    check_clucb_alpha,
    {
        "clucb-safe": _m(CLUCB_PAPER, _SAFE_META, (CLUCB,), scale="any"),
        "clucb-conservative-phase": _m(
            CLUCB_PAPER,
            "Sec. 5 on Fig. 1: CLUCB's per-step regret 'remains constant at the beginning (the conservative "
            "phase)': it follows the baseline policy.",
            (CLUCB,),
            scale="any",
        ),
        "clucb-extra-regret-constant": _m(
            CLUCB_PAPER,
            "Library reading of Thm. 2 ('LUCB's regret plus a constant'): the extra regret stops growing.",
            (CLUCB, LUCB),
            kind="diagnostic",
        ),
        "clucb-regret-falls-with-alpha": _m(
            CLUCB_PAPER,
            "Library reading of Fig. 1 (the figure unread): CLUCB's regret falls as alpha grows.",
            (CLUCB,),
            kind="diagnostic",
        ),
    },
)
register_claims(
    "clucb-violations",
    check_clucb_violations,
    {
        "clucb-safe-first-1000": _m(CLUCB_PAPER, _SAFE_META + " Fig. 2: CLUCB at 0%.", (CLUCB,), scale="any"),
        "lucb-violates": _m(
            CLUCB_PAPER,
            "Fig. 2: the percentage of the first 1,000 rounds at which LUCB violates the constraint.",
            (LUCB,),
            scale="any",
        ),
        "lucb-violations-fall-with-alpha": _m(
            CLUCB_PAPER,
            "Library reading of Fig. 2: LUCB violates a looser constraint (larger alpha) less.",
            (LUCB,),
            kind="diagnostic",
        ),
    },
)
