"""A study's recommendation in words: which arm, why it is the learner's answer, anytime or final.

Read from :meth:`~safebandits.study.Study.summary` (the learner's recommendation record and its
``arm_estimates``), for the dashboard, ``safebandits study recommend`` and the JSON summary.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["estimate_arrays", "recommendation_words"]


def estimate_arrays(estimates: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(estimate, lower, upper)`` of a summary's ``arm_estimates`` (None -> nan / -+inf), or None."""
    if not isinstance(estimates, dict) or not estimates.get("quantities"):
        return None
    q = len(estimates["quantities"])
    try:
        arrays = [
            np.array(
                [[fill if v is None else v for v in row] for row in estimates[key]], dtype=float
            ).reshape(-1, q)
            for key, fill in (("estimate", np.nan), ("lower", -np.inf), ("upper", np.inf))
        ]
    except (KeyError, TypeError, ValueError):
        return None
    return arrays[0], arrays[1], arrays[2]


def _fmt(v: Any) -> str:
    return "?" if v is None else f"{float(v):.3g}"


def recommendation_words(summary: dict[str, Any], horizon: int | None = None) -> str:
    """The recommendation in words: which arm, why it is the learner's answer, and whether it is final.

    Reads a study's :meth:`~safebandits.study.Study.summary` (the learner's recommendation info, its
    ``arm_estimates``); ``horizon`` is a regret study's number of rounds.
    """
    rec = summary.get("recommendation") or {}
    arm, info = rec.get("arm"), rec.get("info") or {}
    estimates = summary.get("arm_estimates") if isinstance(summary.get("arm_estimates"), dict) else None
    unit = str((estimates or {}).get("unit") or "arm")
    regret = summary.get("task") == "regret"
    when = _when(summary, horizon, regret)
    if arm is None:
        what = (
            "No answer yet: no arm has been played."
            if regret
            else f"No answer yet: no {unit} is certified so far."
        )
        return f"{what} {when}"
    head = f"{'Final' if summary.get('done') else 'Anytime'} answer: {unit} {arm}."
    why = _why(summary, info, arm, unit, regret)
    parts = [head, why] if why else [head]
    estimated = _estimate_words(estimates, arm)
    if estimated:
        parts.append(estimated)
    parts.append(when)
    return " ".join(parts)


def _when(summary: dict[str, Any], horizon: int | None, regret: bool) -> str:
    """Whether the answer is final (the learner stopped, or the horizon is reached) or anytime."""
    n_samples, n_answered = summary.get("n_samples", 0), summary.get("n_answered", 0)
    if summary.get("done"):
        return (
            f"Final: the horizon of {horizon} answers is reached."
            if regret and horizon
            else f"Final: the learner stopped after {n_samples} samples; this is its answer."
        )
    if regret:
        left = f" of {horizon}" if horizon else ""
        return f"Anytime: {n_answered}{left} answers so far; the answer may still change."
    return f"Anytime: the learner has not stopped ({n_samples} samples so far); the answer may still change."


def _why(summary: dict[str, Any], info: dict[str, Any], arm: Any, unit: str, regret: bool) -> str:
    """Why ``arm`` is the learner's answer, read from its recommendation record ("" when it says nothing
    a sentence can)."""
    if regret and isinstance(info.get("plays"), dict):
        plays = info["plays"].get(str(arm), info["plays"].get(arm, 0))
        return (
            f"It is the {unit} played most often ({plays} of {summary.get('n_answered', 0)} answered "
            "rounds): a regret learner's answer is where it spends its rounds."
        )
    if "n_certified_feasible" in info:  # CBAI (ACOL, G-ACOL and their baselines)
        if info.get("certified"):
            return (
                f"It has the highest known reward ({_fmt(info.get('best_certified_reward'))}) among the "
                f"{info['n_certified_feasible']} arms certified feasible (each once its upper confidence "
                f"bound on the constraint was at most the threshold); {info.get('n_uncertain', '?')} arms "
                "are still uncertain."
            )
        return (
            "No arm is certified feasible yet: it is the arm with the lowest upper confidence bound on "
            f"the constraint (the authors' anytime rule); {info.get('n_uncertain', '?')} arms are "
            "uncertain."
        )
    if "n_final_set" in info:  # BESIDE
        if summary.get("done"):
            return (
                f"It is the best, by estimated reward, of the {info['n_final_set']} decisions left after "
                "the last round (those whose constraints are certified up to the tolerance epsilon)."
            )
        return (
            f"It has the smallest estimated optimality gap among the {info.get('n_certified', 0)} "
            f"decisions certified safe so far (round {info.get('rounds', '?')})."
        )
    if "n_safe" in info:  # elimination learners (RAGE, BESIDE practical, the baselines)
        n_ref = int(info.get("n_safe", 0)) + int(info.get("n_eps_safe", 0))
        if summary.get("done"):
            return (
                "It is the decision elimination kept: certified safe (or safe up to epsilon) and not "
                "beaten by another."
            )
        return (
            f"It has the largest estimated reward among the {n_ref} decisions certified safe or "
            f"safe up to epsilon ({info.get('n_active', '?')} still in play)."
        )
    return ""


def _estimate_words(estimates: dict[str, Any] | None, arm: Any) -> str:
    """``arm``'s estimates with their intervals and thresholds ("" when the summary has none)."""
    arrays = estimate_arrays(estimates)
    if arrays is None or not 0 <= int(arm) < arrays[0].shape[0]:
        return ""
    assert estimates is not None
    est, lower, upper = (a[int(arm)] for a in arrays)
    bits = []
    for j, name in enumerate(estimates["quantities"]):
        if not np.isfinite(est[j]):
            continue
        t = (estimates.get("thresholds") or [None] * len(est))[j]
        ci = f" [{lower[j]:.3g}, {upper[j]:.3g}]" if lower[j] != upper[j] else ""
        bits.append(f"{name} {est[j]:.3g}{ci}" + (f" (threshold {t:g})" if t is not None else ""))
    return f"Its estimates: {'; '.join(bits)}." if bits else ""
