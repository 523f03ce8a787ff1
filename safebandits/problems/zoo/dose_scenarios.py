"""``dose/six-doses``: six-dose toxicity scenarios of the usual phase I shape (issue 45, item 4).

Four scenarios, toxicity limit (and target) 0.30, the maximum tolerated dose (MTD: the highest dose at or
below the limit) at dose 3, 4, 2 and 5 (1-based), with the MTD's toxicity in 0.25-0.30 and the next dose
at 0.40 or more, as in the standard scenarios of the CRM and BOIN papers. These are *shaped like* them,
not their published tables (the side-by-side with CRM and BOIN on the papers' own scenarios is item 3 of
the issue). Efficacy rises with the dose. The declaration states the dose structure: toxicity
non-decreasing and a largest increase ``max_increase`` per step (default 0.20, at least every scenario's
largest true step, 0.17); the lowest dose is known to be below the limit, its toxicity unknown.

The factory returns the instance of the ``"dose"`` view (the dose-escalation learner's), built from a
:class:`~safebandits.problems.declare_covariate.CovariateProblem` declaration and its truth.
"""

from __future__ import annotations

from typing import Any

from safebandits._validation import check_int
from safebandits.exceptions import ConfigError
from safebandits.problems.declare_covariate import CovariateProblem

__all__ = ["SCENARIOS", "six_doses"]

#: Scenario -> true toxicity per dose (limit 0.30); the MTD (0-based) is the last entry <= 0.30.
SCENARIOS: dict[int, tuple[float, ...]] = {
    1: (0.05, 0.12, 0.27, 0.42, 0.55, 0.68),
    2: (0.02, 0.06, 0.12, 0.28, 0.45, 0.60),
    3: (0.10, 0.26, 0.43, 0.57, 0.70, 0.80),
    4: (0.02, 0.05, 0.08, 0.14, 0.29, 0.46),
}

#: Efficacy per dose (the same in every scenario; rising with the dose).
EFFICACY = (0.10, 0.20, 0.30, 0.40, 0.50, 0.60)


def six_doses(
    *, scenario: int = 1, T: int = 36, max_increase: Any = 0.2, monotone: bool = True, limit: float = 0.30
) -> Any:
    """Six doses, the lowest known safe; toxicity of ``scenario`` (1-4); ``T`` patients; a toxicity limit
    (default 0.30, the target; a limit above it leaves the MTD of every scenario unchanged up to 0.40)."""
    scenario = check_int(scenario, "scenario", low=1, high=len(SCENARIOS), owner="dose/six-doses")
    if not isinstance(monotone, bool):
        raise ConfigError(
            f"The 'monotone' parameter of dose/six-doses must be true or false. Got {monotone!r}."
        )
    problem = CovariateProblem(
        covariates=[1, 2, 3, 4, 5, 6],
        threshold=limit,
        safe_action=0,
        monotone_cost=monotone,
        max_increase=max_increase,
        horizon=T,
    )
    sim = problem.simulate(
        efficacy=list(EFFICACY), toxicity=list(SCENARIOS[scenario]), name=f"six-doses/{scenario}"
    )
    return sim.instance("dose")


def true_mtd(scenario: int, limit: float = 0.30) -> int:
    """The 0-based MTD of ``scenario``: the highest dose whose toxicity is at most ``limit``."""
    tox = SCENARIOS[scenario]
    return max(i for i, p in enumerate(tox) if p <= limit)
