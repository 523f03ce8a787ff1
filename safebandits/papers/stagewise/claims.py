"""Claims of Pacchiano, Ghavamzadeh & Bartlett (stage-wise constraints), spec ``stagewise.md`` section 5.

Each check reads the runs table of one experiment (regret runs: ``regret``, ``regret_tenth``,
``violations``, ``policy_violations``, ``tail_cost``, ``tail_reward`` columns) and returns claim records
as :mod:`safebandits.experiments.claims` does. Thresholds that make a qualitative claim checkable:

* Theorems 19 (LC-LUCB), 27 (OPLB) and 31 (OPB) are read as they are stated (issue 42): with probability
  at least ``1 - delta`` (``1 - 2 delta`` for Theorem 27) the regret is at most the bound with its
  constants (:func:`theorem_bound`), per run at ``T/10`` and ``T`` at every point (:func:`_bound_reading`:
  ``e1-bound``, ``e3-bound``, ``e4-bound``, ``oplb-bound``); Theorem 38 (OPNLB) states an order without
  its constant and is never decided (``opnlb-bound``: inconclusive, the regret against the expression with
  a unit constant in the evidence);
* a library diagnostic, never the paper's verdict, "log-log slope at most about 0.5" (the digest's shape of
  the O~(sqrt(T)) bounds): the slope of the mean regret over the
  last decade of rounds, ``log10(R(T) / R(T/10))``, is at most the slope of the theorem's own bound shape
  over the same decade, ``0.5 + k log10(ln T / ln(T/10))`` (:func:`bound_slope`), with ``k`` the power of
  ``log T`` in the bound: 1 for LC-LUCB (``beta_T sqrt(T d log T)``, ``beta_T ~ sqrt(log T)``), 1/2 for OPB
  (``sqrt(K T log(KT/delta))``). The offsets inside the logs are dropped, which gives the largest allowance
  (0.579 for LC-LUCB and 0.540 for OPB at T = 10^6). The former fixed 0.6 sat just above the worst measured
  slope (0.593) and was not derived from the paper. The slope's standard error gives the margin; the
  pre-asymptotic rule of issue 31 (a slope above the limit read as inconclusive while the regret was below
  the bound) was removed in issue 42: it could move a verdict one way only and was adopted after its data;
* "cost converges to about 0.561": the mean played cost over the last 10% of rounds is within
  :data:`COST_TOL` (0.03) of the optimal action's cost 0.5614 (d = 10, tau = 0.8);
* "reward converges to the optimum": mean reward over the last 10% of rounds within
  :data:`REWARD_TOL` (0.02) of the optimal policy's value;
* "optimism holds on the good event" (Lemmas 18 / 29 / 37): the runs whose ``optimism_failures`` is 0
  (every round's optimistic value at least the optimal true value) are at least a ``1 - delta``
  fraction of the method's runs, ``delta`` the runs' confidence level. Its ablation (``alpha_r = 1``)
  reads the opposite: more than a ``delta`` fraction of the runs fail at every point.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import ClaimMeta
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.stagewise.claims_bounds import (
    ORDER_TEXT,
    THM_LC_LUCB,
    THM_OPB,
    THM_OPLB,
    THM_OPNLB,
    _bound_reading,
    _bound_text,
    _order_reading,
    _slope_text,
    _slopes,
    bound_slope,
    slope_se,
    theorem_bound,
)
from safebandits.papers.stagewise.digest import PAPER as STAGEWISE

__all__ = [
    "STAGEWISE_CLAIM_SETS",
    "bound_slope",
    "check_lower_bound",
    "check_opb_four_arm",
    "check_opb_random",
    "check_optimism",
    "check_stagewise_ball",
    "check_stagewise_cyclic",
    "slope_se",
    "theorem_bound",
]

COST_TOL = 0.03
REWARD_TOL = 0.02
#: Cost of the optimal action of the cyclic instance at d = 10, tau = 0.8 (Figure 1's caption: 0.561).
CYCLIC_D10_COST = 0.5614


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    out = df[df["status"] == "ok"].copy()
    for col in (
        "regret", "regret_tenth", "violations", "policy_violations", "tail_cost", "tail_reward",
        "optimism_failures",
    ):  # fmt: skip
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce")
    out["tau"] = pd.to_numeric(out.get("instance.tau", np.nan), errors="coerce")
    out["T"] = pd.to_numeric(out.get("instance.T", np.nan), errors="coerce")
    return out


def _no_violations(ok: pd.DataFrame, column: str, cid: str, text: str, n_failed: int) -> Claim:
    per = ok.groupby("label")[column].agg(["sum", "size"])
    by_label = {lbl: {"violating_rounds": int(r["sum"]), "runs": int(r["size"])} for lbl, r in per.iterrows()}
    total = int(ok[column].sum()) if not ok.empty else 0
    passed = not ok.empty and total == 0
    return _claim(cid, text, passed, {"total": total, "by_method": by_label, "failed_runs": n_failed})


def _ordered_by_tau(ok: pd.DataFrame, label: str, group: str, cid: str, text: str) -> Claim:
    """Mean regret strictly decreasing in tau within every ``group`` (panel)."""
    sub = ok[ok["label"] == label]
    evidence: dict[str, Any] = {}
    passed = not sub.empty
    for g, part in sub.groupby(group):
        means = part.groupby("tau")["regret"].mean().sort_index()
        ok_here = bool(np.all(np.diff(means.to_numpy()) < 0)) and len(means) > 1
        passed &= ok_here
        evidence[str(g)] = {
            "mean_regret_by_tau": {f"{k:g}": float(v) for k, v in means.items()},
            "ordered": ok_here,
        }
    return _claim(cid, text, passed, evidence)


def _optimism_runs(ok: pd.DataFrame, label: str) -> tuple[pd.DataFrame, float]:
    """The method's runs that carry an optimism count, and their confidence level ``delta``."""
    sub = ok[ok["label"] == label]
    if "optimism_failures" not in sub:
        return sub.iloc[0:0], math.nan
    sub = sub[sub["optimism_failures"].notna()]
    delta = pd.to_numeric(sub.get("algorithm.delta", pd.Series(dtype=float)), errors="coerce")
    return sub, float(delta.max()) if delta.notna().any() else 0.05


def _optimism_evidence(sub: pd.DataFrame, delta: float) -> dict[str, Any]:
    failing = sub["optimism_failures"] > 0
    points: dict[str, Any] = {}
    for (panel, value), part in sub.groupby(["panel", "sweep.value"]):
        bad = part["optimism_failures"] > 0
        points[f"{panel}:{value}"] = {
            "runs": len(part),
            "runs_failing": int(bad.sum()),
            "failing_rounds_max": int(part["optimism_failures"].max()),
        }
    return {
        "runs": len(sub),
        "runs_failing": int(failing.sum()),
        "fraction_clean": float(1.0 - failing.mean()) if len(sub) else None,
        "delta": delta,
        "failing_rounds_total": int(sub["optimism_failures"].sum()),
        "points": points,
    }


def _no_record(cid: str, text: str, why: str) -> Claim:
    rec = _claim(cid, text, False, {})
    rec.update(verdict="not run", reason=why)
    return rec


def check_optimism(ok: pd.DataFrame, label: str, cid: str, text: str) -> Claim:
    """At least ``1 - delta`` of ``label``'s runs have no round whose optimistic value is below the optimal
    true value (``optimism_failures == 0``); "not run" when no run of ``label`` carries the count."""
    sub, delta = _optimism_runs(ok, label)
    if sub.empty:
        return _no_record(cid, text, f"no {label} run with an optimism_failures count")
    ev = _optimism_evidence(sub, delta)
    return _claim(cid, text, bool(ev["fraction_clean"] >= 1.0 - delta), ev)


def _optimism_text(method: str, lemma: str) -> str:
    return (
        f"{method}'s optimistic value of its choice is at least the optimal true value in every round "
        f"({lemma}) in at least a 1 - delta fraction of the runs."
    )


def _below(ok: pd.DataFrame, a: str, b: str, cid: str, text: str) -> Claim:
    stats = (
        ok[ok["label"].isin([a, b])]
        .groupby(["panel", "sweep.value", "label"])["regret"]
        .mean()
        .unstack("label")
    )
    evidence: dict[str, Any] = {}
    passed = a in stats and b in stats and not stats.empty
    if passed:
        for (panel, value), row in stats.iterrows():
            good = bool(row[a] < row[b])
            passed &= good
            evidence[f"{panel}:{value}"] = {a: float(row[a]), b: float(row[b]), "ok": good}
    return _claim(cid, text, passed, evidence)


def check_stagewise_cyclic(df: pd.DataFrame) -> list[Claim]:
    """E1: safety, regret ordered by tau, LC-LUCB below Safe-LTS, cost -> 0.561, sqrt(T) slope."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    claims = [
        _no_violations(
            ok,
            "violations",
            "e1-safety",
            "No round of any run plays an action whose true cost exceeds tau.",
            n_failed,
        ),
        _ordered_by_tau(
            ok,
            "LC-LUCB",
            "panel",
            "e1-tau-order",
            "LC-LUCB's regret grows as tau decreases (0.2 > 0.5 > 0.8) at every d.",
        ),
        _below(
            ok,
            "LC-LUCB",
            "Safe-LTS",
            "e1-vs-safe-lts",
            "LC-LUCB's mean final regret is below Safe-LTS's at every (d, tau).",
        ),
    ]
    sub = ok[(ok["label"] == "LC-LUCB") & (ok["panel"] == "cyclic-d10") & np.isclose(ok["tau"], 0.8)]
    cost = float(sub["tail_cost"].mean()) if not sub.empty else float("nan")
    claims.append(
        _claim(
            "e1-cost-0561",
            "d = 10, tau = 0.8: LC-LUCB's played cost converges to about 0.561 "
            "(the unconstrained optimum's cost).",
            bool(np.isfinite(cost) and abs(cost - CYCLIC_D10_COST) <= COST_TOL),
            {
                "mean_cost_last_10pct": cost,
                "target": CYCLIC_D10_COST,
                "tolerance": COST_TOL,
                "runs": len(sub),
            },
        )
    )
    # Figure 1's cost panel (d = 10), where the unconstrained optimum's cost 0.561 is above tau <= 0.5
    tight = ok[(ok["label"] == "LC-LUCB") & (ok["panel"] == "cyclic-d10") & (ok["tau"] <= 0.5 + 1e-12)]
    per_point: dict[str, Any] = {}
    good_all = not tight.empty
    for (panel, tau), part in tight.groupby(["panel", "tau"]):
        c = float(part["tail_cost"].mean())
        good = bool(tau - COST_TOL <= c <= tau + 1e-9)
        good_all &= good
        per_point[f"{panel}:tau={tau:g}"] = {"mean_cost_last_10pct": c, "ok": good}
    claims.append(
        _claim(
            "e1-cost-tau",
            f"d = 10, tau <= 0.5: LC-LUCB's played cost approaches tau from below (mean cost over the last "
            f"10% of rounds in [tau - {COST_TOL}, tau]).",
            good_all,
            {"tolerance": COST_TOL, "points": per_point},
        )
    )
    claims.append(_bound_reading(ok, "LC-LUCB", THM_LC_LUCB, "e1-bound", _bound_text("LC-LUCB", THM_LC_LUCB)))
    claims.append(_slopes(ok, "LC-LUCB", "e1-slope", _slope_text("LC-LUCB")))
    claims.append(check_optimism(ok, "LC-LUCB", "e1-optimism", _optimism_text("LC-LUCB", "Lemma 18")))
    return claims


def check_stagewise_ball(df: pd.DataFrame) -> list[Claim]:
    """E2: safety and LC-LUCB below Safe-LTS on average at every d."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    return [
        _no_violations(
            ok,
            "violations",
            "e2-safety",
            "No round of any run plays an action whose true cost exceeds tau.",
            n_failed,
        ),
        _below(
            ok,
            "LC-LUCB",
            "Safe-LTS",
            "e2-vs-safe-lts",
            "LC-LUCB's mean final regret is below Safe-LTS's at every d.",
        ),
        check_optimism(ok, "LC-LUCB", "e2-optimism", _optimism_text("LC-LUCB", "Lemma 18")),
    ]


def check_opb_random(df: pd.DataFrame) -> list[Claim]:
    """E3: no policy above tau, regret ordered by tau at every K, sqrt(T) slope."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    return [
        _no_violations(
            ok,
            "policy_violations",
            "e3-safety",
            "No played policy has a true expected cost above tau.",
            n_failed,
        ),
        _ordered_by_tau(
            ok,
            "OPB",
            "panel",
            "e3-tau-order",
            "OPB's regret grows as tau decreases (0.2 > 0.5 > 0.8) at every K.",
        ),
        _bound_reading(ok, "OPB", THM_OPB, "e3-bound", _bound_text("OPB", THM_OPB)),
        _slopes(ok, "OPB", "e3-slope", _slope_text("OPB")),
    ]


def check_opb_four_arm(df: pd.DataFrame) -> list[Claim]:
    """E4: no policy above tau, regret ordered by tau, reward converges to the optimum 0.7, slope."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    sub = ok[ok["label"] == "OPB"]
    tail = sub.groupby("tau")["tail_reward"].mean()
    conv = {f"{k:g}": float(v) for k, v in tail.items()}
    passed = not tail.empty and bool(np.all(np.abs(tail.to_numpy() - 0.7) <= REWARD_TOL))
    return [
        _no_violations(
            ok,
            "policy_violations",
            "e4-safety",
            "No played policy has a true expected cost above tau.",
            n_failed,
        ),
        _ordered_by_tau(ok, "OPB", "panel", "e4-tau-order", "OPB's regret grows as tau decreases."),
        _claim(
            "e4-reward",
            f"OPB's expected reward over the last 10% of rounds is within {REWARD_TOL} of the optimum 0.7.",
            passed,
            {"mean_reward_last_10pct_by_tau": conv, "optimum": 0.7},
        ),
        _bound_reading(ok, "OPB", THM_OPB, "e4-bound", _bound_text("OPB", THM_OPB)),
        _slopes(ok, "OPB", "e4-slope", _slope_text("OPB")),
    ]


def _check_safe_and_shape(method: str, prefix: str, lemma: str) -> Any:
    def check(df: pd.DataFrame) -> list[Claim]:
        ok = _ok(df)
        n_failed = int((df["status"] != "ok").sum())
        if method == "OPLB":
            theorem = _bound_reading(ok, method, THM_OPLB, f"{prefix}-bound", _bound_text(method, THM_OPLB))
        else:
            theorem = _order_reading(ok, method, f"{prefix}-bound", ORDER_TEXT)
        return [
            _no_violations(
                ok,
                "policy_violations",
                f"{prefix}-safety",
                f"No policy {method} plays has a true expected cost above tau.",
                n_failed,
            ),
            theorem,
            _slopes(ok, method, f"{prefix}-slope", _slope_text(method)),
            check_optimism(ok, method, f"{prefix}-optimism", _optimism_text(method, lemma)),
        ]

    check.__doc__ = (
        f"{method} (no paper experiment): safety in expectation every round, the regret theorem, sqrt(T) "
        "slope (a diagnostic), optimism."
    )
    return check


check_oplb_random = _check_safe_and_shape("OPLB", "oplb", "Lemma 29")
check_opnlb_finite = _check_safe_and_shape("OPNLB", "opnlb", "Lemma 37")


def check_stagewise_optimism(df: pd.DataFrame) -> list[Claim]:
    """Lemma 18 on the cyclic instance: optimism with the theory ``alpha_r``; the ablation ``alpha_r = 1``
    (a labelled extra) must break it in more than a ``delta`` fraction of the runs at every tau."""
    from safebandits.papers.stagewise.experiments import ALPHA_ABLATION

    ok = _ok(df)
    claims = [check_optimism(ok, "LC-LUCB", "opt-theory", _optimism_text("LC-LUCB", "Lemma 18"))]
    label = f"LC-LUCB (alpha_r = {ALPHA_ABLATION:g})"
    cid = "opt-ablation-fails"
    text = (
        f"Ablation: with alpha_r = {ALPHA_ABLATION:g}, below Lemma 18's condition (1 + alpha_c)(1 - r0) <= "
        "(tau - c0)(alpha_r - 1), optimism fails in some round in more than a delta fraction of the runs "
        "at every tau."
    )
    sub, delta = _optimism_runs(ok, label)
    if sub.empty:
        claims.append(_no_record(cid, text, f"no {label} run with an optimism_failures count"))
        return claims
    ev = _optimism_evidence(sub, delta)
    fails_everywhere = all(p["runs_failing"] > delta * p["runs"] for p in ev["points"].values())
    claims.append(_claim(cid, text, fails_everywhere, ev))
    return claims


def check_lower_bound(df: pd.DataFrame) -> list[Claim]:
    """Sec. 7: on the pair (nu, nu'), the larger mean regret is at least (1 - r0) / (21 (tau - c0)^2)."""
    ok = _ok(df)
    ok["gap"] = pd.to_numeric(ok.get("instance.gap", np.nan), errors="coerce")
    r0 = pd.to_numeric(ok.get("instance.safe_reward", pd.Series([0.5])), errors="coerce")
    evidence: dict[str, Any] = {}
    passed = not ok.empty
    for gap, part in ok.groupby("gap"):
        means = part.groupby("panel")["regret"].mean()
        bound = float((1.0 - r0.iloc[0]) / (21.0 * gap**2))
        t_min = 168.0 * math.e * bound / float(1.0 - r0.iloc[0])
        big_t = float(part["T"].max())
        good = len(means) == 2 and big_t >= t_min and float(means.max()) >= bound
        passed &= bool(good)
        evidence[f"gap={gap:g}"] = {
            **{f"mean_regret_{k}": float(v) for k, v in means.items()},
            "bound": bound,
            "T": big_t,
            "T_min": t_min,
            "ok": bool(good),
        }
    return [
        _claim(
            "lb-regret",
            "On the pair (nu, nu') of Sec. 7, at every gap tau - c0 with T >= 168 e B / (1 - r0), the larger "
            "mean regret of OPB is at least B = (1 - r0) / (21 (tau - c0)^2).",
            passed,
            evidence,
        )
    ]


STAGEWISE_CLAIM_SETS = {
    "stagewise-lower-bound": check_lower_bound,
    "oplb-random": check_oplb_random,
    "opnlb-finite": check_opnlb_finite,
    "stagewise-cyclic": check_stagewise_cyclic,
    "stagewise-ball": check_stagewise_ball,
    "opb-random": check_opb_random,
    "opb-four-arm": check_opb_four_arm,
    "stagewise-optimism": check_stagewise_optimism,
}


# -- claim metadata: the paper, its wording, the methods compared, the scale that decides (issue 17) --


_STAGEWISE_OPTIMISM = (
    "On the good event, the selected optimistic value is at least the optimal true value, "
    "V~r_t(X_t) >= <x*_t, theta*>, in every round (Lemmas 18 / 29 / 37; digest §5.3); the good event has "
    "probability >= 1 - delta."
)


_DIAGNOSTIC_SLOPE = (
    "Library diagnostic, not the paper's verdict: the paper states high-probability bounds (Theorems 19 and "
    "31), not slopes; the digest derives from them that the log-log slope of R(T) approaches <= 0.5 for "
    "large T (digest §5.4)."
)
_THM31 = (
    f"{THM_OPB}: with alpha_c = 1 and alpha_r = 1 + 2 (1 - r1) / (tau - c1), with probability at least "
    "1 - delta, R_Pi(T) <= alpha_r (2 sqrt(2 K T log(4KT/delta)) + 4 sqrt(T log(2/delta) log(4KT/delta)))."
)


def _optimism_meta(method: str) -> ClaimMeta:
    return _m(STAGEWISE, f"{method}: {_STAGEWISE_OPTIMISM}", (method,), scale="any")


#: Claim metadata by claim-set key, then claim id.
CLAIM_META: dict[str, dict[str, ClaimMeta]] = {
    "stagewise-cyclic": {
        "e1-safety": _m(
            STAGEWISE, "LC-LUCB never plays an action whose cost exceeds tau (high probability).", scale="any"
        ),
        "e1-tau-order": _m(
            STAGEWISE,
            '"the smaller the value of (1 - r0)/(tau - c0), the harder learning becomes": R(0.2) > R(0.5) > '
            "R(0.8) (digest §5.5).",
            ("LC-LUCB",),
        ),
        "e1-vs-safe-lts": _m(
            STAGEWISE,
            "LC-LUCB's final regret <= Safe-LTS's for every (d, tau) in E1 (digest §5.6).",
            ("LC-LUCB", "Safe-LTS"),
        ),
        "e1-cost-0561": _m(
            STAGEWISE,
            '"There exist optimal unconstrained solutions with cost less than 0.561 ... This is why the '
            'lower right cost evolution plot shows convergence to a level below the 0.8 threshold." (E1)',
            ("LC-LUCB",),
        ),
        "e1-cost-tau": _m(
            STAGEWISE,
            "For E1 (d = 10) with tau <= 0.5, the played cost approaches tau from below (digest "
            "§5.7, second half).",
            ("LC-LUCB",),
        ),
        "e1-bound": _m(
            STAGEWISE,
            f"{THM_LC_LUCB}: with alpha_c = 1 and alpha_r = 1 + 2 (1 - r0) / (tau - c0), with probability at "
            "least 1 - delta, R_C(T) <= alpha_r beta_T(delta, d) sqrt(2 T d log(1 + T L^2 / lambda)) "
            "(eq. 22).",
            ("LC-LUCB",),
        ),
        "e1-slope": _m(
            STAGEWISE,
            _DIAGNOSTIC_SLOPE,
            ("LC-LUCB",),
            kind="diagnostic",
        ),
        "e1-optimism": _optimism_meta("LC-LUCB"),
    },
    "stagewise-ball": {
        "e2-safety": _m(STAGEWISE, "No round plays an action whose cost exceeds tau.", scale="any"),
        "e2-vs-safe-lts": _m(
            STAGEWISE,
            "LC-LUCB's final regret <= Safe-LTS's on average in E2 (digest §5.6).",
            ("LC-LUCB", "Safe-LTS"),
        ),
        "e2-optimism": _optimism_meta("LC-LUCB"),
    },
    "opb-random": {
        "e3-safety": _m(STAGEWISE, "OPB's policy has E_pi[c] <= tau every round (digest §5.2).", scale="any"),
        "e3-tau-order": _m(STAGEWISE, "R(0.2) > R(0.5) > R(0.8) (digest §5.5, E3).", ("OPB",)),
        "e3-bound": _m(STAGEWISE, _THM31, ("OPB",)),
        "e3-slope": _m(STAGEWISE, _DIAGNOSTIC_SLOPE, ("OPB",), kind="diagnostic"),
    },
    "opb-four-arm": {
        "e4-safety": _m(STAGEWISE, "OPB's policy has E_pi[c] <= tau every round (digest §5.2).", scale="any"),
        "e4-tau-order": _m(STAGEWISE, "R(0.2) > R(0.5) > R(0.8) (digest §5.5, E4).", ("OPB",)),
        "e4-reward": _m(STAGEWISE, "E4: OPB's reward converges to the optimal policy's value.", ("OPB",)),
        "e4-bound": _m(STAGEWISE, _THM31, ("OPB",)),
        "e4-slope": _m(STAGEWISE, _DIAGNOSTIC_SLOPE, ("OPB",), kind="diagnostic"),
    },
    "stagewise-lower-bound": {
        "lb-regret": _m(
            STAGEWISE,
            "Lower-bound instance (Sec. 7): any algorithm's regret >~ (1 - r0) / (21 (tau - c0)^2) on the "
            "two-instance construction; a sanity check only (digest §5.8).",
            ("OPB",),
            why="quick runs stop at T = 5,000 and gap 0.1",
        ),
    },
    "oplb-random": {
        "oplb-safety": _m(
            STAGEWISE,
            "OPLB: the policy's true expected cost satisfies E_pi[c] <= tau every round (digest §5.2; no "
            "paper experiment).",
            scale="any",
        ),
        "oplb-bound": _m(
            STAGEWISE,
            f"{THM_OPLB}: with alpha_c = 1 and alpha_r = 1 + 2 (1 - r0) / (tau - c0), with probability at "
            "least 1 - 2 delta, R_Pi(T) <= 2 L (alpha_r + 1) beta_T(delta, d) / sqrt(lambda) sqrt(2 T "
            "log(1/delta)) + (alpha_r + 1) beta_T(delta, d) sqrt(2 T d log(1 + T L^2 / lambda)) (eq. 35; no "
            "paper experiment).",
            ("OPLB",),
            why="quick runs stop at T = 2,000",
        ),
        "oplb-slope": _m(
            STAGEWISE,
            "Library diagnostic, not the paper's verdict: OPLB's O~(sqrt(T)) regret (Thm. 27) as a log-log "
            "slope <= about 0.5 (digest §5.4; no paper experiment; the theorem itself is oplb-bound).",
            ("OPLB",),
            why="quick runs stop at T = 2,000",
            kind="diagnostic",
        ),
        "oplb-optimism": _optimism_meta("OPLB"),
    },
    "opnlb-finite": {
        "opnlb-safety": _m(
            STAGEWISE,
            "OPNLB: the policy's true expected cost satisfies E_pi[c] <= tau every round (digest §5.2; no "
            "paper experiment).",
            scale="any",
        ),
        "opnlb-bound": _m(
            STAGEWISE,
            f"{THM_OPNLB}: with probability at least 1 - delta, R_Pi(T) = O(sqrt(T d_eluder^r gamma_r(T, "
            "delta/2)) + (1 - r0)/(tau - c0) sqrt(T d_eluder^c gamma_c(T, delta/2)) + d_eluder^r + (1 - r0)/"
            "(tau - c0) d_eluder^c) (an order: the paper gives no constant; no paper experiment).",
            ("OPNLB",),
            why="quick runs stop at T = 2,000",
        ),
        "opnlb-slope": _m(
            STAGEWISE,
            "Library diagnostic, not the paper's verdict: OPNLB's O~(sqrt(T)) regret (Thm. 38) as a log-log "
            "slope <= about 0.5 (digest §5.4; no paper experiment; the theorem itself is opnlb-bound, an "
            "order that no finite run decides).",
            ("OPNLB",),
            why="quick runs stop at T = 2,000",
            kind="diagnostic",
        ),
        "opnlb-optimism": _optimism_meta("OPNLB"),
    },
    "stagewise-optimism": {
        "opt-theory": _optimism_meta("LC-LUCB"),
        "opt-ablation-fails": _m(
            STAGEWISE,
            'Ablation (a labelled extra, not the main verdict): optimism "fails if alpha_r is too small '
            "relative to (1-r0)/(tau-c0)\" (digest §5.3); run with alpha_r = 1, below Lemma 18's condition.",
            ("LC-LUCB (alpha_r = 1)",),
            scale="any",
        ),
    },
}

for _key, _fn in STAGEWISE_CLAIM_SETS.items():
    register_claims(_key, _fn, CLAIM_META[_key])
