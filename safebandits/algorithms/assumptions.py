"""What each learner's guarantee rests on: the assumptions a learner states when it registers.

A learner names its assumptions on its registration line, beside its guarantee
(``register_algorithm("opb", ..., guarantee="expectation", assumptions=("means-at-most-1", "noise",
"safe-action"))``): the keys of :data:`ASSUMPTIONS` (or free text, for a plugin's own).
:func:`~safebandits.algorithms.compatibility.assumption_statement` states them for a problem, with the
declared values they rest on; ``safebandits run FILE.toml``, ``safebandits learners --for FILE.toml`` and
the report print them beside each guarantee.

The checks that stand behind the words: a declaration whose bounds break an assumption is refused at
start-up (:func:`check_unit_means`, OPB and the stage-wise learners on ``mean_bound > 1``); a ``[truth]``
outside the declared bounds is refused before anything runs
(:meth:`~safebandits.problems.declare.Problem.truth_violations`); data that contradict a declared bound
during a run raise an "assumption contradicted" flag (:mod:`safebandits.experiments.watch`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from safebandits.exceptions import CannotStartError

__all__ = ["ASSUMPTIONS", "MEANS_AT_MOST", "check_unit_means"]

#: Assumption keys and their wording (what the guarantee rests on).
ASSUMPTIONS: dict[str, str] = {
    "means-at-most-1": "reward and cost means at most 1, the paper's [0, 1]",
    "outcomes-in-unit": "observed rewards and costs in [0, 1]",
    "noise": "R-sub-Gaussian noise",
    "param-norm": "||theta||, ||mu_i|| <= S",
    "linear": "reward and costs linear in the features",
    "function-class": "true reward and cost functions in the declared classes",
    "rkhs": "RKHS norms of reward and constraint at most B and G",
    "safe-action": "a known safe action below the threshold",
    "slater": "safe action's margin tau - c0 at least the Slater constant",
    "mean-bound": "|means| <= mean_bound",
    "max-increase": "toxicity rises by at most the declared max_increase per dose step",
    "monotone-cost": "toxicity non-decreasing in the dose (where monotone_cost = true)",
    "nonnegative-means": "arm means in [0, mean_bound] (the lower bounds are clipped at 0)",
    "default-arm": "a default arm, its mean known or estimated from its own pulls",
    "baseline-policy": "a baseline action per context, its mean reward known and non-negative",
    "baseline-unknown": "a baseline action per context, its mean reward non-negative (estimated, not told)",
    "baseline-floor": "the baseline action's mean reward at least baseline_floor in every context",
}

#: The largest mean the ``"means-at-most-1"`` learners accept.
MEANS_AT_MOST = 1.0


def _fmt(values: Any) -> str:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    return ", ".join(f"{v:.4g}" for v in arr)


def check_unit_means(owner: str, info: Any, consequence: str = "its guarantee does not apply") -> None:
    """Refuse (:class:`~safebandits.exceptions.CannotStartError`) a problem whose declared means may exceed 1.

    ``info.mean_bound`` is the declared bound on the means (``None``: not declared, the paper's ``[0, 1]``
    taken on trust, e.g. the paper instances). The fix is stated in the problem's units: divide every
    reward and cost by ``mean_bound`` -- the threshold, the safe arm's known values and the noise bound
    with them; the constraints and the best action or policy are unchanged, the regret is counted in units
    of ``mean_bound``.
    """
    bound = getattr(info, "mean_bound", None)
    if bound is None or not math.isfinite(float(bound)) or float(bound) <= MEANS_AT_MOST:
        return
    s = float(bound)
    tau = np.asarray(info.threshold, dtype=float)
    parts = [f"threshold {_fmt(tau)} becomes {_fmt(tau / s)}"]
    if getattr(info, "safe_cost", None) is not None:
        parts.append(f"safe_cost {_fmt(info.safe_cost)} becomes {_fmt(np.asarray(info.safe_cost) / s)}")
    if getattr(info, "safe_reward", None) is not None:
        parts.append(f"safe_reward {_fmt(info.safe_reward)} becomes {_fmt(float(info.safe_reward) / s)}")
    if getattr(info, "action_set", "simplex") != "simplex":  # (the K-armed view's S is derived)
        pnb = float(info.param_norm_bound)
        parts.append(f"param_norm_bound {pnb:.4g} becomes {pnb / s:.4g}")
    r = getattr(info, "noise_bound", None)
    if r is not None and getattr(info, "noise_kind", "gaussian") not in ("bernoulli", "binary"):
        parts.append(f"the noise bound (sigma) {_fmt(r)} becomes {_fmt(float(r) / s)}")
    parts.append(f"mean_bound becomes 1 (and, in [truth], the reward and cost values or parameters / {s:g})")
    reason = (
        f"its analysis assumes reward and cost means at most 1 (the paper's means in [0, 1]), and this "
        f"problem declares means up to mean_bound = {s:g}; run as is, {consequence}"
    )
    text = (
        f"divide every reward and cost by {s:g} (mean_bound {s:g}): {'; '.join(parts)}. The constraints "
        f"and the best action or policy are unchanged; regret is then counted in units of {s:g}"
    )
    # (a note, not a Fix: rescaling the data is the user's to do; tools that apply fixes leave it)
    raise CannotStartError.build(owner, reason, notes=[text])
