"""Garcelon, Ghavamzadeh, Lazaric & Pirotta (2020), Improved Algorithms for Conservative Exploration in
Bandits (AAAI 2020): the citation its claims carry and the coverage of its digest's section 5
(``docs/clucb2.md``). Every item is the library's reading of the abstract (the text past Sec. 1 was not
read)."""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Garcelon et al. 2020 (CLUCB2)"
#: The digest's file stem.
DIGEST = "clucb2"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 8

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "CLUCB2's performance is almost never worse than (1 - alpha) x the baseline's (abstract; the "
        "checkpoint variant at every checkpoint).",
        (("clucb2-regret", "clucb2-safe"), ("clucb2-checkpoints", "clucb2-checkpoint-safe")),
    ),
    (
        2,
        "CLUCB2 outperforms state-of-the-art conservative bandit algorithms in synthetic problems (abstract; "
        "library reading: lower regret than CLUCB at every alpha).",
        (("clucb2-regret", "clucb2-below-clucb"), ("clucb2-regret", "clucb2-fewer-baseline-rounds")),
    ),
    (
        3,
        "The checkpoint constraint favorably impacts CLUCB2's regret (abstract; library reading: lower "
        "regret than CLUCB2 verified every round, falling as tau grows).",
        (
            ("clucb2-checkpoints", "checkpoints-lower-regret"),
            ("clucb2-checkpoints", "checkpoint-regret-falls-with-tau"),
        ),
    ),
    (4, "Regret bounds of CLUCB2 that match existing results (abstract): proofs, not read.", ()),
    (5, "CLUCB2 on real-world problems (abstract): the data and the setting were not read.", ()),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("clucb2 §5.4", "Regret bounds for CLUCB2 that match existing results.", "proof-only",
     "the paper's text past Sec. 1 could not be read here: no bound or constant to check"),
    ("clucb2 §5.5", "CLUCB2 outperforms state-of-the-art conservative algorithms on real-world problems.",
     "not evaluated", "the real-world problems and their data were not read here"),
)  # fmt: skip
