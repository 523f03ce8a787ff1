"""Theorems 2 and 3 of Safe-LUCB read as their bounds (issue 42): bound (14), resp. (15), with its
constants, per run at every measured horizon where the theorem's premises hold, at the stated probability
``1 - 2 delta`` (:func:`bound_reading`); and the log-log slopes over the last decade of horizons, library
diagnostics beside them (:func:`horizon_slope`, :func:`_rate`). Used by
:mod:`safebandits.papers.safe_lucb.claims`.

The bounds (digest section 7, rebuilt from the extraction)::

    (14)  R_T <= 2 T' + 2 beta_T sqrt(2 d (T - T') log(2 T L^2 / (d (lambda_- T' + 2 lambda))))
    (15)  R_T <= (14) + kappa ||B|| L beta_T (T - T') / sqrt(lambda_- T' + 2 lambda),  kappa = 2 as printed

evaluated by :func:`~safebandits.algorithms.regret.safe_lucb.bound15` (``kappa = 0`` gives (14)), with
``beta_T`` eq. (7) at the horizon read (``T - 1`` samples), the run's ``T'`` and ``lambda_-`` (stored
diagnostics), and ``d``, ``L``, ``S``, ``R``, ``||B||`` from the run's instance, rebuilt from its config.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim, z_margin
from safebandits.experiments.claim_base import claim as _claim

__all__ = [
    "THM2",
    "THM3",
    "bound_constants",
    "bound_reading",
    "instance_of",
    "safe_lucb_bound",
    "theorem_premise",
]

THM2, THM3 = "Theorem 2", "Theorem 3"
#: The theorems hold with probability at least ``1 - 2 delta``.
FAILURE_FACTOR = 2.0
NO_CONFIG = "some runs do not store what the bound needs"
#: The stored columns the bound reads (besides ``config_json``, which rebuilds the instance).
_NEEDS = ("algorithm.delta", "algorithm.reg", "diag.t_prime", "diag.lambda_minus")


def instance_of(row: pd.Series) -> Any:
    """The run's instance, rebuilt exactly as :func:`~safebandits.experiments.runner.execute_task` does."""
    from safebandits.problems.registry import list_instances, make_instance
    from safebandits.rng import RunKey, instance_rng

    cfg = json.loads(row["config_json"])
    params = {k.removeprefix("instance."): v for k, v in cfg.items() if k.startswith("instance.")}
    key = RunKey(int(cfg["seed"]), int(cfg["sweep_point"]), str(cfg["label"]), int(cfg["replicate"]))
    entry = list_instances()[cfg["instance"]]
    return make_instance(cfg["instance"], instance_rng(key) if entry.random else None, **params)


def bound_constants(row: pd.Series) -> dict[str, float] | None:
    """``d``, ``L``, ``S``, ``R``, ``||B||_2`` and ``c`` of the run's instance (:func:`instance_of`;
    ``None`` when the row has no config)."""
    raw = row.get("config_json")
    if not isinstance(raw, str) or not raw:
        return None
    info = instance_of(row).public_info()
    return {
        "d": float(info.dim),
        "L": float(info.arm_norm_bound),
        "S": float(info.param_norm_bound),
        "R": float(info.noise_bound),
        "norm_b": float(np.linalg.norm(np.asarray(info.b_mat, dtype=float), 2)),
        "c": float(info.threshold),
    }


def safe_lucb_bound(row: pd.Series, consts: dict[str, float], t: float, kappa: float) -> float:
    """Bound (15) at horizon ``t`` with third-term coefficient ``kappa`` (``0``: bound (14)) for the run
    ``row`` (its ``T'``, ``lambda_-``, ``delta``, ``lambda``) and its instance's ``consts``."""
    from safebandits.algorithms.regret.safe_lucb import bound15
    from safebandits.estimators.confidence import adaptive_width_scalar

    d, big_l, delta, reg = (
        consts["d"],
        consts["L"],
        float(row["algorithm.delta"]),
        float(row["algorithm.reg"]),
    )
    beta_t = adaptive_width_scalar(max(t - 1.0, 0.0), d, delta, reg, consts["R"], big_l, consts["S"])
    t_prime, lam_minus = float(row["diag.t_prime"]), float(row["diag.lambda_minus"])
    return float(bound15(t_prime, t, int(d), beta_t, big_l, lam_minus, reg, consts["norm_b"], kappa))


def theorem_premise(row: pd.Series, t: float, theorem: str) -> str:
    """Why the theorem says nothing about the run ``row`` at horizon ``t`` ("" when its premises hold).
    Theorem 2: a positive gap, ``T' >= T_Delta`` and ``t >= T'``; Theorem 3: ``delta < 1/2``,
    ``T' >= t_delta`` and ``t >= T'``."""
    t_prime = float(row["diag.t_prime"])
    if theorem == THM2:
        t_delta_gap = float(row.get("diag.T_Delta", math.inf))
        if not math.isfinite(t_delta_gap):
            return "no positive gap (T_Delta infinite)"
        if t_prime < t_delta_gap:
            return f"T' = {t_prime:g} < T_Delta = {t_delta_gap:.6g}"
    else:
        if float(row["algorithm.delta"]) >= 0.5:
            return "delta >= 1/2"
        if t_prime < float(row.get("diag.lemma1_t_delta", math.inf)):
            return f"T' = {t_prime:g} < t_delta = {float(row['diag.lemma1_t_delta']):.6g}"
    if t < t_prime:
        return f"horizon {t:g} < T' = {t_prime:g} (still exploring)"
    return ""


def _point(part: pd.DataFrame, theorem: str) -> dict[str, Any]:
    """One horizon's runs read at their horizon ``T`` and at ``T // 10`` (where the premises hold)."""
    out: dict[str, Any] = {"runs": len(part), "horizons": {}, "premise_not_met": {}}
    within = pd.Series(True, index=part.index)
    counted = pd.Series(False, index=part.index)
    ratio, ratio_alt = 0.0, 0.0
    consts = {
        idx: bound_constants(row) if all(pd.notna(row.get(c)) for c in _NEEDS) else None
        for idx, row in part.iterrows()
    }
    big_t = int(part["samples"].max())
    for col, t in (("regret", float(big_t)), ("regret_tenth", float(big_t // 10))):
        bounds, alts = {}, {}
        for idx, row in part.iterrows():
            why = theorem_premise(row, t, theorem) if consts[idx] else NO_CONFIG
            if why:
                out["premise_not_met"][f"{t:g}"] = why
                continue
            kappa = float(row.get("algorithm.t0_coefficient", 2.0)) if theorem == THM3 else 0.0
            bounds[idx] = safe_lucb_bound(row, consts[idx], t, kappa)
            if theorem == THM3:  # the digest's derived coefficient, shown beside (never deciding)
                alts[idx] = safe_lucb_bound(row, consts[idx], t, 2.0 * math.sqrt(2.0) / consts[idx]["c"])
        if not bounds:
            continue
        b = pd.Series(bounds)
        r = part.loc[b.index, col].astype(float)
        within.loc[b.index] &= r <= b
        counted.loc[b.index] = True
        ratio = max(ratio, float((r / b).max()))
        if alts:
            ratio_alt = max(ratio_alt, float((r / pd.Series(alts)).max()))
        se = float(r.std(ddof=1) / math.sqrt(len(r))) if len(r) > 1 else None
        out["horizons"][f"{t:g}"] = {
            "T'": float(part["diag.t_prime"].max()),
            "bound": float(b.min()),
            "mean_regret": float(r.mean()),
            "margin_se": z_margin(float(b.min()) - float(r.mean()), se),
        }
    out.update(counted=int(counted.sum()), within=int((within & counted).sum()), max_regret_over_bound=ratio)
    if theorem == THM3:
        out["max_regret_over_bound_kappa_2sqrt2_over_c"] = ratio_alt
    return out


def bound_reading(ok: pd.DataFrame, label: str, theorem: str, cid: str, text: str) -> Claim:
    """Theorem 2 or 3 as stated (module docstring): at every horizon of the sweep, the runs within the
    bound at every measured horizon (``T`` and ``T // 10``) where the premises hold are at least a
    ``1 - 2 delta`` fraction of the runs read there. Horizons where the premises hold for no run are listed
    with the reason, not read; when none is read, or a run lacks its config, the claim cannot decide. The
    margin is the smallest over the horizons read of ``(bound - mean R) / se``; the largest ``R / bound``
    of any run is reported (for Theorem 3 also with the digest's derived ``kappa = 2 sqrt 2 / c``)."""
    sub = ok[ok["label"] == label]
    delta = float(pd.to_numeric(sub.get("algorithm.delta", pd.Series([0.01])), errors="coerce").max())
    need = 1.0 - FAILURE_FACTOR * delta
    evidence: dict[str, Any] = {"theorem": theorem, "delta": delta, "fraction_needed": need, "points": {}}
    passed, margins, worst, read = not sub.empty, [], 0.0, 0
    for big_t, part in sub.groupby("samples"):
        p = _point(part, theorem)
        evidence["points"][f"T={int(big_t)}"] = p
        if not p["counted"]:
            continue
        read += 1
        frac = p["within"] / p["counted"]
        p.update(fraction_within_bound=frac, ok=frac >= need)
        passed &= frac >= need
        worst = max(worst, p["max_regret_over_bound"])
        margins += [h["margin_se"] for h in p["horizons"].values()]
    evidence["max_regret_over_bound"] = worst
    evidence["horizons_read"] = read
    known = [m for m in margins if m is not None]
    margin = min(known) if known and len(known) == len(margins) else None
    why = ""
    if any(NO_CONFIG in p["premise_not_met"].values() for p in evidence["points"].values()):
        why = f"{NO_CONFIG} (the config that rebuilds the instance, T', lambda_-, delta, lambda)"
    elif not read:
        why = f"the premises of {theorem} hold at no measured horizon of these runs"
    return _claim(cid, text, bool(passed and read), evidence, margin_se=margin, cannot_decide=why)


def bound_text(theorem: str, method: str, bound: str) -> str:
    return (
        f"{theorem}: with probability at least 1 - 2 delta, {method}'s regret R_T is at most bound {bound} "
        "with its constants; read per run at every measured horizon (T and T/10 of each run of the sweep) "
        f"where the premises hold: at least a 1 - 2 delta fraction of the runs of each horizon is within it."
    )


def horizon_slope(ok: pd.DataFrame, label: str) -> dict[str, Any]:
    """Least-squares log-log slope of the mean regret at the horizon ``R(T)`` against ``T`` over the sweep
    points of the last decade ``[T_max / 10, T_max]`` (a horizon sweep: one run per ``T``, ``T'`` set for
    that ``T``), with the points read."""
    sub = ok[ok["label"] == label].copy()
    sub["T"] = pd.to_numeric(sub["samples"], errors="coerce")
    means = sub.groupby("T")["regret"].mean().sort_index()
    if means.empty:
        return {"slope": math.nan, "T_max": math.nan, "points": {}}
    t_max = float(means.index.max())
    last = means[(means.index >= t_max / 10.0 * (1 - 1e-9)) & (means > 0)]
    slope = (
        float(np.polyfit(np.log10(last.index.to_numpy(float)), np.log10(last.to_numpy(float)), 1)[0])
        if len(last) >= 2 and last.index.min() < t_max
        else math.nan
    )
    return {"slope": slope, "T_max": t_max, "points": {f"{int(t)}": float(v) for t, v in means.items()},
            "points_in_fit": len(last)}  # fmt: skip


def _rate(ok: pd.DataFrame, label: str, cid: str, rate: float, log_power: float, text: str) -> Claim:
    from safebandits.papers.stagewise.claims import bound_slope

    fit = horizon_slope(ok, label)
    limit = rate - 0.5 + bound_slope(fit["T_max"], log_power) if math.isfinite(fit["T_max"]) else math.nan
    t_prime = (
        ok[ok["label"] == label].groupby("samples")["diag.t_prime"].mean() if "diag.t_prime" in ok else {}
    )
    return _claim(
        cid,
        text,
        bool(np.isfinite(fit["slope"])) and fit["slope"] <= limit,
        {
            **fit,
            "slope_max": limit,
            "rate": rate,
            "log_power": log_power,
            "mean_t_prime_by_T": {f"{int(t)}": float(v) for t, v in dict(t_prime).items()},
        },
    )
