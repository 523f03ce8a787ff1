"""Claims of Amani, Alizadeh & Thrampoulidis (NeurIPS 2019), spec ``safe_lucb.md`` section 5.

Each check reads the runs table of one experiment (columns ``label``, ``regret``, ``regret_tenth``,
``samples`` (= rounds), ``violations``, ``diag.*``, ``config_json``) and returns claim records built with
:func:`safebandits.experiments.claims._claim`. Whether ``x*`` lies in an estimated safe set is decided by
rebuilding the run's instance from its config and run key (the same draw as the runner's) and testing
``x*`` against the estimate the learner stored (``diag.estimate_tprime`` / ``diag.estimate_final``).

Thresholds that make qualitative claims checkable:

* "GSLUCB close to Safe-LUCB(T_Delta)": its mean final per-step regret is nearer to Safe-LUCB(T_Delta)'s
  than to Safe-LUCB(T_0)'s;
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

__all__ = [
    "LATE_PER_STEP",
    "LINEAR_SLOPE",
    "SAFE_LUCB_CLAIM_SETS",
    "check_exploration",
    "check_karm",
    "x_star_membership",
]

LINEAR_SLOPE = 0.9
LATE_PER_STEP = 0.01
T_DELTA, T_ZERO, GSLUCB = "Safe-LUCB (T'=T_Delta)", "Safe-LUCB (T'=T_0)", "GSLUCB"
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


def _instance_of(row: pd.Series) -> Any:
    """The run's instance, rebuilt exactly as :func:`~safebandits.experiments.runner.execute_task` does."""
    from safebandits.problems.registry import list_instances, make_instance
    from safebandits.rng import RunKey, instance_rng

    cfg = json.loads(row["config_json"])
    params = {k.removeprefix("instance."): v for k, v in cfg.items() if k.startswith("instance.")}
    key = RunKey(int(cfg["seed"]), int(cfg["sweep_point"]), str(cfg["label"]), int(cfg["replicate"]))
    entry = list_instances()[cfg["instance"]]
    return make_instance(cfg["instance"], instance_rng(key) if entry.random else None, **params)


def x_star_membership(row: pd.Series, column: str) -> bool | None:
    """Whether the run's ``x*`` is in the estimated safe set stored in ``column`` (``None``: not stored)."""
    from safebandits.problems.safe_linear import estimated_safety_ucb

    raw = row.get(column)
    if not isinstance(raw, str) or not raw:
        return None
    est = json.loads(raw)
    inst = _instance_of(row)
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


def _mean_per_step(ok: pd.DataFrame) -> dict[str, float]:
    return {str(k): float(v) for k, v in ok.groupby("label")["per_step"].mean().items()}


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


def check_karm(df: pd.DataFrame) -> list[Claim]:
    """Figure 1a: safety; ordering T_Delta <= GSLUCB < T_0; GSLUCB close to T_Delta; T_Delta << T_0;
    GSLUCB stops before T_0; Lemmas 1 and 2; per-step regret decreasing."""
    ok = _ok(df)
    n_failed = int((df["status"] != "ok").sum())
    means = _mean_per_step(ok)
    claims = [_safety(ok, "karm-safety", n_failed)]
    have = all(lbl in means for lbl in (T_DELTA, T_ZERO, GSLUCB))
    rd, rg, r0 = (means.get(lbl, math.nan) for lbl in (T_DELTA, GSLUCB, T_ZERO))
    ev = {"mean_final_per_step_regret": means}
    claims.append(
        _claim(
            "karm-order",
            "Final mean per-step regret: Safe-LUCB(T_Delta) <= GSLUCB < Safe-LUCB(T_0).",
            have and rd <= rg < r0,
            ev,
        )
    )
    claims.append(
        _claim(
            "karm-gslucb-close",
            "GSLUCB's final per-step regret is closer to Safe-LUCB(T_Delta)'s than to Safe-LUCB(T_0)'s.",
            have and (rg - rd) < (r0 - rg),
            {**ev, "gslucb_minus_tdelta": rg - rd, "t0_minus_gslucb": r0 - rg},
        )
    )
    sub = ok[ok["label"] == T_DELTA]
    ratio = (sub["diag.T_Delta"] / sub["diag.T0"]).astype(float) if not sub.empty else pd.Series(dtype=float)
    claims.append(
        _claim(
            "karm-tdelta-below-t0",
            "Instances: T_Delta <= T_0 / 2 in every realisation (gap positive, T_Delta clearly below T_0).",
            bool(len(ratio)) and bool((ratio <= 0.5).all()),
            {
                "max_T_Delta_over_T0": float(ratio.max()) if len(ratio) else None,
                "runs": len(ratio),
                "mean_T_Delta": float(sub["diag.T_Delta"].mean()) if len(sub) else None,
                "mean_T0": float(sub["diag.T0"].mean()) if len(sub) else None,
            },
        )
    )
    g = ok[ok["label"] == GSLUCB]
    stopped = (g["diag.t_prime"] < g["diag.T0"]) if not g.empty else pd.Series(dtype=bool)
    claims.append(
        _claim(
            "karm-gslucb-stops-early",
            "GSLUCB ends its exploration before T_0 in every run.",
            bool(len(stopped)) and bool(stopped.all()),
            {
                "runs": len(stopped),
                "stopped_early": int(stopped.sum()),
                "mean_t_prime": float(g["diag.t_prime"].mean()) if len(g) else None,
            },
        )
    )
    delta = float(ok["algorithm.delta"].astype(float).max()) if "algorithm.delta" in ok and len(ok) else 0.01
    claims.append(_lemma1(ok, "karm-lemma1", delta))
    mem = [m for m in _membership(ok, T_DELTA, "diag.estimate_tprime") if m is not None]
    frac = float(np.mean(mem)) if mem else float("nan")
    claims.append(
        _claim(
            "karm-lemma2",
            "Lemma 2: with T' = T_Delta, x* is in the estimated safe set D^s_{T'+1} in at least a 1 - delta "
            "fraction of the runs.",
            bool(mem) and frac >= 1 - delta,
            {"runs": len(mem), "fraction_in": frac},
        )
    )
    dec = {str(k): bool(p["per_step"].mean() < p["per_step_tenth"].mean()) for k, p in ok.groupby("label")}
    claims.append(
        _claim(
            "karm-per-step-decreasing",
            "Every method's mean per-step regret at T is below its value at T/10.",
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


#: Claim sets by experiment key (hooked into ``check_claims`` by the lead).
SAFE_LUCB_CLAIM_SETS = {"safelucb-karm": check_karm, "safelucb-exploration": check_exploration}
