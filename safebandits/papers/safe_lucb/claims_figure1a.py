"""Figure 1a of Safe-LUCB read on a panel of draws (issue 42): the order ``T_Delta <= GSLUCB < T_0`` and
GSLUCB's closeness to ``T_Delta``, with their margins; the margin panel decides, the unconditioned panel's
reading on every draw is shown beside it. Used by :mod:`safebandits.papers.safe_lucb.claims`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import z_margin

__all__ = ["ALL_DRAWS_KEY", "CONDITIONED_PANEL", "DECIDING_PANEL", "MAIN_PANEL", "figure_premise"]

T_DELTA, T_ZERO, GSLUCB = "Safe-LUCB (T'=T_Delta)", "Safe-LUCB (T'=T_0)", "GSLUCB"
#: Panels of ``safelucb-karm``: the paper's unconditioned draw and the conditioned (margin) panel.
MAIN_PANEL, CONDITIONED_PANEL = "karm-random", "karm"
#: The panel that decides Figure 1a's order and closeness (issue 42): the margin panel, whose generator
#: was fixed before its data; the unconditioned panel's reading on every draw is shown beside it.
DECIDING_PANEL = CONDITIONED_PANEL
CONDITIONED_KEY = "margin panel (conditioned draws)"
ALL_DRAWS_KEY = "all draws of the unconditioned panel (shown beside, not read)"
_ORDER_TEXT = (
    "Margin panel: final per-step regret averaged over its draws, Safe-LUCB(T_Delta) <= GSLUCB < "
    "Safe-LUCB(T_0); the fraction of draws in which the order holds is reported, and the same reading on "
    "every draw of the unconditioned panel beside it."
)
_ORDER_ALL_TEXT = (
    "Shown beside karm-order (not its verdict): the same order on every draw of the unconditioned panel, "
    "no draw dropped."
)
_CLOSE_TEXT = (
    "Margin panel: GSLUCB's final per-step regret averaged over its draws is closer to "
    "Safe-LUCB(T_Delta)'s than to Safe-LUCB(T_0)'s; the fraction of draws in which it is closer is "
    "reported, and the same reading on every draw of the unconditioned panel beside it."
)
_CLOSE_ALL_TEXT = (
    "Shown beside karm-gslucb-close (not its verdict): the same closeness on every draw of the "
    "unconditioned panel, no draw dropped."
)


def _mean_per_step(ok: pd.DataFrame) -> dict[str, float]:
    return {str(k): float(v) for k, v in ok.groupby("label")["per_step"].mean().items()}


def _per_draw(ok: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` of every method, one row per draw (replicate) of the panel."""
    return ok.pivot_table(index="replicate", columns="label", values=column, aggfunc="first")


def _se(x: pd.Series) -> float | None:
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else None


def _figure1a(panel: pd.DataFrame) -> dict[str, Any]:
    """Figure 1a's two readings on the draws of one panel: the order ``T_Delta <= GSLUCB < T_0`` of the
    mean final per-step regret and GSLUCB closer to ``T_Delta`` than to ``T_0``, with their margins in
    standard errors of the paired per-draw differences (issue 31) and the fractions of draws."""
    means = _mean_per_step(panel)
    have = all(lbl in means for lbl in (T_DELTA, T_ZERO, GSLUCB))
    rd, rg, r0 = (means.get(lbl, math.nan) for lbl in (T_DELTA, GSLUCB, T_ZERO))
    out: dict[str, Any] = {"have": have, "means": means, "draws": 0, "se": {}}
    out.update(order=False, close=False, margin_order=None, margin_close=None)
    out.update(frac_order=math.nan, frac_close=math.nan, rd=rd, rg=rg, r0=r0)
    if not have:
        return out
    wide = _per_draw(panel, "per_step").dropna(subset=[T_DELTA, GSLUCB, T_ZERO])
    ordered = (wide[T_DELTA] <= wide[GSLUCB]) & (wide[GSLUCB] < wide[T_ZERO])
    closer = (wide[GSLUCB] - wide[T_DELTA]).abs() < (wide[T_ZERO] - wide[GSLUCB]).abs()
    se = {"se_gslucb_minus_tdelta": _se(wide[GSLUCB] - wide[T_DELTA]),
          "se_t0_minus_gslucb": _se(wide[T_ZERO] - wide[GSLUCB])}  # fmt: skip
    m1 = z_margin(rg - rd, se["se_gslucb_minus_tdelta"])
    m2 = z_margin(r0 - rg, se["se_t0_minus_gslucb"])
    out.update(
        draws=len(wide),
        se=se,
        order=bool(rd <= rg < r0),
        close=bool(abs(rg - rd) < abs(r0 - rg)),
        frac_order=float(ordered.mean()) if len(wide) else math.nan,
        frac_close=float(closer.mean()) if len(wide) else math.nan,
        margin_order=min(m1, m2) if m1 is not None and m2 is not None else None,
        margin_close=z_margin(
            abs(r0 - rg) - abs(rg - rd),
            _se(
                np.sign(r0 - rg) * (wide[T_ZERO] - wide[GSLUCB])
                - np.sign(rg - rd) * (wide[GSLUCB] - wide[T_DELTA])
            ),
        ),
    )
    return out


def _figure1a_summary(r: dict[str, Any], claim: str) -> dict[str, Any]:
    """The numbers of one panel's Figure 1a reading, as shown beside the other panel's."""
    if not r["have"]:
        return {}
    common = {"mean_final_per_step_regret": r["means"], "draws": r["draws"]}
    if claim == "order":
        return {**common, "order_holds": r["order"], "margin_se": r["margin_order"],
                "fraction_of_draws_ordered": r["frac_order"]}  # fmt: skip
    return {**common, "closer_to_tdelta": r["close"], "margin_se": r["margin_close"],
            "fraction_of_draws_closer_to_tdelta": r["frac_close"]}  # fmt: skip


def figure_premise(main: pd.DataFrame) -> pd.DataFrame:
    """Per draw (replicate) of a panel: ``T_Delta``, ``T_0``, ``T`` and whether ``T_Delta <= T_0 < T``
    (``holds``). Issue 31 read Figure 1a only on the draws where this held; the paper states no such
    premise, and issue 42 removed the filter (it could move a verdict one way only and was adopted after
    its data). The counts are kept in the evidence of the all-draws reading as a description of the draws.
    A draw's ``T_Delta`` and ``T_0`` are read from the run of Safe-LUCB(T_Delta) (GSLUCB stores
    ``T_Delta = inf``); empty when no such run stores them."""
    cols = ("diag.T_Delta", "diag.T0")
    if any(c not in main for c in cols) or main.empty:
        return pd.DataFrame(columns=["T_Delta", "T0", "T", "holds"])
    have = main[main["label"] == T_DELTA].dropna(subset=list(cols))
    per = have.groupby("replicate").agg(
        T_Delta=("diag.T_Delta", "first"), T0=("diag.T0", "first"), T=("samples", "max")
    )
    per["holds"] = (per["T_Delta"] <= per["T0"]) & (per["T0"] < per["T"])
    return per


def _draws_evidence(premise: pd.DataFrame) -> dict[str, Any]:
    """How many draws have ``T_Delta > T_0`` or ``T_0 >= T`` (described, never used to drop draws)."""
    if premise.empty:
        return {}
    return {
        "draws_T_Delta_above_T0": int((premise["T_Delta"] > premise["T0"]).sum()),
        "draws_T0_at_or_above_T": int((premise["T0"] >= premise["T"]).sum()),
    }
