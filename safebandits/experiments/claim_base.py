"""The claim record every claim set returns, below the claim sets and their merger.

:mod:`safebandits.experiments.claims` dispatches to the claim sets the paper packages register
(``safebandits.papers.<paper>.claims``); the papers build their records with :func:`claim` from this
module, so that no paper imports the dispatcher.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["KNIFE_EDGE_SE", "Claim", "claim", "exact_median", "z_margin"]

Claim = dict[str, Any]

#: A pass or fail whose deciding margin is smaller than this many standard errors is flagged as a
#: knife-edge (issue 31): the verdict stands, and the reason says that noise of that size could flip it.
KNIFE_EDGE_SE = 2.0


def claim(
    cid: str,
    text: str,
    passed: bool,
    evidence: dict[str, Any],
    *,
    censored_only: bool = False,
    reason: str = "",
    budget_safe: Iterable[str] = (),
    budget_exact: Iterable[str] = (),
    margin_se: float | None = None,
    cannot_decide: str = "",
) -> Claim:
    """A claim record. ``verdict`` is "pass", "fail", or "inconclusive" when the claim fails only at
    points where runs hit the sample budget (so the stored medians are lower bounds). An inconclusive
    claim still has ``passed = False``: claims are never weakened.

    ``budget_safe``: the methods whose runs that hit the sample budget cannot turn this reading from
    pass to fail. Such a run's samples are a lower bound of what it would have used, so every median or
    mean of that method is a lower bound too; where the reading only ever asks those statistics to be
    large (a ratio's numerator, a method the claim's subject must beat), a pass on the lower bounds is a
    pass. :func:`~safebandits.experiments.claims_meta.finalise_claims` then keeps the pass, listing the
    budget hits; a budget hit of any other compared method still makes the verdict inconclusive.

    ``budget_exact``: the compared methods whose every statistic the reading uses is exact despite their
    budget hits (a median at a point where fewer than half of the method's runs hit the budget: those
    runs, not having stopped, would have needed more samples than every run that stopped, so they sit
    above the middle of the point's order; see ``exact_median``). Their budget hits leave the verdict,
    pass or fail, as it is.

    ``margin_se``: the reading's deciding margin in standard errors, signed so that a positive margin is on
    the pass side (e.g. ``(limit - value) / se``; the smallest over the points the reading requires). It is
    stored in the record and the evidence; :func:`~safebandits.experiments.claims_meta.finalise_claims`
    flags a pass or fail with ``|margin_se| <`` :data:`KNIFE_EDGE_SE` as a knife-edge.

    ``cannot_decide``: why the reading cannot decide on these runs (e.g. both methods at the ceiling of
    the metric); the verdict is then "inconclusive" with that reason, whatever ``passed`` says (the
    reading's own outcome is kept in the evidence as ``"reading_outcome"``)."""
    verdict = "pass" if passed else ("inconclusive" if censored_only else "fail")
    evidence = dict(evidence)
    if cannot_decide:
        evidence["reading_outcome"] = "pass" if passed else "fail"
        verdict, passed, reason = "inconclusive", False, cannot_decide
    if margin_se is not None and not np.isnan(margin_se):
        evidence["margin_se"] = float(margin_se)
    rec = {
        "id": cid,
        "claim": text,
        "passed": bool(passed),
        "verdict": verdict,
        "evidence": _plain(evidence),
    }
    if reason and verdict != "pass":
        rec["reason"] = reason
    if "margin_se" in evidence and np.isfinite(evidence["margin_se"]):
        rec["margin_se"] = evidence["margin_se"]  # (an infinite margin, no spread at all, is no knife-edge)
    safe = sorted({str(lbl) for lbl in budget_safe})
    if safe:
        rec["budget_safe"] = safe
    exact = sorted({str(lbl) for lbl in budget_exact})
    if exact:
        rec["budget_exact"] = exact
    return rec


def z_margin(diff: float, se: float | None) -> float | None:
    """``diff / se``: a margin in standard errors (``None`` when the error is unknown or both are 0;
    ``+-inf`` when only the error is 0).

    >>> z_margin(0.3, 0.1)
    3.0
    >>> z_margin(0.0, 0.0) is None
    True
    """
    if se is None or not np.isfinite(se) or not np.isfinite(diff):
        return None
    if se == 0:
        return None if diff == 0 else float(np.copysign(np.inf, diff))
    return float(diff / se)


def exact_median(samples: Any, stopped: Any) -> bool:
    """Whether the median of ``samples`` is exact although the runs with ``stopped`` False hit the sample
    budget (their stored samples are lower bounds).

    A run that hit the budget would have needed more samples than the budget, hence more than every run
    that stopped (a stopped run used at most the budget); in the true order those runs are the largest.
    So the stored median is exact when it equals the median with those runs set to ``+inf`` (finite: they
    are fewer than half, and none of them sits at the middle positions of the stored order either).

    >>> exact_median([5, 9, 7, 50], [True, True, True, False])
    True
    >>> exact_median([5, 50, 50], [True, False, False])
    False
    """
    x = np.asarray(samples, dtype=float)
    censored = ~np.asarray(stopped, dtype=bool)
    if not censored.any():
        return True
    top = np.where(censored, np.inf, x)
    return bool(np.isfinite(np.median(top)) and np.median(top) == np.median(x))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None if np.isnan(value) else str(value)
    return value
