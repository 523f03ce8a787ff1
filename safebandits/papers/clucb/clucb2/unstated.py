"""Settings the CLUCB2 paper's verdicts rest on that the text read here does not give, with their declared
plausible ranges (issue 42's pattern, :mod:`safebandits.experiments.robustness`). Declared on 2026-11-29,
before any run of these experiments; docs/decisions/conservative.md lists them. Everything about the
paper's synthetic problems is unstated here (its experiment section was not read); these are the settings
whose range is declared."""

from __future__ import annotations

from safebandits.experiments.robustness import UnstatedSetting, register_unstated

DECLARED = "2026-11-29"

UNSTATED_SETTINGS = (
    UnstatedSetting(
        "clucb2-regret",
        "instance.S",
        (None, 5.0),
        "not read",
        why="as clucb-alpha",
        declared=DECLARED,
    ),
    UnstatedSetting(
        "clucb2-regret",
        "instance.baseline_rank",
        (10, 50),
        "not read",
        why="Kazerouni et al.'s (10); a weaker baseline (50)",
        declared=DECLARED,
        default_value=10,
    ),
    UnstatedSetting(
        "clucb2-checkpoints",
        "instance.S",
        (None, 5.0),
        "not read",
        why="as clucb2-regret",
        declared=DECLARED,
    ),
    UnstatedSetting(
        "clucb2-checkpoints",
        "instance.alpha",
        (0.1, 0.02),
        "not read",
        why="ours (0.1); a tight budget (0.02)",
        declared=DECLARED,
    ),
)

register_unstated(*UNSTATED_SETTINGS)
