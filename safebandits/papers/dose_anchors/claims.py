"""Claims of ``dose-anchors`` (issue 45, items 3 and 4), read on the runs of the solver ``dose-trials``
(one row per batch of trials; a scenario's figures pool its replicates, weighted by their trials).

Readings, fixed before any data of these scenarios existed (2026-11-29; the library's own nine curves of
``benchmarks/dose_anchors.py`` were in view, their numbers in ``docs/dose_anchors.md``):

* **comparable** (the BOIN package's description: BOIN "yields average performance comparable to the CRM
  ... in terms of selecting the MTD"): the mean over scenarios of BOIN's percentage of correct selection
  (PCS) is within 10 points of CRM's;
* **BOIN overdoses less** (the same text: "a substantially lower risk of assigning patients to ... overly
  toxic doses"): over the scenarios with a dose above the MTD, BOIN's mean patients per trial above the
  true MTD is below CRM's, paired by replicate (the same patients), the margin in standard errors of the
  paired differences;
* **no per-patient promise** (both papers promise none; the registered guarantee ``"none"``): BOIN and CRM
  each treat a patient above the true MTD in at least 5% of trials on every scenario with a dose above it;
* **certified keeps its promise** (the design's registered guarantee ``"round"``, ``delta = 0.05``): for
  each certified variant and scenario, the trials with a patient above the limit (the target) are at most
  5% + 3 binomial standard errors of the scenario's trials;
* **item-4 target** (issue 45, item 4; a library target, not a paper's claim): the certified design
  (declared step 0.2) selects the true MTD within 10 points of BOIN's PCS on every scenario, and treats
  fewer patients above the MTD than BOIN and than CRM on every scenario with a dose above it. Expected to
  fail (``docs/decisions/bounds.md``: the design cannot certify the MTD at trial sizes); the evidence
  gives the gap per scenario and how far the design escalated.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from safebandits.experiments.claim_base import Claim, z_margin
from safebandits.experiments.claim_base import claim as _claim
from safebandits.experiments.claims_meta import claim_meta as _m
from safebandits.experiments.papers import register_claims
from safebandits.papers.dose_anchors.experiments import BOIN, CERTIFIED, CRM, ORACLE

__all__ = ["check_dose_anchors", "scenario_table"]

#: Citation of the anchors' claims (the designs' papers; the wording read is the BOIN package's).
ANCHORS = "Liu & Yuan 2015 (BOIN); O'Quigley, Pepe & Fisher 1990 (CRM)"
#: Citation of the item-4 target.
ISSUE = "safebandits issue 45, item 4 (library target)"
#: Largest gap of mean PCS read as "comparable" (points).
COMPARABLE_GAP = 10.0
#: Share of trials with a patient above the MTD from which a design keeps no per-patient promise (%).
NO_PROMISE_PCT = 5.0
#: The claims of the set, in order.
CLAIM_IDS = (
    "anchors-comparable",
    "boin-overdoses-less",
    "anchors-no-promise",
    "certified-keeps-promise",
    "item4-target",
)
#: The certified design's delta (its default) and the item-4 PCS gap (points).
DELTA, ITEM4_GAP = 0.05, 10.0

_NUMERIC = (
    "trials", "n_correct", "pcs", "above_mtd", "trials_above", "above_limit", "trials_above_limit",
    "toxicities", "length", "highest", "mtd", "sweep.value",
)  # fmt: skip


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[df["status"] == "ok"].copy()
    for c in _NUMERIC:
        if c in ok:
            ok[c] = pd.to_numeric(ok[c], errors="coerce")
    return ok


def scenario_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per (panel, scenario, label): trials, PCS and the other means, pooled over replicates (weighted by
    each run's trials), and the number of doses."""
    ok = _ok(df)
    rows = []
    for (panel, value, label), g in ok.groupby(["panel", "sweep.value", "label"], sort=True):
        w = g["trials"].to_numpy(dtype=float)
        n = float(w.sum())
        doses = sum(1 for c in g.columns if c.startswith("selected_d") and g[c].notna().any())
        row = {"panel": panel, "scenario": int(value), "label": label, "trials": int(n), "doses": doses}
        for c in ("pcs", "above_mtd", "trials_above", "above_limit", "trials_above_limit", "toxicities",
                  "length", "highest", "mtd"):  # fmt: skip
            row[c] = float(np.dot(w, g[c].to_numpy(dtype=float)) / n)
        rows.append(row)
    return pd.DataFrame(rows)


def _runs(ok: pd.DataFrame, label: str) -> pd.DataFrame:
    return ok[ok["label"] == label]


def _comparable(tab: pd.DataFrame) -> Claim:
    text = f"BOIN's mean PCS over the scenarios is within {COMPARABLE_GAP:g} points of CRM's."
    by = tab.pivot_table(index=["panel", "scenario"], columns="label", values="pcs")
    if not {BOIN, CRM} <= set(by.columns):
        return _claim("anchors-comparable", text, False, {}, reason="BOIN or CRM has no runs")
    boin, crm = float(by[BOIN].mean()), float(by[CRM].mean())
    n = float(tab.loc[tab["label"] == BOIN, "trials"].sum())
    se = math.sqrt(2 * 0.25 / max(n, 1.0)) * 100.0  # (a bound on the SE of a difference of two mean PCS)
    gap = abs(boin - crm)
    evidence = {"boin_mean_pcs": boin, "crm_mean_pcs": crm, "gap": gap, "scenarios": len(by)}
    return _claim("anchors-comparable", text, gap <= COMPARABLE_GAP, evidence,
                  margin_se=z_margin(COMPARABLE_GAP - gap, se))  # fmt: skip


def _overdose_order(ok: pd.DataFrame) -> Claim:
    text = "BOIN treats fewer patients above the true MTD than CRM (paired by replicate, over the scenarios)."
    keys = ["panel", "sweep.value", "replicate"]
    a, b = _runs(ok, BOIN), _runs(ok, CRM)
    if a.empty or b.empty:
        return _claim("boin-overdoses-less", text, False, {}, reason="BOIN or CRM has no runs")
    pair = a.merge(b, on=keys, suffixes=("_boin", "_crm"))
    pair = pair[pair["mtd_boin"] < pair["doses_boin"]] if "doses_boin" in pair else pair
    d = (pair["above_mtd_crm"] - pair["above_mtd_boin"]).to_numpy(dtype=float)
    se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else None
    evidence = {
        "boin_above_mtd": float(pair["above_mtd_boin"].mean()),
        "crm_above_mtd": float(pair["above_mtd_crm"].mean()),
        "pairs": int(d.size),
    }
    return _claim("boin-overdoses-less", text, float(d.mean()) > 0, evidence,
                  margin_se=z_margin(float(d.mean()), se))  # fmt: skip


def _no_promise(tab: pd.DataFrame) -> Claim:
    text = (
        f"BOIN and CRM each treat a patient above the true MTD in at least {NO_PROMISE_PCT:g}% of trials on "
        "every scenario with a dose above it."
    )
    sub = tab[tab["label"].isin([BOIN, CRM]) & (tab["mtd"] < tab["doses"])]
    if sub.empty:
        return _claim("anchors-no-promise", text, False, {}, reason="BOIN or CRM has no runs")
    least = sub.loc[sub["trials_above"].idxmin()]
    p = NO_PROMISE_PCT / 100.0
    se = math.sqrt(p * (1 - p) / float(least["trials"])) * 100.0
    evidence = {
        "least_pct": float(least["trials_above"]),
        "at": f"{least['label']} {least['panel']}/{int(least['scenario'])}",
        "scenarios": int(sub[["panel", "scenario"]].drop_duplicates().shape[0]),
    }
    return _claim("anchors-no-promise", text, bool((sub["trials_above"] >= NO_PROMISE_PCT).all()), evidence,
                  margin_se=z_margin(float(least["trials_above"]) - NO_PROMISE_PCT, se))  # fmt: skip


def _keeps_promise(tab: pd.DataFrame) -> Claim:
    text = (
        "The certified design (step 0.2, and true steps) treats a patient above the limit in at most "
        f"{DELTA:g} of trials (+ 3 binomial SE) on every scenario."
    )
    sub = tab[tab["label"].isin([CERTIFIED, ORACLE])]
    if sub.empty:
        return _claim("certified-keeps-promise", text, False, {}, reason="the certified design has no runs")
    se = np.sqrt(DELTA * (1 - DELTA) / sub["trials"].to_numpy(dtype=float)) * 100.0
    slack = (100.0 * DELTA + 3 * se - sub["trials_above_limit"].to_numpy(dtype=float)) / se
    evidence = {
        "most_pct": float(sub["trials_above_limit"].max()),
        "patients_above_limit": float(sub["above_limit"].max()),
        "scenarios": int(sub[["panel", "scenario"]].drop_duplicates().shape[0]),
    }
    return _claim("certified-keeps-promise", text, bool((slack >= 0).all()), evidence,
                  margin_se=float(slack.min()))  # fmt: skip


def _item4(tab: pd.DataFrame) -> Claim:
    text = (
        f"The certified design (step 0.2) selects the true MTD within {ITEM4_GAP:g} points of BOIN on every "
        "scenario and treats fewer patients above the MTD than BOIN and CRM on every scenario with a dose "
        "above it."
    )
    by = tab.set_index(["panel", "scenario", "label"])
    need = {BOIN, CRM, CERTIFIED}
    if not need <= set(tab["label"]):
        return _claim("item4-target", text, False, {}, reason="a compared design has no runs")
    per, worst_gap, ok = {}, -math.inf, True
    for panel, scen in tab[["panel", "scenario"]].drop_duplicates().itertuples(index=False):
        b, c, x = (by.loc[(panel, scen, lbl)] for lbl in (BOIN, CRM, CERTIFIED))
        gap = float(b["pcs"] - x["pcs"])
        fewer = bool(x["above_mtd"] < min(b["above_mtd"], c["above_mtd"])) if x["mtd"] < x["doses"] else True
        ok = ok and gap <= ITEM4_GAP and fewer
        worst_gap = max(worst_gap, gap)
        per[f"{panel}/{scen}"] = {
            "pcs_boin": float(b["pcs"]), "pcs_certified": float(x["pcs"]), "gap": gap,
            "above_mtd_certified": float(x["above_mtd"]), "highest_dose_certified": float(x["highest"]),
        }  # fmt: skip
        if ORACLE in set(tab["label"]):
            per[f"{panel}/{scen}"]["pcs_true_steps"] = float(by.loc[(panel, scen, ORACLE)]["pcs"])
    n = float(tab.loc[tab["label"] == BOIN, "trials"].min())
    se = math.sqrt(2 * 0.25 / n) * 100.0
    evidence = {"largest_pcs_gap": worst_gap, "scenarios": per}
    return _claim("item4-target", text, ok, evidence, margin_se=z_margin(ITEM4_GAP - worst_gap, se))


def check_dose_anchors(df: pd.DataFrame) -> list[Claim]:
    """The five readings of the module docstring."""
    ok = _ok(df)
    tab = scenario_table(df)
    if not tab.empty:
        doses = tab.groupby(["panel", "scenario"])["doses"].max()
        tab["doses"] = [int(doses[(p, s)]) for p, s in zip(tab["panel"], tab["scenario"], strict=True)]
        ok["sv"] = ok["sweep.value"].astype(int)
        sizes = tab[["panel", "scenario", "doses"]].drop_duplicates().rename(columns={"scenario": "sv"})
        ok = ok.merge(sizes, on=["panel", "sv"], how="left")
    else:
        return [_claim(cid, "no runs", False, {}, reason="no runs") for cid in CLAIM_IDS]
    return [_comparable(tab), _overdose_order(ok), _no_promise(tab), _keeps_promise(tab), _item4(tab)]


_WORDING = (
    "BOIN package: 'average performance comparable to the CRM ... in terms of selecting the MTD, but a "
    "substantially lower risk of assigning patients to subtherapeutic or overly toxic doses'."
)
register_claims(
    "dose-anchors",
    check_dose_anchors,
    {
        "anchors-comparable": _m(ANCHORS, _WORDING, (BOIN, CRM)),
        "boin-overdoses-less": _m(ANCHORS, _WORDING, (BOIN, CRM)),
        "anchors-no-promise": _m(
            ANCHORS, "Neither paper promises anything per patient (registered guarantee 'none').", (BOIN, CRM)
        ),
        "certified-keeps-promise": _m(
            ISSUE,
            "dose-escalation's registered guarantee: no patient above the limit, w.p. 1 - delta.",
            (CERTIFIED, ORACLE),
        ),
        "item4-target": _m(
            ISSUE,
            "Issue 45 item 4: PCS within 10 points of BOIN's, fewer patients above the MTD than BOIN, CRM.",
            (BOIN, CRM, CERTIFIED),
            kind="diagnostic",
        ),
    },
)
