"""The catalogue of learners: what ``register_algorithm`` records and ``get_algorithm`` finds.

At the bottom of the algorithms package: it imports none of the learners nor any module that builds on
them. The learners register themselves when their package is imported, and the catalogue finds those
packages through the entry-point group :data:`LEARNERS_GROUP` (the built-in ones are named in
``pyproject.toml`` like the papers), so the catalogue never imports the learners by name and the
learners' imports of the catalogue make no circle. :mod:`safebandits.algorithms.registry` is the
public face (it adds :func:`~safebandits.algorithms.registry.make_learner`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from safebandits._entry_points import load_group
from safebandits.algorithms._config import LearnerConfig, config_from_dict
from safebandits.exceptions import ConfigError

__all__ = [
    "LEARNERS_GROUP",
    "AlgorithmEntry",
    "Task",
    "class_kinds",
    "get_algorithm",
    "list_algorithms",
    "register_algorithm",
]

Task = Literal["pure_exploration", "regret", "classification"]

#: The entry-point group of packages whose import registers learners (the built-in ones included).
LEARNERS_GROUP = "safebandits.learners"


@dataclass(frozen=True, slots=True)
class AlgorithmEntry:
    """A registered learner: its class (a :class:`~safebandits.algorithms.base.BaseLearner`; typed
    loosely here, as the catalogue sits below the base class), task, preset options and what it reads."""

    name: str
    cls: type[Any]
    task: Task
    defaults: dict[str, Any]
    description: str
    privileged: bool = False
    info: tuple[str, ...] = ()
    guarantee: str = ""
    assumptions: tuple[str, ...] = ()

    def config(self, **overrides: Any) -> LearnerConfig:
        """The validated config of this entry's defaults and ``overrides``.

        Configs are frozen, so the same values give the same (shared) object: a runner that builds a
        learner per replicate validates its config once (:func:`_cached_config`).
        """
        values = {**self.defaults, **overrides}
        key = _values_key(values)
        if key is None:
            return config_from_dict(self.cls.config_cls, values)
        return _cached_config(self.cls.config_cls, key)


def _exact(value: Any) -> Any:
    """A hashable stand-in of ``value`` equal only to that of an equal value *of the same type* (``1``,
    ``1.0`` and ``True`` are equal and hash alike in Python, but a config may accept one and refuse or
    store another); raises ``TypeError`` for a value that is not a scalar or a tuple of them."""
    if isinstance(value, tuple):
        return (tuple, *(_exact(v) for v in value))
    if type(value) is float:  # (by its bits: -0.0 and 0.0 are equal, as two NaNs are not)
        return (float, value.hex())
    if value is None or type(value) in (bool, int, str):
        return (type(value), value)
    raise TypeError


def _values_key(values: Mapping[str, Any]) -> tuple[Any, ...] | None:
    try:
        return tuple(sorted((k, _exact(v)) for k, v in values.items()))
    except TypeError:  # (a list, an array, a numpy scalar...: built every time)
        return None


@functools.lru_cache(maxsize=512)
def _cached_config(cls: type[LearnerConfig], key: tuple[Any, ...]) -> LearnerConfig:
    """``cls`` built from the values of ``key`` (see :func:`_values_key`); a refused config raises and is
    not cached."""
    return config_from_dict(cls, {k: _value(v) for k, v in key})


def _value(key: Any) -> Any:
    if key[0] is tuple:
        return tuple(_value(k) for k in key[1:])
    return float.fromhex(key[1]) if key[0] is float else key[1]


_REGISTRY: dict[str, AlgorithmEntry] = {}
_C = TypeVar("_C", bound=type)

#: Info kinds each registered learner class reads (the union over its registered names), so that a
#: learner built directly (``ACOL(config, info, rng)``) refuses a problem of another kind with the same
#: error as ``make_learner``.
_CLASS_KINDS: dict[type, tuple[str, ...]] = {}


def class_kinds(cls: type) -> tuple[str, ...]:
    """The info kinds learner class ``cls`` reads (empty: not registered with kinds, never checked)."""
    return _CLASS_KINDS.get(cls, ())


def register_algorithm(
    name: str,
    *,
    task: Task,
    defaults: dict[str, Any] | None = None,
    description: str = "",
    privileged: bool = False,
    info: str | tuple[str, ...] = (),
    guarantee: str = "",
    assumptions: tuple[str, ...] = (),
) -> Callable[[_C], _C]:
    """Register a learner class under ``name``; ``defaults`` preset config fields (variants).

    ``privileged=True`` marks oracle baselines that need the instance's ``privileged_info()``.
    ``info`` names the problem kind(s) the learner reads (``"stagewise"``, ``"kernel"``, ...; see
    :data:`safebandits.problems.declare.INFO_KINDS`) and ``guarantee`` what it guarantees (a key of
    :data:`safebandits.algorithms.compatibility.GUARANTEES` or free text); with them the learner is
    listed by :func:`~safebandits.algorithms.compatibility.compatible_learners`, takes problem
    declarations in :func:`~safebandits.algorithms.registry.make_learner` and refuses problems of
    another kind with a clear error. ``assumptions`` names what the guarantee rests on (keys of
    :data:`safebandits.algorithms.assumptions.ASSUMPTIONS` or free text), stated beside the guarantee.
    """
    kinds = (info,) if isinstance(info, str) else tuple(info)

    def deco(cls: _C) -> _C:
        if name in _REGISTRY:
            raise ConfigError(f"Algorithm {name!r} is already registered.")
        doc = description or (cls.__doc__ or "").strip().split("\n", 1)[0]
        _REGISTRY[name] = AlgorithmEntry(
            name, cls, task, dict(defaults or {}), doc, privileged, kinds, guarantee, tuple(assumptions)
        )
        if kinds:
            _CLASS_KINDS[cls] = tuple(dict.fromkeys((*_CLASS_KINDS.get(cls, ()), *kinds)))
        return cls

    return deco


def list_algorithms(task: Task | None = None) -> dict[str, AlgorithmEntry]:
    load_group(LEARNERS_GROUP)
    return {k: v for k, v in sorted(_REGISTRY.items()) if task is None or v.task == task}


def get_algorithm(name: str) -> AlgorithmEntry:
    load_group(LEARNERS_GROUP)
    if name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or (
            f"none (the entry-point group {LEARNERS_GROUP!r} names no package: is safebandits installed? "
            "pip install -e . refreshes its entry points)"
        )
        raise ConfigError(f"Unknown algorithm {name!r}. Known: {known}.")
    return _REGISTRY[name]
