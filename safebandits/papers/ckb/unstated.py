"""Settings CKB's verdicts rest on that the paper does not give, with their declared plausible ranges
(issue 42; :mod:`safebandits.experiments.robustness`). Declared on 2026-11-29, before any run across them;
the decisions page (docs/decisions/ckb.md, "Unstated settings") lists them with the verdict at each value
once scored."""

from __future__ import annotations

from safebandits.experiments.robustness import UnstatedSetting, register_unstated

DECLARED = "2026-11-29"
_NOISE_WHY = (
    "the GP noise lambda is not given (Chowdhury & Gopalan's lambda = 1 is ours); 0.01 is the value the "
    "decisions page measured the violation counts at, 0.1 between"
)

UNSTATED_SETTINGS = (
    *(
        UnstatedSetting(
            experiment, "algorithm.gp_noise", (0.01, 0.1, 1.0), "not given", why=_NOISE_WHY, declared=DECLARED
        )
        for experiment in ("ckb-synthetic", "ckb-light", "ckb-finance", "ckb-slack-horizons")
    ),
    UnstatedSetting(
        "ckb-synthetic",
        "instance.min_slater",
        (0.05, 0.1, 0.2),
        "how f and g are drawn is not given (whether they are redrawn per trial is not said)",
        why="the Slater constant below which a draw is rejected decides whether the constraint binds, and "
        "V(T) > 0 exactly in the draws where it binds; 0.1 is ours, half and twice around it",
        declared=DECLARED,
    ),
)

register_unstated(*UNSTATED_SETTINGS)
