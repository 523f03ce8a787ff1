"""Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy (2017), Conservative Contextual Linear Bandits: the
citation its claims carry and the coverage of its digest's section 5 (``docs/clucb.md``)."""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Kazerouni et al. 2017 (CLUCB)"
#: The digest's file stem.
DIGEST = "clucb"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 7

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "CLUCB keeps its cumulative reward above (1 - alpha) x the baseline policy's in every round, w.p. "
        "1 - delta (Sec. 3; Fig. 2: no violation).",
        (("clucb-alpha", "clucb-safe"), ("clucb-violations", "clucb-safe-first-1000")),
    ),
    (
        2,
        "LUCB violates the constraint in the first 1,000 rounds (Fig. 2).",
        (("clucb-violations", "lucb-violates"), ("clucb-violations", "lucb-violations-fall-with-alpha")),
    ),
    (
        3,
        "CLUCB's per-step regret is constant at the beginning: it follows the baseline (the conservative "
        "phase; Fig. 1).",
        (("clucb-alpha", "clucb-conservative-phase"),),
    ),
    (
        4,
        "CLUCB's regret is LUCB's plus a constant (Thm. 2; library readings of Fig. 1: the extra regret "
        "stops growing, and falls with alpha).",
        (("clucb-alpha", "clucb-extra-regret-constant"), ("clucb-alpha", "clucb-regret-falls-with-alpha")),
    ),
    (5, "Regret bounds of CLUCB and CLUCB2 (Thms. 2-5): proofs, not read by an experiment.", ()),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("clucb §5.5", "The regret bounds of CLUCB and CLUCB2 with their constants.", "proof-only",
     "the paper's text of Sec. 3-4 could not be read here: no constants to check"),
)  # fmt: skip
