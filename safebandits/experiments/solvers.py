"""Solvers: a small experiment kind for deterministic optimisation studies (not bandit runs).

Some figures of the papers are not bandit runs but the output of an optimiser on a problem -- e.g.
Figure 4 of Lindner et al. (2022): the reward and constraint value of the CEM solution of a penalised
driving objective for each penalty ``lambda``. A *solver* is registered here with a config class and a
function ``solve(instance, config, rng) -> (metrics, traces)``; an :class:`~safebandits.experiments.spec.
AlgorithmSpec` naming a solver makes its runs solver runs. They reuse everything else of the machinery
(specs, sweeps, run keys, the results store, ``resume``, the report): the runner calls the solver in
place of the ask / tell loop and stores its metric columns (``reward``, ``cost``, ``feasible``, ...) and
JSON traces. Solvers are not learners: they are not in the learner registry or its contract suite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.algorithms.base import config_from_dict
from safebandits.exceptions import ConfigError

__all__ = ["SolverEntry", "find_solver", "list_solvers", "register_solver"]

SolveFn = Callable[[Any, Any, np.random.Generator], tuple[dict[str, Any], dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class SolverEntry:
    """A registered solver: name, config class (a frozen dataclass) and solve function."""

    name: str
    config_cls: type
    solve: SolveFn
    description: str

    def config(self, **overrides: Any) -> Any:
        return config_from_dict(self.config_cls, overrides)

    @property
    def fields(self) -> set[str]:
        return {f.name for f in dataclasses.fields(self.config_cls)}


_REGISTRY: dict[str, SolverEntry] = {}


def register_solver(name: str, config_cls: type, *, description: str = "") -> Callable[[SolveFn], SolveFn]:
    """Register ``solve(instance, config, rng) -> (metrics, traces)`` under ``name``."""

    def deco(fn: SolveFn) -> SolveFn:
        if name in _REGISTRY:
            raise ConfigError(f"Solver {name!r} is already registered.")
        doc = description or (fn.__doc__ or "").strip().split("\n", 1)[0]
        _REGISTRY[name] = SolverEntry(name, config_cls, fn, doc)
        return fn

    return deco


def _load() -> None:
    # The solvers of the paper packages (registered on import; a worker process may not have loaded
    # them yet). The engine registers none itself (ACOL's ``driving-cem`` is registered by its package).
    from safebandits.experiments.papers import load_papers

    load_papers()


def list_solvers() -> dict[str, SolverEntry]:
    _load()
    return dict(sorted(_REGISTRY.items()))


def find_solver(name: str) -> SolverEntry | None:
    """The solver ``name``, or ``None`` if ``name`` is not a solver (e.g. a learner)."""
    _load()
    return _REGISTRY.get(name)
