"""The claims dispatcher: the claim set an experiment names, run on its runs, with final verdicts.

Every check takes the runs DataFrame of one experiment (``ResultsStore.to_frame()``, any scale) and
returns ``{"claim": str, "passed": bool, "verdict": str, "evidence": {...}}`` (plus ``"id"``). A claim is
evaluated on the sweep points present; the evidence lists them. Runs that reached the budget count with
the samples they had used, so medians and means are then *lower bounds* of the uncensored ones; the
evidence reports how many runs hit the budget. A failing claim is reported as failing, never
weakened. :func:`check_claims` then gives every record its final verdict (pass / fail / inconclusive /
not run), the reason and the paper's wording (:mod:`safebandits.experiments.claims_meta`).

The claim sets themselves belong to the paper packages (``safebandits.papers.<paper>.claims``), which
register them with :func:`safebandits.experiments.papers.register_claims`; the engine names no paper.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from safebandits.experiments.claim_base import Claim
from safebandits.experiments.papers import claim_sets

__all__ = ["check_claims", "claim_sets"]


def _all_claim_sets() -> dict[str, Callable[[pd.DataFrame], list[Claim]]]:
    """Every registered claim set by ``ExperimentSpec.claims`` key."""
    return claim_sets()


def check_claims(df: pd.DataFrame, key: str) -> list[Claim]:
    """Run the claim set ``key`` on the runs of one experiment (``[]`` for an unknown or empty key).

    Each record gets its final verdict ("pass", "fail", "inconclusive", "not run"), the reason and the
    paper's wording from :func:`safebandits.experiments.claims_meta.finalise_claims`."""
    from safebandits.experiments.claims_meta import finalise_claims

    fn = claim_sets().get(key)
    if fn is None or df.empty:
        return []
    return finalise_claims(fn(df), df, key)
