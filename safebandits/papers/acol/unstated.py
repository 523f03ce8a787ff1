"""Settings ACOL's driving verdicts rest on that the paper does not give, with their declared plausible
ranges (issue 42; :mod:`safebandits.experiments.robustness`). Declared on 2026-11-29, before any run across
them; docs/decisions/acol.md, "Unstated settings", lists them."""

from __future__ import annotations

from safebandits.experiments.robustness import UnstatedSetting, register_unstated

DECLARED = "2026-11-29"

UNSTATED_SETTINGS = (
    UnstatedSetting(
        "acol-driving",
        "instance.features",
        ("code", "paper"),
        "the driving simulator is reconstructed: the paper's feature constants and the released code's "
        "differ",
        why="the two sets of constants the library implements (ours: the released code's)",
        declared=DECLARED,
    ),
    UnstatedSetting(
        "acol-driving",
        "algorithm.tuned_width",
        (0.25, 0.5),
        "tuned width beta_t = 1/4 in the text; the authors' code multiplies the theory width",
        claims=("8c-tuned-correct-above", "8d-tuned-saves"),
        why="the paper's 1/4 and ours 0.5",
        declared=DECLARED,
    ),
)

register_unstated(*UNSTATED_SETTINGS)
