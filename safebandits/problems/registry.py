"""Registry of named problem instances (the zoo): ``@register_instance("acol/unit-sphere")``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError

__all__ = ["InstanceEntry", "list_instances", "make_instance", "register_instance"]


@dataclass(frozen=True, slots=True)
class InstanceEntry:
    name: str
    factory: Callable[..., Any]
    random: bool
    description: str

    @property
    def parameters(self) -> dict[str, Any]:
        sig = inspect.signature(self.factory)
        return {
            k: (None if p.default is inspect.Parameter.empty else p.default)
            for k, p in sig.parameters.items()
            if k != "rng"
        }


_REGISTRY: dict[str, InstanceEntry] = {}


def register_instance(
    name: str, *, random: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register an instance factory ``f(*, rng=None, **params)``.

    ``random=True`` marks families drawn afresh for every replicate (their factory needs ``rng``).
    """

    def deco(factory: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY:
            raise ConfigError(f"Instance {name!r} is already registered.")
        doc = (inspect.getdoc(factory) or "").split("\n", 1)[0]
        _REGISTRY[name] = InstanceEntry(name, factory, random, doc)
        return factory

    return deco


def _load_zoo() -> None:
    import safebandits.problems.zoo  # noqa: F401  (registers on import)


def list_instances() -> dict[str, InstanceEntry]:
    _load_zoo()
    return dict(sorted(_REGISTRY.items()))


def make_instance(name: str, rng: np.random.Generator | None = None, **params: Any) -> Any:
    """Build a registered instance by name with keyword parameters."""
    _load_zoo()
    if name not in _REGISTRY:
        raise ConfigError(f"Unknown instance {name!r}. Known instances: {', '.join(sorted(_REGISTRY))}.")
    entry = _REGISTRY[name]
    allowed = set(entry.parameters)
    unknown = set(params) - allowed
    if unknown:
        raise ConfigError(
            f"Instance {name!r} has no parameter(s) {sorted(unknown)}; it accepts {sorted(allowed)}."
        )
    if entry.random:
        if rng is None:
            raise ConfigError(f"Instance {name!r} is random: pass rng=numpy.random.Generator.")
        return entry.factory(rng=rng, **params)
    return entry.factory(**params)
