"""The assumption watcher: data that contradict a bound the problem declares raise a visible flag.

A learner's guarantee rests on what the problem declares (:mod:`safebandits.algorithms.assumptions`): the
range of the means, the norm bounds, the RKHS bounds. The data of a run can contradict a declared bound:

* a learner's confidence interval lies **wholly beyond** the bound, e.g. the interval of an arm's cost
  mean is ``[1.31, 1.52]`` while ``mean_bound = 1`` (with the learner's own confidence ``1 - delta``,
  the truth breaks the bound) -- :func:`interval_flags`, on the learner's ``arm_estimates()``; for a
  learner that exposes its confidence ellipsoid (Safe-LUCB, GSLUCB), an ellipsoid wholly outside the ball
  ``||mu|| <= param_norm_bound`` -- :func:`norm_flags`;
* a bounded outcome outside its declared range (a Bernoulli outcome of 0.5, a binary one of 2) is not
  flagged but refused where it enters, by the observation check every learner applies
  (:mod:`safebandits.algorithms._observation`; a study's ``tell`` stores nothing): never silent;
* a simulated ``[truth]`` outside the declared bounds, run on purpose (``truth_outside_bounds = "flag"``
  in an experiment file): flagged at round 0;
* a learner that checks a declared structure against its own intervals says where they contradict it
  (``learner.assumption_contradictions()``, a list of sentences; the dose-escalation learner: a rise
  between two doses above the declared ``max_increase``, a fall where toxicity is declared monotone).

A flag is a :class:`Flag` (the round and what was contradicted). Runs keep the first one in the column
:data:`FLAG_COLUMN` (``safebandits results`` counts them, the report lists them) and in the run's
``assumption`` trace; a study's status carries it (the dashboard and the JSON API show it).

Cost: the watcher reads the learner's estimates once per block of the regret loop (every 4096 rounds;
an identification run: once, at its end), only for problems built from a declaration (the paper
instances are never watched), and never changes a learner's state: results are unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "FLAG_COLUMN",
    "Flag",
    "Watcher",
    "interval_flags",
    "learner_flags",
    "norm_flags",
]

#: The results column holding a run's first "assumption contradicted" flag (absent: none raised).
FLAG_COLUMN = "assumption_contradicted"

#: Relative slack of the comparisons (a bound met to rounding is not contradicted).
SLACK = 1e-9


@dataclass(frozen=True, slots=True)
class Flag:
    """An "assumption contradicted" flag: the round it was raised at (0: before the first round) and what
    was contradicted, in words."""

    round: int
    what: str

    def text(self) -> str:
        return f"round {self.round}: {self.what}"

    def to_dict(self) -> dict[str, Any]:
        return {"round": int(self.round), "what": self.what, "text": self.text()}


def _num(info: Any, name: str) -> float | None:
    value = getattr(info, name, None)
    try:
        value = None if value is None else float(value)
    except (TypeError, ValueError):
        return None
    return value if value is not None and math.isfinite(value) else None


def _bound_of(quantity: str, info: Any) -> tuple[float, str] | None:
    """The declared bound on ``|quantity|`` and its name (``None``: none declared)."""
    q = quantity.lower()
    if q.startswith("reward f"):
        b = _num(info, "reward_bound")
        return None if b is None else (b, "reward_bound B")
    if q.startswith("constraint g"):
        b = _num(info, "constraint_bound")
        return None if b is None else (b, "constraint_bound G")
    if q.startswith("loss"):  # (Safe-LUCB: |x^T mu| <= S L)
        s, big_l = _num(info, "param_norm_bound"), _num(info, "arm_norm_bound")
        return None if s is None or big_l is None else (s * big_l, "param_norm_bound x arm_norm_bound")
    if q.startswith(("reward", "cost", "constraint")):  # (a mean: z^T mu, phi^T x, ...)
        b = _num(info, "mean_bound")
        return None if b is None else (b, "mean_bound")
    return None


def interval_flags(estimates: Any, info: Any, round_: int) -> list[Flag]:
    """Flags of the intervals of ``estimates`` (an :class:`~safebandits.records.ArmEstimates`) lying wholly
    beyond the bound ``info`` declares for their quantity (one flag per quantity: its first such arm)."""
    if estimates is None:
        return []
    out = []
    for j, name in enumerate(estimates.quantities):
        found = _bound_of(name, info)
        if found is None:
            continue
        bound, label = found
        tol = SLACK * max(1.0, bound)
        lower, upper = estimates.lower[:, j], estimates.upper[:, j]
        above = np.flatnonzero(np.isfinite(lower) & (lower > bound + tol))
        below = np.flatnonzero(np.isfinite(upper) & (upper < -bound - tol))
        for rows, side in ((above, "above"), (below, "below")):
            if rows.size:
                a = int(rows[0])
                edge = bound if side == "above" else -bound
                out.append(
                    Flag(
                        round_,
                        f"the confidence interval of {estimates.unit} {a}'s {name}, [{lower[a]:.4g}, "
                        f"{upper[a]:.4g}], lies wholly {side} {edge:g} (the declared {label} = {bound:g})",
                    )
                )
                break
    return out


def norm_flags(confidence_set: Any, info: Any, round_: int) -> list[Flag]:
    """A flag if the confidence ellipsoid ``{mu : ||mu - theta||_A <= beta}`` (``confidence_set``: a mapping
    with ``theta``, ``a_inv``, ``beta``) lies wholly outside the ball ``||mu|| <= param_norm_bound``:
    ``||theta|| - beta sqrt(lambda_max(A^-1)) > S``."""
    s = _num(info, "param_norm_bound")
    if s is None or not isinstance(confidence_set, dict):
        return []
    try:
        theta = np.asarray(confidence_set["theta"], dtype=np.float64)
        a_inv = np.asarray(confidence_set["a_inv"], dtype=np.float64)
        beta = float(confidence_set["beta"])
    except (KeyError, TypeError, ValueError):
        return []
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(a_inv)) and math.isfinite(beta)):
        return []
    radius = beta * math.sqrt(max(float(np.linalg.eigvalsh(a_inv).max()), 0.0))
    nearest = float(np.linalg.norm(theta)) - radius
    if nearest <= s * (1 + SLACK):
        return []
    return [
        Flag(
            round_,
            f"the confidence set of the parameter lies wholly outside ||mu|| <= {s:g} (the declared "
            f"param_norm_bound): its nearest point has norm {nearest:.4g}",
        )
    ]


def learner_flags(learner: Any, info: Any, round_: int) -> list[Flag]:
    """The flags of ``learner``'s current confidence intervals (``arm_estimates()``) and confidence set
    (``estimated_safe_set()``, where it has one) against the bounds ``info`` declares. Reads only: the
    learner's state is unchanged."""
    flags: list[Flag] = []
    method = getattr(learner, "arm_estimates", None)
    if callable(method):
        try:
            flags += interval_flags(method(), info, round_)
        except (ValueError, TypeError, AttributeError):  # (a learner without estimates yet)
            pass
    conf = getattr(learner, "estimated_safe_set", None)
    if callable(conf):
        try:
            flags += norm_flags(conf(), info, round_)
        except (ValueError, TypeError, AttributeError, KeyError):
            pass
    own = getattr(learner, "assumption_contradictions", None)
    if callable(own):
        flags += [
            Flag(round_, f"the learner's intervals contradict the declaration: {what}") for what in own()
        ]
    return flags


class Watcher:
    """Watches one run: the flags of a simulated truth (``instance.assumption_flags``) at round 0, then the
    learner's intervals at every :meth:`check`. Keeps the first flag and the count of checks that raised
    one.

    Active only for instances built from a declaration (they carry ``assumption_flags``); otherwise every
    call returns at once.
    """

    def __init__(self, learner: Any, instance: Any) -> None:
        flags = getattr(instance, "assumption_flags", None)
        self.active = flags is not None
        self.first: Flag | None = None
        self.count = 0
        if not self.active:
            return
        self._learner = learner
        self._info = getattr(learner, "info", None)
        if self._info is None:
            public = getattr(instance, "public_info", None)
            self._info = public() if callable(public) else None
        for what in flags:
            self._raise(Flag(0, f"the simulated truth is outside the declared bounds: {what}"))

    def _raise(self, flag: Flag) -> None:
        if self.first is None:
            self.first = flag
        self.count += 1

    def check(self, round_: int) -> None:
        """Check the learner's current intervals (after round ``round_``)."""
        if not self.active or self._info is None:
            return
        for flag in learner_flags(self._learner, self._info, round_)[:1]:
            self._raise(flag)

    def summary(self) -> dict[str, Any]:
        """``{}`` if no flag was raised, else the first flag's ``round``, ``what``, ``text`` and ``checks``
        (the number of checks that raised one)."""
        if self.first is None:
            return {}
        return {**self.first.to_dict(), "checks": self.count}
