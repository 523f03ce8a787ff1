"""Settings the CLUCB paper's verdicts rest on that the text read here does not give, with their declared
plausible ranges (issue 42's pattern, :mod:`safebandits.experiments.robustness`). Declared on 2026-11-29,
before any run of these experiments; docs/decisions/conservative.md lists them."""

from __future__ import annotations

from safebandits.experiments.robustness import UnstatedSetting, register_unstated

DECLARED = "2026-11-29"

UNSTATED_SETTINGS = (
    UnstatedSetting(
        "clucb-alpha",
        "instance.S",
        (None, 5.0),
        "S not read",
        why="ours: ||theta*|| rounded up (None); 5.0 above most draws",
        declared=DECLARED,
    ),
    UnstatedSetting(
        "clucb-violations",
        "instance.S",
        (None, 5.0),
        "S not read",
        why="as clucb-alpha",
        declared=DECLARED,
    ),
)

register_unstated(*UNSTATED_SETTINGS)
