"""Pacchiano et al., stage-wise constraints: the citation its claims carry and the coverage of its
digest's section 5.

Registered with the engine by the package (:func:`~safebandits.experiments.papers.register_paper`):
``COVERAGE`` maps every numbered item of section 5 of the digest (``stagewise.md``) to the claims that
read it, ``UNEVALUATED`` lists the items no experiment reads, with the reason (statuses:
:data:`~safebandits.experiments.claims_coverage.UNEVALUATED_STATUS`).
"""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Pacchiano et al. (stage-wise constraints)"
#: The digest's file stem.
DIGEST = "stagewise"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 3

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "Safety (high probability): LC-LUCB never plays a cost above tau.",
        (("stagewise-cyclic", "e1-safety"), ("stagewise-ball", "e2-safety")),
    ),
    (
        2,
        "Safety in expectation: OPB, OPLB, OPNLB policies have E_pi[c] <= tau every round.",
        (
            ("opb-random", "e3-safety"),
            ("opb-four-arm", "e4-safety"),
            ("oplb-random", "oplb-safety"),
            ("opnlb-finite", "opnlb-safety"),
        ),
    ),
    (
        3,
        "Optimism: the selected optimistic value >= the optimal true value on the good event.",
        (
            ("stagewise-cyclic", "e1-optimism"),
            ("stagewise-ball", "e2-optimism"),
            ("oplb-random", "oplb-optimism"),
            ("opnlb-finite", "opnlb-optimism"),
            ("stagewise-optimism", "opt-theory"),
            ("stagewise-optimism", "opt-ablation-fails"),
        ),
    ),
    (
        4,
        "Regret O~(sqrt T): Theorems 19 / 27 / 31 read as bounds, Theorem 38 as an order (undecided); "
        "log-log slopes as library diagnostics.",
        (
            ("stagewise-cyclic", "e1-bound"),
            ("opb-random", "e3-bound"),
            ("opb-four-arm", "e4-bound"),
            ("oplb-random", "oplb-bound"),
            ("opnlb-finite", "opnlb-bound"),
            ("stagewise-cyclic", "e1-slope"),
            ("opb-random", "e3-slope"),
            ("opb-four-arm", "e4-slope"),
            ("oplb-random", "oplb-slope"),
            ("opnlb-finite", "opnlb-slope"),
        ),
    ),
    (
        5,
        "Dependence on tau: R(0.2) > R(0.5) > R(0.8).",
        (
            ("stagewise-cyclic", "e1-tau-order"),
            ("opb-random", "e3-tau-order"),
            ("opb-four-arm", "e4-tau-order"),
        ),
    ),
    (
        6,
        "LC-LUCB <= Safe-LTS in E1 for every (d, tau) and on average in E2.",
        (("stagewise-cyclic", "e1-vs-safe-lts"), ("stagewise-ball", "e2-vs-safe-lts")),
    ),
    (
        7,
        "Cost convergence: about 0.561 at tau = 0.8, d = 10; approaches tau from below when tau <= 0.5.",
        (("stagewise-cyclic", "e1-cost-0561"), ("stagewise-cyclic", "e1-cost-tau")),
    ),
    (
        8,
        "Lower-bound instance: regret >~ (1 - r0)/(21 (tau - c0)^2).",
        (("stagewise-lower-bound", "lb-regret"),),
    ),
    (9, "Unit-testable algebra (closed forms, LP support, stopping-time bounds).", ()),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("stagewise §5.9", "Closed forms, LP support, Alg. 5 stopping-time bounds.", "proof-only",
     "unit-testable algebra, covered by the unit tests"),
)  # fmt: skip
