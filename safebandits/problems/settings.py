"""Declared problems from plain values, by setting name: :func:`problem_from_dict` (the ``[problem]``
table of an experiment file, a study's stored declaration).

Here, not in :mod:`safebandits.problems.declare`, because it names every setting, the covariate one
included (:mod:`safebandits.problems.declare_covariate`, built on the declarations of ``declare``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from safebandits.exceptions import ConfigError
from safebandits.problems.declare import (
    ConservativeLinearProblem,
    ConservativeProblem,
    FunctionClassProblemSpec,
    KernelProblem,
    LinearProblem,
    PoolProblem,
    Problem,
    SafeLinearProblem,
)
from safebandits.problems.declare_covariate import CovariateProblem

__all__ = ["SETTINGS", "problem_from_dict"]

#: The declarations by their ``setting`` name.
SETTINGS: dict[str, type[Problem]] = {
    "linear": LinearProblem,
    "safe-linear": SafeLinearProblem,
    "kernel": KernelProblem,
    "function-class": FunctionClassProblemSpec,
    "pool": PoolProblem,
    "covariate": CovariateProblem,
    "conservative": ConservativeProblem,
    "conservative-linear": ConservativeLinearProblem,
}


def problem_from_dict(values: Mapping[str, Any]) -> Problem:
    """A declaration from plain values: ``{"setting": "linear" | "kernel" | "function-class" | "pool" |
    "covariate" | "conservative", ...}`` (``"covariate"``:
    :class:`~safebandits.problems.declare_covariate.CovariateProblem`).

    The other keys are the declaration's parameters (see
    :class:`~safebandits.problems.declare.LinearProblem` and the others).
    """
    if not isinstance(values, Mapping):
        raise ConfigError(f"A problem must be a table of values. Got {type(values).__name__} instead.")
    values = dict(values)
    setting = values.pop("setting", None)
    if setting not in SETTINGS:
        raise ConfigError(
            f"The 'setting' of a problem must be one of {', '.join(map(repr, SETTINGS))}. "
            f"Got {setting!r} instead."
        )
    cls = SETTINGS[setting]
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - names)
    if unknown:
        raise ConfigError(f"A {setting!r} problem has no parameter(s) {unknown}; valid: {sorted(names)}.")
    required = [
        f.name
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    missing = [n for n in required if n not in values]
    if missing:
        raise ConfigError(
            f"A {setting!r} problem needs the parameter{'s' if len(missing) > 1 else ''} "
            f"{', '.join(map(repr, missing))} (missing)."
        )
    try:
        return cls(**values)
    except TypeError as exc:  # (defensive: a declaration's own signature)
        raise ConfigError(f"A {setting!r} problem: {exc}.") from None
