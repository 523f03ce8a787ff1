"""Claims of Amani, Alizadeh & Thrampoulidis (NeurIPS 2019), spec ``safe_lucb.md`` section 5.

Each check reads the runs table of one experiment (columns ``label``, ``regret``, ``regret_tenth``,
``samples`` (= rounds), ``violations``, ``diag.*``, ``config_json``) and returns claim records built with
:func:`safebandits.experiments.claim_base.claim`. Whether ``x*`` lies in an estimated safe set is decided by
rebuilding the run's instance from its config and run key (the same draw as the runner's) and testing
``x*`` against the estimate the learner stored (``diag.estimate_tprime`` / ``diag.estimate_final``).

Thresholds that make qualitative claims checkable:

* ``safelucb-karm``: Figure 1a's order ``T_Delta <= GSLUCB < T_0`` and "GSLUCB close to
  Safe-LUCB(T_Delta)" are decided on the final per-step regret averaged over the draws of the margin panel
  (:data:`DECIDING_PANEL`), whose generator was fixed before its data; the same readings on every draw of
  the unconditioned panel (:data:`MAIN_PANEL`) are shown beside them as labelled diagnostics
  (``karm-order-all-draws``, ``karm-gslucb-close-all-draws``). The premise filter of issue 31 (only draws
  with ``T_Delta <= T_0 < T``) was removed in issue 42: the paper states no such premise. The other
  Figure 1a claims read the unconditioned panel;
* "in most draws" (``T_Delta <= T_0 / 2``, GSLUCB stopping before ``T_0``): the Wilson 95% interval of the
  fraction of draws lies above :data:`MOST_DRAWS` (1/2) to pass, below it to fail, else inconclusive;
* Theorems 2 and 3 (``safelucb-rate-gap`` / ``-zero``, horizon sweeps) are read as they are stated
  (issue 42; :mod:`~safebandits.papers.safe_lucb.claims_bounds`): bound (14), resp. (15), with its
  constants, per run at ``T`` and ``T/10`` where the premises hold, at the probability ``1 - 2 delta``
  (``rate-*-bound``). Library diagnostics beside them (``rate-*-slope``): the least-squares log-log slope
  of ``R(T)`` against ``T`` over the last decade of horizons is at most ``rate + log10(ln T / ln(T/10))``
  (the rate ``sqrt(T) log T``, resp. ``T^(2/3) log T``, over that decade: 0.597, resp. 0.764, at
  ``T = 10^5``);
* "regret grows linearly": the log-log slope of the mean regret over the last decade of rounds,
  ``log10(R(T) / R(T/10))``, is at least :data:`LINEAR_SLOPE` (0.9);
* "per-step regret goes to 0": ``R(T)/T < R(T/10)/(T/10)`` and the per-step regret over rounds
  ``T/10 .. T`` is at most :data:`LATE_PER_STEP` (0.01).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import ClaimMeta
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.safe_lucb.claims_bounds import (
    THM2,
    THM3,
    _rate,
    bound_reading,
    bound_text,
    horizon_slope,
    instance_of,
)
from safebandits.papers.safe_lucb.claims_figure1a import (
    _CLOSE_ALL_TEXT,
    _CLOSE_TEXT,
    _ORDER_ALL_TEXT,
    _ORDER_TEXT,
    ALL_DRAWS_KEY,
    CONDITIONED_KEY,
    CONDITIONED_PANEL,
    DECIDING_PANEL,
    GSLUCB,
    MAIN_PANEL,
    T_DELTA,
    T_ZERO,
    _draws_evidence,
    _figure1a,
    _figure1a_summary,
    figure_premise,
)
from safebandits.papers.safe_lucb.digest import PAPER as SAFE_LUCB

__all__ = [
    "LATE_PER_STEP",
    "LINEAR_SLOPE",
    "SAFE_LUCB_CLAIM_SETS",
    "check_confidence",
    "check_exploration",
    "check_karm",
    "check_rate_gap",
    "check_rate_zero",
    "figure_premise",
    "horizon_slope",
    "wilson_interval",
    "x_star_membership",
]

LINEAR_SLOPE = 0.9
LATE_PER_STEP = 0.01
#: "In most draws": the fraction of random draws that must be exceeded (with 95% confidence).
MOST_DRAWS = 0.5
#: Power of ``log T`` in the rates the slope claims read: Theorem 2's bound (14) is ``sqrt(T) log T``
#: (``beta_T ~ sqrt(log T)`` times the ``sqrt(log T)`` of the elliptical potential); Theorem 3 states
#: ``O(T^(2/3) log T)``.
THM2_LOG_POWER, THM3_LOG_POWER = 1.0, 1.0
NO_EXPLORATION = "Safe-LUCB (no exploration)"


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    out = df[df["status"] == "ok"].copy()
    for col in ("regret", "regret_tenth", "violations", "samples"):
        out[col] = pd.to_numeric(out[col], errors="coerce")
    for col in ("diag.t_prime", "diag.T_Delta", "diag.T0", "diag.lambda_min_gram", "diag.lemma1_bound"):
        if col in out:
            out[col] = pd.to_numeric(out[col], errors="coerce")
    out["per_step"] = out["regret"] / out["samples"]
    out["per_step_tenth"] = out["regret_tenth"] / (out["samples"] // 10)
    return out


def x_star_membership(row: pd.Series, column: str) -> bool | None:
    """Whether the run's ``x*`` is in the estimated safe set stored in ``column`` (``None``: not stored)."""
    from safebandits.problems.safe_linear import estimated_safety_ucb

    raw = row.get(column)
    if not isinstance(raw, str) or not raw:
        return None
    est = json.loads(raw)
    inst = instance_of(row)
    theta, a_mat = np.asarray(est["theta"]), np.asarray(est["a"])
    ucb = estimated_safety_ucb(inst.optimal_action, inst.b_mat, theta, a_mat, float(est["beta"]))[0]
    return bool(ucb <= inst.threshold)


def _safety(ok: pd.DataFrame, cid: str, n_failed: int) -> Claim:
    per = ok.groupby("label")["violations"].agg(["sum", "size"])
    by = {lbl: {"violating_rounds": int(r["sum"]), "runs": int(r["size"])} for lbl, r in per.iterrows()}
    total = int(ok["violations"].sum()) if not ok.empty else 0
    return _claim(
        cid,
        "Zero violating rounds (mu^T B x_t > c) in every run of every method.",
        not ok.empty and total == 0 and n_failed == 0,
        {"total": total, "by_method": by, "failed_runs": n_failed},
    )


def _delta(ok: pd.DataFrame) -> float:
    """The runs' confidence level ``delta`` (the largest, if they differ; 0.01, the default, if none)."""
    return float(ok["algorithm.delta"].astype(float).max()) if "algorithm.delta" in ok and len(ok) else 0.01


def _lemma1(ok: pd.DataFrame, cid: str, delta: float) -> Claim:
    sub = ok[ok["diag.lemma1_applicable"].astype(bool)] if "diag.lemma1_applicable" in ok else ok.iloc[:0]
    holds = sub["diag.lemma1_holds"].astype(bool) if not sub.empty else pd.Series(dtype=bool)
    frac = float(holds.mean()) if len(holds) else float("nan")
    ratio = (
        (sub["diag.lambda_min_gram"] / sub["diag.lemma1_bound"]) if not sub.empty else pd.Series(dtype=float)
    )
    return _claim(
        cid,
        "Lemma 1: lambda_min(A_{T'+1}) >= lambda + lambda_- T'/2 in at least a 1 - delta fraction of the "
        "runs with T' >= t_delta.",
        bool(len(holds)) and frac >= 1 - delta,
        {
            "runs": len(holds),
            "fraction_holding": frac,
            "delta": delta,
            "min_ratio": float(ratio.min()) if len(ratio) else None,
        },
    )


def _membership(ok: pd.DataFrame, label: str, column: str) -> list[bool | None]:
    return [x_star_membership(row, column) for _, row in ok[ok["label"] == label].iterrows()]


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial fraction (``(nan, nan)`` when ``n = 0``)."""
    if n <= 0:
        return math.nan, math.nan
    p = successes / n
    den = 1.0 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (0.0 if successes == 0 else min(p, max(0.0, mid - half)),
            1.0 if successes == n else max(p, min(1.0, mid + half)))  # fmt: skip


def _most_draws(cid: str, text: str, flags: pd.Series, extra: dict[str, Any]) -> Claim:
    """ "In most draws": the Wilson 95% interval of the fraction of draws with ``flags`` lies above
    :data:`MOST_DRAWS` (pass), below it (fail), or straddles it (inconclusive: too few draws)."""
    n, k = len(flags), int(flags.sum()) if len(flags) else 0
    lo, hi = wilson_interval(k, n)
    evidence = {"draws": n, "draws_satisfying": k, "fraction": k / n if n else None,
                "wilson95": [lo, hi], "threshold": MOST_DRAWS, **extra}  # fmt: skip
    if n and lo <= MOST_DRAWS <= hi:
        return _claim(cid, text, False, evidence, censored_only=True,
                      reason=f"{k}/{n} draws: the 95% interval [{lo:.2f}, {hi:.2f}] contains {MOST_DRAWS}; "
                      "more draws decide it")  # fmt: skip
    return _claim(cid, text, bool(n) and lo > MOST_DRAWS, evidence)


def check_karm(df: pd.DataFrame) -> list[Claim]:
    """Figure 1a: safety; ordering T_Delta <= GSLUCB < T_0 and GSLUCB close to T_Delta (means over the
    draws, with the fraction of draws that satisfy them); T_Delta << T_0 and GSLUCB stopping before T_0 in
    most draws; Lemmas 1 and 2; per-step regret decreasing.

    The order and the closeness are decided on the margin panel (:data:`DECIDING_PANEL`), whose
    generator was fixed before its data; the same readings on every draw of the unconditioned panel
    (:data:`MAIN_PANEL`) are shown beside them, as labelled diagnostics, and in the evidence (issue 42:
    no draw is dropped). The other Figure 1a claims read the unconditioned panel. Runs without a
    ``panel`` column are all read as the unconditioned panel (and the deciding claims as not run)."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    claims = [_safety(ok, "karm-safety", n_failed)]
    panels = ok["panel"] if "panel" in ok else pd.Series(MAIN_PANEL, index=ok.index)
    main = ok[panels != CONDITIONED_PANEL]
    decide = _figure1a(ok[panels == DECIDING_PANEL])
    beside = _figure1a(main)
    all_ev = {**_draws_evidence(figure_premise(main))}
    for cid, key, text_main, text_all in (
        ("karm-order", "order", _ORDER_TEXT, _ORDER_ALL_TEXT),
        ("karm-gslucb-close", "close", _CLOSE_TEXT, _CLOSE_ALL_TEXT),
    ):
        margin = decide[f"margin_{key}"]
        extra = (
            {
                "gslucb_minus_tdelta": decide["rg"] - decide["rd"],
                "t0_minus_gslucb": decide["r0"] - decide["rg"],
            }
            if key == "close"
            else {}
        )
        fraction = "fraction_of_draws_ordered" if key == "order" else "fraction_of_draws_closer_to_tdelta"
        rec = _claim(
            cid,
            text_main,
            decide["have"] and decide[key],
            {
                "panel": DECIDING_PANEL,
                "mean_final_per_step_regret": decide["means"],
                "draws": decide["draws"],
                **extra,
                fraction: decide[f"frac_{key}"],
                **decide["se"],
                ALL_DRAWS_KEY: {**_figure1a_summary(beside, key), **all_ev},
            },
            margin_se=margin,
        )
        if not decide["have"]:
            rec.update(verdict="not run", reason=f"no run of the deciding panel {DECIDING_PANEL!r}")
        claims.append(rec)
        claims.append(
            _claim(
                f"{cid}-all-draws",
                text_all,
                beside["have"] and beside[key],
                {"panel": MAIN_PANEL, **_figure1a_summary(beside, key), **beside["se"], **all_ev},
                margin_se=beside[f"margin_{key}"],
            )
        )
    sub = main[main["label"] == T_DELTA]
    ratio = (sub["diag.T_Delta"] / sub["diag.T0"]).astype(float) if not sub.empty else pd.Series(dtype=float)
    claims.append(
        _most_draws(
            "karm-tdelta-below-t0",
            f"Instances: T_Delta <= T_0 / 2 in most draws (the 95% interval of the fraction of draws lies "
            f"above {MOST_DRAWS}).",
            ratio <= 0.5,
            {
                "max_T_Delta_over_T0": float(ratio.max()) if len(ratio) else None,
                "draws_T_Delta_above_T0": int((ratio > 1).sum()),
                "median_T_Delta": float(sub["diag.T_Delta"].median()) if len(sub) else None,
                "median_T0": float(sub["diag.T0"].median()) if len(sub) else None,
            },
        )
    )
    g = main[main["label"] == GSLUCB]
    stopped = (g["diag.t_prime"] < g["diag.T0"]) if not g.empty else pd.Series(dtype=bool)
    cond = ok[(panels == CONDITIONED_PANEL) & (ok["label"] == GSLUCB)]
    cond_ev = (
        {CONDITIONED_KEY: {"draws": len(cond),
                           "gslucb_stopped_before_T0": int((cond["diag.t_prime"] < cond["diag.T0"]).sum())}}
        if len(cond)
        else {}
    )  # fmt: skip
    claims.append(
        _most_draws(
            "karm-gslucb-stops-early",
            f"GSLUCB ends its exploration before T_0 in most draws (the 95% interval of the fraction of "
            f"draws lies above {MOST_DRAWS}).",
            stopped,
            {
                "mean_t_prime": float(g["diag.t_prime"].mean()) if len(g) else None,
                "median_t_prime": float(g["diag.t_prime"].median()) if len(g) else None,
                **cond_ev,
            },
        )
    )
    delta = _delta(ok)
    claims.append(_lemma1(ok, "karm-lemma1", delta))
    mem = [m for m in _membership(ok, T_DELTA, "diag.estimate_tprime") if m is not None]
    frac = float(np.mean(mem)) if mem else float("nan")
    claims.append(
        _claim(
            "karm-lemma2",
            "Lemma 2: with T' = T_Delta, x* is in the estimated safe set D^s_{T'+1} in at least a 1 - delta "
            "fraction of the runs (both panels; runs with T' = T have no phase 2 and are not counted).",
            bool(mem) and frac >= 1 - delta,
            {"runs": len(mem), "fraction_in": frac},
        )
    )
    dec = {str(k): bool(p["per_step"].mean() < p["per_step_tenth"].mean()) for k, p in main.groupby("label")}
    claims.append(
        _claim(
            "karm-per-step-decreasing",
            "Every method's per-step regret averaged over the draws is lower at T than at T/10.",
            bool(dec) and all(dec.values()),
            dec,
        )
    )
    return claims


def check_exploration(df: pd.DataFrame) -> list[Claim]:
    """Figure 1b: safety; linear regret without exploration; vanishing per-step regret with it; x*
    certified at T'+1 with exploration and never without."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    claims = [_safety(ok, "expl-safety", n_failed)]
    stats: dict[str, dict[str, float]] = {}
    for lbl, part in ok.groupby("label"):
        r_t, r_10, big_t = part["regret"].mean(), part["regret_tenth"].mean(), part["samples"].max()
        stats[str(lbl)] = {
            "per_step_T": float(r_t / big_t),
            "per_step_T10": float(r_10 / (big_t // 10)),
            "late_per_step": float((r_t - r_10) / (big_t - big_t // 10)),
            "slope_last_decade": math.log10(r_t / r_10) if r_t > 0 and r_10 > 0 else float("nan"),
        }
    none, td = stats.get(NO_EXPLORATION), stats.get(T_DELTA)
    claims.append(
        _claim(
            "expl-linear-without",
            f"Without pure exploration the regret grows linearly (log-log slope >= {LINEAR_SLOPE} over the "
            "last decade of rounds).",
            none is not None and none["slope_last_decade"] >= LINEAR_SLOPE,
            {"stats": stats},
        )
    )
    claims.append(
        _claim(
            "expl-vanishing-with",
            f"With T' = T_Delta the per-step regret goes to 0: R(T)/T < R(T/10)/(T/10) and the per-step "
            f"regret over rounds T/10..T is at most {LATE_PER_STEP}; and it ends below the no-exploration "
            "run's.",
            td is not None
            and none is not None
            and td["per_step_T"] < td["per_step_T10"]
            and td["late_per_step"] <= LATE_PER_STEP
            and td["per_step_T"] < none["per_step_T"],
            {"stats": stats},
        )
    )
    with_tp = _membership(ok, T_DELTA, "diag.estimate_tprime")
    none_final = _membership(ok, NO_EXPLORATION, "diag.estimate_final")
    claims.append(
        _claim(
            "expl-certification",
            "x* is in D^s_{T'+1} in every run with T' = T_Delta (Lemma 2) and never in D^s_T without "
            "exploration.",
            bool(with_tp)
            and all(m is True for m in with_tp)
            and bool(none_final)
            and all(m is False for m in none_final),
            {"with_exploration_in_at_T'+1": with_tp, "without_exploration_in_at_T": none_final},
        )
    )
    return claims


def check_rate_gap(df: pd.DataFrame) -> list[Claim]:
    """Theorem 2 (Delta > 0, T' = T_Delta): safety; bound (14) with its constants at every horizon where
    the premises hold; the log-log slope of R(T) over the last decade of horizons against that of
    ``sqrt(T) log T`` (a library diagnostic)."""
    ok = _ok(df)
    return [
        _safety(ok, "rate-gap-safety", int((df["status"] != "ok").sum())),
        bound_reading(ok, T_DELTA, THM2, "rate-gap-bound", bound_text(THM2, "Safe-LUCB(T_Delta)", "(14)")),
        _rate(
            ok,
            T_DELTA,
            "rate-gap-slope",
            0.5,
            THM2_LOG_POWER,
            "Library diagnostic (not the paper's verdict): with Delta > 0 and T' = T_Delta, the log-log "
            "slope of the mean regret R(T) against the horizon T over the last decade of horizons is at "
            "most that of Theorem 2's shape sqrt(T) log T over that decade (0.5 + log10(ln T / ln(T/10))).",
        ),
    ]


def check_rate_zero(df: pd.DataFrame) -> list[Claim]:
    """Theorem 3 (Delta = 0, T' = T_0): safety; bound (15) with its constants at every horizon where the
    premises hold; the log-log slope of R(T) over the last decade of horizons against that of
    ``T^(2/3) log T`` (a library diagnostic)."""
    ok = _ok(df)
    return [
        _safety(ok, "rate-zero-safety", int((df["status"] != "ok").sum())),
        bound_reading(ok, T_ZERO, THM3, "rate-zero-bound", bound_text(THM3, "Safe-LUCB(T_0)", "(15)")),
        _rate(
            ok,
            T_ZERO,
            "rate-zero-slope",
            2.0 / 3.0,
            THM3_LOG_POWER,
            "Library diagnostic (not the paper's verdict): on a Delta = 0 instance with T' = T_0, the "
            "log-log slope of the mean regret R(T) against the horizon T over the last decade of horizons "
            "is at most that of Theorem 3's rate T^(2/3) log T over that decade "
            "(2/3 + log10(ln T / ln(T/10))).",
        ),
    ]


def check_confidence(df: pd.DataFrame) -> list[Claim]:
    """Theorem 1: ``mu in C_t`` for every round ``t <= T`` in at least a ``1 - delta`` fraction of the runs
    (the audit runs of ``safelucb-confidence``; every panel's runs counted together, failed runs count as
    runs where the theorem is not shown)."""
    ok = df[df["status"] == "ok"]
    n_failed = int((df["status"] != "ok").sum())
    delta = _delta(ok)
    fails = pd.to_numeric(ok.get("confidence_failures", pd.Series(dtype=float)), errors="coerce")
    holding = int((fails == 0).sum())
    n = len(ok) + n_failed
    frac = holding / n if n else float("nan")
    by_panel = {
        str(p): {
            "runs": len(part),
            "runs_with_mu_outside": int((pd.to_numeric(part["confidence_failures"]) > 0).sum()),
            "rounds_checked": int(pd.to_numeric(part["confidence_rounds"]).sum()),
            "least_slack": float(pd.to_numeric(part["confidence_min_slack"]).min()),
        }
        for p, part in ok.groupby("panel")
    } if "confidence_failures" in ok else {}  # fmt: skip
    return [
        _claim(
            "confidence-theorem1",
            "Theorem 1: the true mu lies in Safe-LUCB's confidence ellipsoid C_t (eq. 6, beta_t of eq. 7) at "
            "every round t <= T in at least a 1 - delta fraction of the runs (checked at each round of "
            "each run against the learner's own mu_hat_t, A_t and beta_t).",
            n > 0 and frac >= 1 - delta,
            {
                "runs": n,
                "runs_holding": holding,
                "fraction_holding": frac,
                "delta": delta,
                "failed_runs": n_failed,
                "by_panel": by_panel,
            },
        )
    ]


#: Claim sets by experiment key (hooked into ``check_claims`` by the lead).
SAFE_LUCB_CLAIM_SETS = {
    "safelucb-confidence": check_confidence,
    "safelucb-karm": check_karm,
    "safelucb-exploration": check_exploration,
    "safelucb-rate-gap": check_rate_gap,
    "safelucb-rate-zero": check_rate_zero,
}


# -- claim metadata: the paper, its wording, the methods compared, the scale that decides (issue 17) --

_T_DELTA, _T_ZERO, _GSLUCB = "Safe-LUCB (T'=T_Delta)", "Safe-LUCB (T'=T_0)", "GSLUCB"
_NO_EXPL = "Safe-LUCB (no exploration)"

#: Claim metadata by claim-set key, then claim id.
CLAIM_META: dict[str, dict[str, ClaimMeta]] = {
    "safelucb-confidence": {
        "confidence-theorem1": _m(
            SAFE_LUCB,
            "Theorem 1: with probability at least 1 - delta, mu in C_t for all t > 0 (digest §5.4).",
            ("Safe-LUCB (T'=T_Delta), audited",),
            why="quick runs have 3 runs per instance and T = 10^4; paper scale 100 draws and 100 runs, "
            "T = 10^5",
        ),
    },
    "safelucb-karm": {
        "karm-safety": _m(
            SAFE_LUCB,
            "Zero violations in phase 1; phase-2 violations in at most a delta fraction of runs.",
            scale="any",
        ),
        "karm-order": _m(
            SAFE_LUCB,
            "Figure 1a: average per-step regret Safe-LUCB(T_Delta) <~ GSLUCB < Safe-LUCB(T_0) (digest §5.8); "
            "decided on the margin panel, whose generator was fixed before its data (issue 42), with the "
            "reading on every draw of the unconditioned panel beside it.",
            (_T_DELTA, _T_ZERO, _GSLUCB),
            why="quick runs have 3 random draws; paper scale 200",
        ),
        "karm-order-all-draws": _m(
            SAFE_LUCB,
            "Shown beside karm-order, not the paper's verdict: Figure 1a's order on every draw of the "
            "unconditioned panel (no premise filter).",
            (_T_DELTA, _T_ZERO, _GSLUCB),
            why="quick runs have 3 random draws; paper scale 200",
            kind="diagnostic",
        ),
        "karm-gslucb-close": _m(
            SAFE_LUCB,
            '"GSLUCB ... empirically approaches the same regret" as Safe-LUCB with known Delta (Sec. 4; '
            "digest §5.8); decided on the margin panel, with the reading on every draw of the unconditioned "
            "panel beside it.",
            (_T_DELTA, _T_ZERO, _GSLUCB),
            why="quick runs have 3 random draws; paper scale 200",
        ),
        "karm-gslucb-close-all-draws": _m(
            SAFE_LUCB,
            "Shown beside karm-gslucb-close, not the paper's verdict: GSLUCB closer to Safe-LUCB(T_Delta) "
            "on every draw of the unconditioned panel (no premise filter).",
            (_T_DELTA, _T_ZERO, _GSLUCB),
            why="quick runs have 3 random draws; paper scale 200",
            kind="diagnostic",
        ),
        "karm-tdelta-below-t0": _m(
            SAFE_LUCB,
            'With Delta > 0, T_0 could give "an unnecessarily long pure exploration period": T_Delta well '
            "below T_0 (Sec. 4; instance property of Figure 1a), read in most random draws.",
            (_T_DELTA,),
            why="a fraction over random draws: 3 draws at quick scale cannot decide it",
        ),
        "karm-gslucb-stops-early": _m(
            SAFE_LUCB,
            "GSLUCB's exploration should stop well before T_0 (digest §5.8), read in most random draws.",
            (_GSLUCB,),
            why="a fraction over random draws: 3 draws at quick scale cannot decide it",
        ),
        "karm-lemma1": _m(
            SAFE_LUCB,
            "Lemma 1: for T' >= t_delta, lambda_min(A_{T'+1}) >= lambda + lambda_- T'/2 w.p. >= 1 - delta.",
        ),
        "karm-lemma2": _m(
            SAFE_LUCB,
            "Lemma 2: with Delta > 0 and T' >= T_Delta, x* is in D^s_t for t > T' w.p. >= 1 - delta.",
            (_T_DELTA,),
        ),
        "karm-per-step-decreasing": _m(
            SAFE_LUCB, "Per-step regret R_t/t -> 0 for every variant with T' >= t_delta (digest §5.10)."
        ),
    },
    "safelucb-exploration": {
        "expl-safety": _m(SAFE_LUCB, "Zero violations (digest §5.1).", scale="any"),
        "expl-linear-without": _m(
            SAFE_LUCB,
            "Figure 1b: T' = 0 gives a much worse (near linear) order of regret because D^s_t never "
            "expands to include x*.",
            (_NO_EXPL,),
        ),
        "expl-vanishing-with": _m(
            SAFE_LUCB, "Figure 1b: with T' >= T_Delta the per-step regret goes to 0.", (_T_DELTA, _NO_EXPL)
        ),
        "expl-certification": _m(
            SAFE_LUCB,
            "Lemma 2 / Figure 1b: x* certified with T' = T_Delta, never without exploration.",
            (_T_DELTA, _NO_EXPL),
        ),
    },
    "safelucb-rate-gap": {
        "rate-gap-safety": _m(SAFE_LUCB, "Zero violations (digest §5.1).", scale="any"),
        "rate-gap-bound": _m(
            SAFE_LUCB,
            "Theorem 2: with Delta > 0, T' >= T_Delta and T >= T', with probability at least 1 - 2 delta, "
            "R_T <= 2 T' + 2 beta_T sqrt(2 d (T - T') log(2 T L^2 / (d (lambda_- T' + 2 lambda)))) (14).",
            (_T_DELTA,),
        ),
        "rate-gap-slope": _m(
            SAFE_LUCB,
            "Library diagnostic, not the paper's verdict: the paper states bound (14), not a slope; the "
            "digest derives regret O~(sqrt(T)), log-log slope about 0.5 (§5.6).",
            (_T_DELTA,),
            why="quick runs stop at T = 10^4, before the last decade the reading fits",
            kind="diagnostic",
        ),
    },
    "safelucb-rate-zero": {
        "rate-zero-safety": _m(SAFE_LUCB, "Zero violations (digest §5.1).", scale="any"),
        "rate-zero-bound": _m(
            SAFE_LUCB,
            "Theorem 3: with delta in (0, 1/2), T' >= t_delta and T >= T', with probability at least "
            "1 - 2 delta, R_T <= 2 T' + 2 beta_T sqrt(2 d (T - T') log(2 T L^2 / (d (lambda_- T' + 2 "
            "lambda)))) + 2 ||B|| L beta_T (T - T') / sqrt(lambda_- T' + 2 lambda) (15).",
            (_T_ZERO,),
        ),
        "rate-zero-slope": _m(
            SAFE_LUCB,
            "Library diagnostic, not the paper's verdict: the paper states bound (15), regret "
            "O(T^(2/3) log T), not a slope; the digest reads a log-log slope about 2/3 on a Delta = 0 "
            "instance (§5.7).",
            (_T_ZERO,),
            why="quick runs stop at T = 10^4, before the last decade the reading fits",
            kind="diagnostic",
        ),
    },
}

for _key, _fn in SAFE_LUCB_CLAIM_SETS.items():
    register_claims(_key, _fn, CLAIM_META[_key])
