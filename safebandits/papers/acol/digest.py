"""Lindner et al. (2022), ACOL: the citation its claims carry and the coverage of its digest's section 5.

Registered with the engine by the package (:func:`~safebandits.experiments.papers.register_paper`):
``COVERAGE`` maps every numbered item of section 5 of the digest (``acol.md``) to the claims that read it,
``UNEVALUATED`` lists the items no experiment reads, with the reason (statuses:
:data:`~safebandits.experiments.claims_coverage.UNEVALUATED_STATUS`).
"""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Lindner et al. 2022 (ACOL)"
#: The digest's file stem.
DIGEST = "acol"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 1

_SYN, _REG, _DRV, _ROB = "acol-synthetic", "acol-regret-comparison", "acol-driving", "acol-robustness"

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "Correctness: every method returns x* in every seed.",
        ((_SYN, "1-correct"), (_REG, "1-correct")),
    ),
    (
        2,
        "Ordering with guarantees: Oracle <= ACOL < G-Allocation, Uniform; ACOL occasionally <= Oracle.",
        ((_SYN, "2-ordering"),),
    ),
    (
        3,
        "d-dependence: ACOL and Oracle flat in d; Uniform and G-Allocation grow with d.",
        ((_SYN, "3-d-dependence"),),
    ),
    (4, "epsilon-dependence: samples grow about as 1/eps^2.", ((_SYN, "4b-eps-dependence"),)),
    (
        5,
        "Theory vs static: adaptive-CI methods with theory beta are worse, e.g. G-ACOL (theory) > ACOL.",
        ((_SYN, "5-g-acol-theory"),),
    ),
    (
        6,
        "Tuning: orders of magnitude fewer samples; G-ACOL (tuned) best except Max Rew-U on the sphere.",
        (
            (_SYN, "4-tuning"),
            (_SYN, "6a-g-acol-tuned-best"),
            (_SYN, "6b-max-rew-u-sphere"),
            (_SYN, "6c-g-acol-tuned-comparable"),
        ),
    ),
    (
        7,
        "1-D regret comparison: G-ACOL < Max Rew-U < Max Rew-F in samples.",
        ((_REG, "7-regret-ordering"),),
    ),
    (
        8,
        "Driving: ACOL best with guarantees (about 10^5 samples); tuned heuristics about 10^3, "
        "100% correct above a beta threshold.",
        (
            (_DRV, "8a-guarantees-correct"),
            (_DRV, "8b-acol-best"),
            (_DRV, "8c-tuned-correct-above"),
            (_DRV, "8d-tuned-saves"),
        ),
    ),
    (
        9,
        "Figure 4: constrained reward >= every feasible penalised one; the lambda needed differs.",
        (
            (_ROB, "9a-constrained-beats-penalised"),
            (_ROB, "9b-lambda-differs"),
            (_ROB, "9c-smallest-feasible-lambda-worse"),
        ),
    ),
    (10, "Bound computation: H_CLB <= d/(C+_min)^2; 1/eps^2 for irrelevant dimensions.", ()),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("acol §5.10", "H_CLB <= d / (C+_min)^2; for irrelevant dimensions H_CLB = 1/eps^2 [derived].",
     "proof-only", "a bound computation (safebandits bounds), not an experimental claim"),
)  # fmt: skip
