"""Settings BESIDE's and the FDR experiments' verdicts rest on that the paper does not give, with their
declared plausible ranges (issue 42; :mod:`safebandits.experiments.robustness`). Declared on 2026-11-29,
before any run across them; docs/decisions/beside.md, "Unstated settings", lists them."""

from __future__ import annotations

from safebandits.experiments.robustness import UnstatedSetting, register_unstated

DECLARED = "2026-11-29"

UNSTATED_SETTINGS = (
    UnstatedSetting(
        "beside-mab",
        "instance.other_safety_gap",
        (0.1, 0.25, 0.5, 1.0),
        "the other arms' numbers are in the missing Appendix F",
        why="any safety gap in (0, epsilon) fits the figure's shape (ours: epsilon/2 = 0.25); 1.0 is issue "
        "17's 'clearly safe' others",
        declared=DECLARED,
        default_value=0.25,
    ),
    UnstatedSetting(
        "beside-mab",
        "algorithm.combine",
        ("sequential", "mixture", "joint"),
        "how BESIDE combines its two designs in a round is Algorithm 1's structure for the analysed version; "
        "the practical version's rule is not given",
        why="the three combinations the library implements (ours: sequential)",
        declared=DECLARED,
    ),
    UnstatedSetting(
        "fdr-german",
        "instance.q",
        (0.1, 0.15, 0.2),
        "q, batch and positive class not stated for German",
        why="Adult's q = 0.15 is ours; 0.1 and 0.2 around it",
        declared=DECLARED,
    ),
    UnstatedSetting(
        "fdr-halfcircle",
        "instance.width",
        (0.05, 0.1, 0.2),
        "the half-circle construction is not given",
        why="the width of the half annulus (ours 0.1), half and twice",
        declared=DECLARED,
    ),
)

register_unstated(*UNSTATED_SETTINGS)
