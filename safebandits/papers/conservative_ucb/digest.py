"""Wu, Shariff, Lattimore & Szepesvari (2016), Conservative Bandits: the citation its claims carry and the
coverage of its digest's section 5 (``docs/conservative_ucb.md``)."""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Wu et al. 2016 (Conservative UCB)"
#: The digest's file stem.
DIGEST = "conservative_ucb"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 6

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "Conservative UCB keeps the revenue above (1 - alpha) x the default's in every round, w.p. 1-delta.",
        (("cucb-horizon", "cucb-safe"), ("cucb-alpha", "cucb-safe-alpha")),
    ),
    (
        2,
        "Unconstrained UCB may initially lose too much revenue.",
        (("cucb-horizon", "ucb-violates"),),
    ),
    (
        3,
        "Conservative UCB's regret is below BudgetFirst's (library reading of experiment 1).",
        (("cucb-horizon", "cucb-below-budget-first"),),
    ),
    (
        4,
        "A larger alpha lowers Conservative UCB's regret (library reading of experiment 2).",
        (("cucb-alpha", "cucb-regret-falls-with-alpha"),),
    ),
    (5, "Regret bounds and the lower bound (Sec. 3-5): proofs, not read by an experiment.", ()),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("conservative_ucb §5.5", "Regret upper bounds, the lower bound, the adversarial setting.", "proof-only",
     "the paper's text of Sec. 3-5 could not be read here: no constants to check"),
)  # fmt: skip
