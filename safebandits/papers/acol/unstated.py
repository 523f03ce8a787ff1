"""Settings ACOL's driving verdicts rest on that the paper does not give, with their declared plausible
ranges (issue 42; :mod:`safebandits.experiments.robustness`). Declared on 2026-11-29, before any run across
them; docs/decisions/acol.md, "Unstated settings", lists them. The tuned width is not one of them: the
experiment sweeps it (tuned x0.5 ... x10) as methods of its own."""

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
)

register_unstated(*UNSTATED_SETTINGS)
