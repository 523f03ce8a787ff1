"""What each claim compares, which scale can decide it, and how the paper words it (issue 17).

Every claim record a claim set returns passes through :func:`finalise_claims`, which gives it one of
four verdicts:

``"pass"`` / ``"fail"``
    The reading, evaluated on runs that all finished and stopped, at a scale that can decide it.
``"inconclusive"``
    This scale or budget cannot decide the claim, with the reason in ``"reason"``: the claim is decided
    only at the paper scale and the runs are quick-scale ones; or some runs of a compared method failed
    or hit the sample budget (they are counted in the evidence under ``"runs_not_counted"``, never
    dropped silently); or the claim set itself reported that only censored points decide it. A pass
    stands despite budget hits only of the methods the claim set names ``budget_safe``: methods whose
    censored samples (lower bounds) can only strengthen the reading (:func:`claim_base.claim
    <safebandits.experiments.claim_base.claim>`); the hits are still listed in the reason. A verdict,
    pass or fail, stands despite budget hits of the methods the claim set names ``budget_exact``: those
    whose every median the reading uses is exact (fewer than half of the point's runs hit the budget;
    :func:`~safebandits.experiments.claim_base.exact_median`).
A pass or fail whose deciding margin (``"margin_se"``, set by the claim set) is below
:data:`~safebandits.experiments.claim_base.KNIFE_EDGE_SE` standard errors keeps its verdict and is
flagged ``"knife_edge"``, with the margin in the reason (issue 31).

``"not run"``
    A method the claim compares is absent from the runs (e.g. ``run stagewise-cyclic --algorithm
    LC-LUCB``: Safe-LTS was never run), or the claim set produced no record at all.

The record also carries ``"wording"`` (the paper's sentence or the digest's section-5 item it reads),
``"paper"``, ``"scale_decides"`` (``"any"`` or ``"paper"``) and ``"raw_verdict"`` (what the reading gave
on the runs present, before the scale and run-status rules), so the scoreboard shows both.

The papers' content (each claim set's :class:`ClaimMeta`, the citations, the section-5 claims no
experiment evaluates) lives in the paper packages, which register it
(:mod:`safebandits.experiments.papers`); this module holds the verdict machinery.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from safebandits.experiments.claim_base import KNIFE_EDGE_SE
from safebandits.experiments.claims_coverage import unevaluated_items
from safebandits.experiments.paper_records import CLAIM_META, QUICK_WHY, UNEVALUATED_STATUS, ClaimMeta
from safebandits.experiments.papers import load_claims

__all__ = [
    "CLAIM_META",
    "CONSOLE_LEGEND",
    "LEGEND",
    "UNEVALUATED_STATUS",
    "VERDICTS",
    "ClaimMeta",
    "claim_meta",
    "claim_metadata",
    "finalise_claims",
]

VERDICTS = ("pass", "fail", "inconclusive", "not run")

#: What the scoreboard's verdicts and markers mean (printed under the verdicts of ``safebandits report``
#: and on the scoreboard page).
LEGEND = (
    "Legend: PASS / FAIL as the paper words the claim (a theorem is read as its bound with its constants); "
    "INCONCLUSIVE = this scale or budget cannot decide (reason given); NOT RUN = a compared method is "
    "absent. (diagnostic) = a shape the library derives from a statement (e.g. a slope) or a reading shown "
    "next to the deciding one: never the paper's verdict. The quick scale is a smoke test; the paper scale "
    "decides. Robustness (paper scale): robust = the same verdict across 2 seed sets and every declared "
    "range of an unstated setting; depends on <setting> = the verdict changes across its declared range "
    "(verdict at each value); fragile = deciding margin under 1 standard error, or a flip across seed sets; "
    "untested = not yet scored across seed sets or ranges (what is missing is listed); knife-edge (in the "
    "reason) = margin under 2 standard errors. Reading fixed: before = the reading (code, thresholds, "
    "panels; fingerprinted) was fixed before its data; post-hoc = fixed after its data or with data of "
    "this seed in view, until a confirmatory run with a new seed; confirmatory = scored on such fresh data."
)


#: The legend ``safebandits report`` prints under its summary lines (the page holds :data:`LEGEND`).
CONSOLE_LEGEND = (
    "Legend: PASS / FAIL as the paper words the claim; INCONCLUSIVE = this scale or budget cannot decide;\n"
    "NOT RUN = a compared method is absent; diagnostics are the library's shapes, not the papers' verdicts.\n"
    "The quick scale is a smoke test; the paper scale decides. The page gives every verdict, its reason\n"
    "and the full legend; `safebandits scoreboard` adds robustness markers and when each reading was fixed."
)


def claim_metadata() -> dict[str, dict[str, ClaimMeta]]:
    """Every registered claim set's metadata (the papers' claims modules loaded first)."""
    load_claims()
    return CLAIM_META


def claim_meta(
    paper: str,
    wording: str,
    methods: tuple[str, ...] | None = None,
    scale: str = "paper",
    why: str = "",
    kind: str = "paper",
) -> ClaimMeta:
    """A :class:`ClaimMeta` (``why`` empty: the quick scale's usual reason); the papers' shorthand."""
    return ClaimMeta(paper, wording, methods, scale, why or QUICK_WHY, kind)


def _run_status(df: pd.DataFrame) -> tuple[dict[str, int], dict[str, int]]:
    """Failed runs and ok runs that hit the sample budget, by label."""
    failed = df[df["status"] != "ok"].groupby("label").size()
    ok = df[df["status"] == "ok"]
    if "stopped" in ok:
        stopped = ok["stopped"].map(lambda v: True if v is None or pd.isna(v) else bool(v))
        budget = ok[~stopped.astype(bool)].groupby("label").size()
    else:
        budget = pd.Series(dtype=int)
    return {str(k): int(v) for k, v in failed.items()}, {str(k): int(v) for k, v in budget.items()}


def _scale_of(df: pd.DataFrame) -> str:
    scales = sorted({str(s) for s in df["scale"].dropna()}) if "scale" in df else []
    return scales[0] if len(scales) == 1 else ("mixed" if scales else "unknown")


def finalise_claims(claims: list[dict[str, Any]], df: pd.DataFrame, key: str) -> list[dict[str, Any]]:
    """Give every claim of set ``key`` its verdict (module docstring) and its metadata.

    ``df`` holds all runs of the experiment at one scale, failed ones included. Claims listed in
    :data:`CLAIM_META` that the set did not return are added as "not run".
    """
    meta = claim_metadata().get(key, {})
    labels = {str(v) for v in df["label"].dropna()} if "label" in df else set()
    failed, budget = _run_status(df)
    scale = _scale_of(df)
    seen = {c.get("id") for c in claims}
    records = list(claims) + [
        {"id": cid, "claim": m.wording, "passed": False, "verdict": "not run", "evidence": {}}
        for cid, m in meta.items()
        if cid not in seen
    ]
    out = []
    for rec in records:
        m = meta.get(rec.get("id", ""))
        rec = dict(rec)
        raw = rec.get("verdict", "pass" if rec.get("passed") else "fail")
        rec["raw_verdict"] = raw
        rec.setdefault("reading", rec.get("claim", ""))
        methods = m.methods if m and m.methods is not None else tuple(sorted(labels))
        absent = [lbl for lbl in methods if lbl not in labels]
        n_failed = {lbl: failed[lbl] for lbl in methods if lbl in failed}
        n_budget = {lbl: budget[lbl] for lbl in methods if lbl in budget}
        evidence = dict(rec.get("evidence") or {})
        if n_failed or n_budget:
            evidence["runs_not_counted"] = {"failed": n_failed, "hit_budget": n_budget}
        rec["evidence"] = evidence
        reasons = []
        if raw == "not run" or absent:
            verdict = "not run"
            reasons.append(
                f"method(s) {absent} absent from the runs"
                if absent
                else str(rec.get("reason") or "the claim set produced no record")
            )
        else:
            verdict = raw
            decides = m.scale if m is not None else "paper"  # a claim without metadata: the paper scale
            if decides == "paper" and scale == "quick":
                verdict = "inconclusive"
                why = m.why_paper if m is not None else QUICK_WHY
                reasons.append(f"only the paper scale decides it ({why}; reads {raw} here)")
            if n_failed:
                verdict = "inconclusive"
                reasons.append(f"{sum(n_failed.values())} run(s) failed: {n_failed}")
            if n_budget:
                safe = set(rec.get("budget_safe") or ())
                exact = set(rec.get("budget_exact") or ())
                unresolved = set(n_budget) - exact
                hits = f"{sum(n_budget.values())} run(s) hit the sample budget: {n_budget}"
                if not unresolved:
                    reasons.append(
                        f"{hits}; none reaches a median the reading uses (at every point it uses, fewer "
                        "than half of a method's runs hit the budget, and they would have needed more "
                        "samples than every run that stopped), so the medians are exact and the verdict "
                        "stands"
                    )
                elif raw == "pass" and unresolved <= safe:
                    reason = (
                        f"{hits}; their samples are lower bounds, which can only strengthen this reading "
                        "(a pass on them is a pass)"
                    )
                    resolved = exact & set(n_budget)
                    if resolved:
                        reason += f"; the medians of {sorted(resolved)} are exact"
                    reasons.append(reason)
                else:
                    verdict = "inconclusive"
                    reasons.append(hits)
            if raw == "inconclusive":
                reasons.append(
                    str(rec.get("reason") or "the claim set reports that censored points decide it")
                )
        margin = rec.get("margin_se")
        if verdict in ("pass", "fail") and margin is not None and abs(margin) < KNIFE_EDGE_SE:
            rec["knife_edge"] = True
            reasons.append(
                f"knife-edge {verdict}: the deciding margin is {margin:+.2f} standard errors (|margin| < "
                f"{KNIFE_EDGE_SE:g}); noise of that size could flip it"
            )
        rec["verdict"] = verdict
        rec["passed"] = verdict == "pass"
        rec["reason"] = "; ".join(reasons)
        rec["scale"] = scale if "scale" not in rec else rec["scale"]
        rec["scale_decides"] = m.scale if m else "paper"
        rec["paper"] = m.paper if m else ""
        rec["wording"] = m.wording if m else ""
        rec["kind"] = m.kind if m else "paper"
        out.append(rec)
    return out


def __getattr__(name: str) -> Any:
    # ``UNEVALUATED``, the module-level table of before issue 19, kept importable: the section-5 claims
    # no experiment evaluates, as the paper packages register them (``claims_coverage.unevaluated_items``).
    if name == "UNEVALUATED":
        return unevaluated_items()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
