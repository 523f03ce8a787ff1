"""Learner configs: the frozen base every learner's config derives from, and its dict round trip.

At the bottom of the algorithms package (it imports none of its modules), so that the catalogue of
learners (:mod:`safebandits.algorithms._catalogue`) and the learners' base class
(:mod:`safebandits.algorithms.base`, which re-exports these names) both build on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from safebandits.exceptions import ConfigError

__all__ = ["LearnerConfig", "config_from_dict", "config_to_dict", "keyed_config", "run_params"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class LearnerConfig:
    """Base of every learner config (frozen, keyword-only, validated in ``__post_init__``).

    ``unkeyed`` names the fields added after runs of the learner were stored, each with the value it
    stands for in those runs (its default when it was added): at exactly that value the field is left out
    of an experiment run's config and its hash (:func:`keyed_config`), so the stored runs keep their keys
    and are not re-run; a run whose config lacks the field is built with that value (:func:`run_params`),
    whatever the default is now. Any other value (an option chosen, or a later change of the default) is
    in the key, so results stay a pure function of the run key.
    """

    unkeyed: ClassVar[Mapping[str, Any]] = {}


def config_to_dict(config: LearnerConfig) -> dict[str, Any]:
    """Flatten a config to a plain dict (the columns of the results table)."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def keyed_config(config: Any) -> dict[str, Any]:
    """:func:`config_to_dict` without the fields at their ``unkeyed`` value (``LearnerConfig.unkeyed``):
    the part of a config that enters an experiment run's key."""
    omit = getattr(type(config), "unkeyed", {})
    return {
        name: value
        for name, value in config_to_dict(config).items()
        if not (name in omit and type(value) is type(omit[name]) and value == omit[name])
    }


def run_params(cls: type[LearnerConfig], params: Mapping[str, Any]) -> dict[str, Any]:
    """An experiment run's config fields (:func:`keyed_config`'s dict) with every ``unkeyed`` field it
    lacks at the value that its absence stands for: the learner a stored run key describes, also after
    the field's default changed (OPLB's ``solver``)."""
    omitted = {k: v for k, v in getattr(cls, "unkeyed", {}).items() if k not in params}
    return {**omitted, **params}


def config_from_dict(cls: type[LearnerConfig], values: dict[str, Any]) -> LearnerConfig:
    """Build ``cls`` from a dict, rejecting unknown keys with a clear message."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(values) - names
    if unknown:
        raise ConfigError(f"{cls.__name__} has no parameter(s) {sorted(unknown)}; valid: {sorted(names)}.")
    return cls(**values)
