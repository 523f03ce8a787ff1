"""Learner configs: the frozen base every learner's config derives from, and its dict round trip.

At the bottom of the algorithms package (it imports none of its modules), so that the catalogue of
learners (:mod:`safebandits.algorithms._catalogue`) and the learners' base class
(:mod:`safebandits.algorithms.base`, which re-exports these names) both build on it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from safebandits.exceptions import ConfigError

__all__ = ["LearnerConfig", "config_from_dict", "config_to_dict"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class LearnerConfig:
    """Base of every learner config (frozen, keyword-only, validated in ``__post_init__``)."""


def config_to_dict(config: LearnerConfig) -> dict[str, Any]:
    """Flatten a config to a plain dict (the columns of the results table)."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def config_from_dict(cls: type[LearnerConfig], values: dict[str, Any]) -> LearnerConfig:
    """Build ``cls`` from a dict, rejecting unknown keys with a clear message."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(values) - names
    if unknown:
        raise ConfigError(f"{cls.__name__} has no parameter(s) {sorted(unknown)}; valid: {sorted(names)}.")
    return cls(**values)
