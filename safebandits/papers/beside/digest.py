"""Camilleri et al. (2022), BESIDE (and the FDR classification experiments): the citation its claims
carry and the coverage of its digest's section 5.

Registered with the engine by the package (:func:`~safebandits.experiments.papers.register_paper`):
``COVERAGE`` maps every numbered item of section 5 of the digest (``beside.md``) to the claims that read
it, ``UNEVALUATED`` lists the items no experiment reads, with the reason (statuses:
:data:`~safebandits.experiments.claims_coverage.UNEVALUATED_STATUS`).
"""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Camilleri et al. 2022 (BESIDE)"
#: The digest's file stem.
DIGEST = "beside"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 2

_EXPERIMENTS = (
    "beside-mab",
    "beside-linear",
    "beside-hard",
    "beside-example1",
    "beside-vacuous",
    "beside-worst-case",
)

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "(eps, delta)-PAC: the rate of answers outside Z_eps is <= delta.",
        (
            *((e, "pac") for e in _EXPERIMENTS),
            ("beside-hard", "pac-alg1"),
            ("beside-example1", "pac-alg1"),
        ),
    ),
    (
        2,
        "MAB: BESIDE <= BASELINE for every K; the ratio reaches about 2 at K = 100.",
        (("beside-mab", "mab-never-worse"), ("beside-mab", "mab-2x")),
    ),
    (
        3,
        "Random linear instances: BESIDE significantly below BASELINE.",
        (("beside-linear", "linear-beats-baseline"),),
    ),
    (
        4,
        "Hard instance I1: slopes about -2 (BESIDE) vs -3 (XY_diff-only); the gap widens as eps -> 0.",
        (
            ("beside-hard", "hard-slopes"),
            ("beside-hard", "hard-beside-better-small-eps"),
            ("beside-hard", "hard-slope-alg1"),
        ),
    ),
    (5, "Instance I2: XY_safe-only needs eps^-3/2, BESIDE eps^-1.", ()),
    (
        6,
        "Vacuous constraint: BESIDE returns z* at RAGE's rate up to logs (Corollary 1).",
        (("beside-vacuous", "vacuous-returns-best"), ("beside-vacuous", "vacuous-rage-rate")),
    ),
    (
        7,
        "Worst case X = Z: pulls independent of m beyond the log (Corollary 2).",
        (("beside-worst-case", "worst-case-log-m"),),
    ),
    (
        8,
        "Example 1: BESIDE never pays 1/Delta(e2)^2 nor 1/Delta_safe(e3)^2.",
        (
            ("beside-example1", "example1-no-delta-e2"),
            ("beside-example1", "example1-no-dsafe-e3"),
            ("beside-example1", "example1-no-delta-e2-alg1"),
            ("beside-example1", "example1-no-dsafe-e3-alg1"),
        ),
    ),
    (
        9,
        "Adult: active beats passive at 500, 750, 2000 labels; half the labels for a given FDR.",
        (("fdr-adult", "adult-ticks"), ("fdr-adult", "adult-half")),
    ),
    (
        10,
        "German: active higher precision and recall at 170-600 labels; half the labels.",
        (("fdr-german", "german-ticks"), ("fdr-german", "german-half")),
    ),
    (
        11,
        "Half circle: target precision or recall with far fewer labels.",
        (("fdr-halfcircle", "halfcircle-recall"), ("fdr-halfcircle", "halfcircle-precision")),
    ),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("beside §5.5", "Instance I2: XY_safe-only needs Omega(eps^-3/2 log 1/delta), BESIDE O~(eps^-1).",
     "not evaluated", "I2 is not specified in the available text: Proposition 2 only says I1 and I2 "
     "exist (d = |X| = |Z| = 2, m = 1) and the text describes I1 alone ('We remark briefly on the "
     "instance I1'); I2 would come from the proof, which the checklist places in the appendix ('Refer to "
     "Appendix') and the paper text (main text, references, checklist) does not contain; no instance is "
     "invented"),
)  # fmt: skip
