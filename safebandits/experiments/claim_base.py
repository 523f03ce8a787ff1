"""The claim record every claim set returns, below the claim sets and their merger.

:mod:`safebandits.experiments.claims` dispatches to the claim sets the paper packages register
(``safebandits.papers.<paper>.claims``); the papers build their records with :func:`claim` from this
module, so that no paper imports the dispatcher.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Claim", "claim"]

Claim = dict[str, Any]


def claim(
    cid: str,
    text: str,
    passed: bool,
    evidence: dict[str, Any],
    *,
    censored_only: bool = False,
    reason: str = "",
) -> Claim:
    """A claim record. ``verdict`` is "pass", "fail", or "inconclusive" when the claim fails only at
    points where runs hit the sample budget (so the stored medians are lower bounds). An inconclusive
    claim still has ``passed = False``: claims are never weakened."""
    verdict = "pass" if passed else ("inconclusive" if censored_only else "fail")
    rec = {
        "id": cid,
        "claim": text,
        "passed": bool(passed),
        "verdict": verdict,
        "evidence": _plain(evidence),
    }
    if reason and verdict != "pass":
        rec["reason"] = reason
    return rec


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
