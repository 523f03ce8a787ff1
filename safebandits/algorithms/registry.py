"""Registry of learners: ``@register_algorithm("acol", task="pure_exploration")``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from safebandits.algorithms.base import BaseLearner, LearnerConfig, config_from_dict, register_info_kinds
from safebandits.exceptions import CannotStartError, ConfigError

__all__ = ["AlgorithmEntry", "get_algorithm", "list_algorithms", "make_learner", "register_algorithm"]

Task = Literal["pure_exploration", "regret", "classification"]


@dataclass(frozen=True, slots=True)
class AlgorithmEntry:
    name: str
    cls: type[BaseLearner]
    task: Task
    defaults: dict[str, Any]
    description: str
    privileged: bool = False
    info: tuple[str, ...] = ()
    guarantee: str = ""

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


def register_algorithm(
    name: str,
    *,
    task: Task,
    defaults: dict[str, Any] | None = None,
    description: str = "",
    privileged: bool = False,
    info: str | tuple[str, ...] = (),
    guarantee: str = "",
) -> Callable[[type[BaseLearner]], type[BaseLearner]]:
    """Register a learner class under ``name``; ``defaults`` preset config fields (variants).

    ``privileged=True`` marks oracle baselines that need the instance's ``privileged_info()``.
    ``info`` names the problem kind(s) the learner reads (``"stagewise"``, ``"kernel"``, ...; see
    :data:`safebandits.problems.declare.INFO_KINDS`) and ``guarantee`` what it guarantees (a key of
    :data:`safebandits.algorithms.compatibility.GUARANTEES` or free text); with them the learner is
    listed by :func:`~safebandits.algorithms.compatibility.compatible_learners`, takes problem
    declarations in :func:`make_learner` and refuses problems of another kind with a clear error.
    """
    kinds = (info,) if isinstance(info, str) else tuple(info)

    def deco(cls: type[BaseLearner]) -> type[BaseLearner]:
        if name in _REGISTRY:
            raise ConfigError(f"Algorithm {name!r} is already registered.")
        doc = description or (cls.__doc__ or "").strip().split("\n", 1)[0]
        _REGISTRY[name] = AlgorithmEntry(
            name, cls, task, dict(defaults or {}), doc, privileged, kinds, guarantee
        )
        from safebandits.algorithms.compatibility import kinds_of

        register_info_kinds(cls, kinds_of(_REGISTRY[name]))
        return cls

    return deco


def _load() -> None:
    import safebandits.algorithms.classification
    import safebandits.algorithms.pure_exploration
    import safebandits.algorithms.regret  # noqa: F401


def list_algorithms(task: Task | None = None) -> dict[str, AlgorithmEntry]:
    _load()
    return {k: v for k, v in sorted(_REGISTRY.items()) if task is None or v.task == task}


def get_algorithm(name: str) -> AlgorithmEntry:
    _load()
    if name not in _REGISTRY:
        raise ConfigError(f"Unknown algorithm {name!r}. Known: {', '.join(sorted(_REGISTRY))}.")
    return _REGISTRY[name]


def make_learner(
    name: str, info: Any, rng: np.random.Generator, config: LearnerConfig | dict[str, Any] | None = None
) -> BaseLearner:
    """Build a registered learner: ``make_learner("acol", info, rng, {"delta": 0.05})``.

    ``info`` is the problem information of the learner's kind, or a problem declaration
    (:mod:`safebandits.problems.declare`, simulated or not), of which the learner takes its view.
    A problem of a kind the learner cannot serve raises one :class:`ConfigError` naming the kind it
    needs and the learners that fit; a problem the learner cannot start on raises
    :class:`~safebandits.exceptions.CannotStartError`, whose changes that would let it start are stated,
    for a declaration, in the declaration's coordinates.
    """
    from safebandits.algorithms.compatibility import check_info, kinds_of, view_for
    from safebandits.problems.declare import Problem, SimulatedProblem

    entry = get_algorithm(name)
    if config is not None and not isinstance(config, (LearnerConfig, Mapping)):
        raise TypeError(
            f"The 'config' of make_learner({name!r}) must be a dict of config fields or a LearnerConfig. "
            f"Got {type(config).__name__} {config!r:.60} instead."
        )
    if not isinstance(info, (Problem, SimulatedProblem)):
        check_info(name, kinds_of(entry), info)
        cfg = config if isinstance(config, LearnerConfig) else entry.config(**(config or {}))
        return entry.cls(cfg, info, rng)
    view = view_for(info, name)
    cfg = config if isinstance(config, LearnerConfig) else entry.config(**(config or {}))
    try:
        return entry.cls(cfg, view, rng)
    except CannotStartError as exc:  # restated in the declaration's coordinates
        from safebandits.algorithms.compatibility import restate

        raise restate(name, exc, info) from None
