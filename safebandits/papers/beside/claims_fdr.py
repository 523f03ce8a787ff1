"""Claims of Camilleri et al. (NeurIPS 2022) on FDR-constrained classification (digest section 5, 9-11).

Read from the ``curve`` column (per-batch pool metrics) through
:func:`~safebandits.papers.beside.fdr.mean_curves`;
means over trials at each label count. Thresholds (``docs/decisions/beside.md``, "Active classification under
an FDR constraint"):

* "higher accuracy and lower FDR at 500/750/2000 labels" (Adult) and "higher precision and recall at
  170/270/330/450/600 labels" (German): strict inequalities of the trial means at every tick present;
* "about half the labels for a given FDR / precision": with the target = Passive's mean value at its
  largest label count, the first label count at which Active's mean curve reaches the target is at most
  :data:`HALF_FACTOR` (0.6) times Passive's first such label count;
* half circle, "far fewer queries for a given precision or recall": the same rule for recall (and for
  precision) with factor 0.5.

A labels-to-reach reading cannot decide when Passive is at its final value from its first label count
(both methods at the ceiling from the first batch): it is then inconclusive with that reason (issue 31).
Every reading reports its deciding margin in standard errors of the trial means (``margin_se``; ticks:
the smallest over the ticks and metrics; labels-to-reach: Active's mean at its last label count within
the limit against the target), so knife-edge passes and fails are flagged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim, z_margin
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import ClaimMeta
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.beside.digest import PAPER as BESIDE
from safebandits.papers.beside.fdr import TICKS, mean_curves

__all__ = ["FDR_CLAIM_SETS", "HALF_FACTOR", "labels_to_reach"]

HALF_FACTOR = 0.6


def labels_to_reach(stats: pd.DataFrame, metric: str, target: float, *, lower_is_better: bool) -> float:
    """First label count at which the mean curve of ``metric`` reaches ``target`` (``inf`` if never)."""
    values = stats[metric].to_numpy()
    hit = values <= target + 1e-12 if lower_is_better else values >= target - 1e-12
    idx = np.flatnonzero(hit)
    return float(stats.index[idx[0]]) if idx.size else float("inf")


def _at_ticks(
    curves: dict[str, pd.DataFrame], ticks: tuple[int, ...], metrics: tuple[str, ...]
) -> list[dict]:
    rows = []
    common = set(curves["Active"].index) & set(curves["Passive"].index)
    for t in ticks:
        if t in common:
            row: dict[str, Any] = {"labels": t}
            for m in metrics:
                row[f"Active {m}"] = float(curves["Active"].loc[t, m])
                row[f"Passive {m}"] = float(curves["Passive"].loc[t, m])
            rows.append(row)
    return rows


def _sem(stats: pd.DataFrame, n: float, metric: str) -> float:
    col = f"{metric}_sem"
    value = float(stats.loc[n, col]) if col in stats else float("nan")
    return (
        0.0
        if np.isnan(value) and f"{metric}_count" in stats and stats.loc[n, f"{metric}_count"] <= 1
        else value
    )


def _dominance(cid: str, text: str, curves, ticks, better: dict[str, str]) -> Claim:
    rows = _at_ticks(curves, ticks, tuple(better))
    passed = bool(rows)
    margins = []
    for row in rows:
        for m, direction in better.items():
            a, p = row[f"Active {m}"], row[f"Passive {m}"]
            ok = a > p if direction == "higher" else a < p
            row[f"{m} ok"] = bool(ok)
            sign = 1.0 if direction == "higher" else -1.0
            se = float(
                np.hypot(_sem(curves["Active"], row["labels"], m), _sem(curves["Passive"], row["labels"], m))
            )
            z = z_margin(sign * (a - p), se)
            row[f"{m} margin_se"] = z
            margins.append(z)
            passed &= ok
    evidence = {"ticks_present": [r["labels"] for r in rows], "points": rows}
    if not rows:
        evidence["note"] = f"no run reached the label counts {list(ticks)} (quick scale?)"
    known = [z for z in margins if z is not None]
    margin = min(known) if known and len(known) == len(margins) else None
    # (no tick reached: "inconclusive", still not passed)
    return _claim(cid, text, passed, evidence, censored_only=not rows, margin_se=margin)


def _half(cid: str, text: str, curves, metric: str, lower_is_better: bool, factor: float) -> Claim:
    passive, active = curves["Passive"], curves["Active"]
    n_max = float(passive.index.max())
    target = float(passive.loc[n_max, metric])
    n_passive = labels_to_reach(passive, metric, target, lower_is_better=lower_is_better)
    n_active = labels_to_reach(active, metric, target, lower_is_better=lower_is_better)
    ratio = n_active / n_passive
    sign = -1.0 if lower_is_better else 1.0
    # the margin: Active's mean at its last label count within the limit (factor x Passive's count) against
    # the target, in standard errors of the two means (positive: reached within the limit)
    within = active.index[active.index <= factor * n_passive + 1e-9]
    margin = None
    if len(within) and np.isfinite(n_passive):
        n_lim = float(within.max())
        se = float(np.hypot(_sem(active, n_lim, metric), _sem(passive, n_max, metric)))
        margin = z_margin(sign * (float(active.loc[n_lim, metric]) - target), se)
    first = float(passive.index.min())
    cannot = ""
    if n_passive == first:
        a0 = float(active.loc[active.index.min(), metric])
        cannot = (
            f"Passive is at its final {metric} ({target:.4f}) from its first label count ({first:g}), and "
            f"Active starts at {a0:.4f}: both are at the ceiling from the first batch, so the labels needed "
            "compare the two schedules' first points, not how fast either learns"
        )
    return _claim(
        cid,
        text,
        bool(ratio <= factor),
        {
            "metric": metric,
            "target (Passive at its last label count)": target,
            "labels Passive": n_passive,
            "labels Active": n_active,
            "ratio": ratio,
            "max ratio": factor,
            "at the limit": bool(ratio == factor),
        },
        margin_se=margin,
        cannot_decide=cannot,
    )


def _curves_or_none(df: pd.DataFrame) -> dict[str, pd.DataFrame] | None:
    curves = mean_curves(df)
    return curves if {"Active", "Passive"} <= set(curves) else None


def check_adult(df: pd.DataFrame) -> list[Claim]:
    curves = _curves_or_none(df)
    if curves is None:
        return []
    return [
        _dominance(
            "adult-ticks",
            "Adult: at 500, 750 and 2000 labels Active has higher accuracy and lower FDR than Passive",
            curves,
            TICKS["fdr-adult"],
            {"accuracy": "higher", "fdr": "lower"},
        ),
        _half(
            "adult-half",
            "Adult: Active reaches Passive's final FDR with about half the labels (ratio <= 0.6)",
            curves,
            "fdr",
            True,
            HALF_FACTOR,
        ),
    ]


def check_german(df: pd.DataFrame) -> list[Claim]:
    curves = _curves_or_none(df)
    if curves is None:
        return []
    return [
        _dominance(
            "german-ticks",
            "German: at 170, 270, 330, 450 and 600 labels Active has higher precision and recall",
            curves,
            TICKS["fdr-german"],
            {"precision": "higher", "recall": "higher"},
        ),
        _half(
            "german-half",
            "German: Active reaches Passive's final precision with about half the labels (ratio <= 0.6)",
            curves,
            "precision",
            False,
            HALF_FACTOR,
        ),
    ]


def check_halfcircle(df: pd.DataFrame) -> list[Claim]:
    curves = _curves_or_none(df)
    if curves is None:
        return []
    return [
        _half(
            "halfcircle-recall",
            "Half circle: Active reaches Passive's final recall with far fewer labels (ratio <= 0.5)",
            curves,
            "recall",
            False,
            0.5,
        ),
        _half(
            "halfcircle-precision",
            "Half circle: Active reaches Passive's final precision with far fewer labels (ratio <= 0.5)",
            curves,
            "precision",
            False,
            0.5,
        ),
    ]


FDR_CLAIM_SETS = {"fdr-adult": check_adult, "fdr-german": check_german, "fdr-halfcircle": check_halfcircle}


# -- claim metadata: the paper, its wording, the methods compared, the scale that decides (issue 17) --


#: Claim metadata by claim-set key, then claim id.
CLAIM_META: dict[str, dict[str, ClaimMeta]] = {
    "fdr-adult": {
        "adult-ticks": _m(
            BESIDE,
            "Adult: at 500, 750 and 2000 labels, active beats passive in both accuracy and FDR.",
            ("Active", "Passive"),
        ),
        "adult-half": _m(
            BESIDE,
            "Adult: active reaches a given FDR with about half the labels of passive.",
            ("Active", "Passive"),
        ),
    },
    "fdr-german": {
        "german-ticks": _m(
            BESIDE,
            "German: at 170, 270, 330, 450 and 600 labels, active has higher precision and recall.",
            ("Active", "Passive"),
        ),
        "german-half": _m(
            BESIDE, "German: about half the labels for a given precision.", ("Active", "Passive")
        ),
    },
    "fdr-halfcircle": {
        "halfcircle-recall": _m(
            BESIDE,
            "Half circle: active reaches a target recall with far fewer labels.",
            ("Active", "Passive"),
        ),
        "halfcircle-precision": _m(
            BESIDE,
            "Half circle: active reaches a target precision with far fewer labels.",
            ("Active", "Passive"),
        ),
    },
}

for _key, _fn in FDR_CLAIM_SETS.items():
    register_claims(_key, _fn, CLAIM_META[_key])
