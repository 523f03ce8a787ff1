"""Registry of learners: ``@register_algorithm("acol", task="pure_exploration")``, ``get_algorithm``,
``list_algorithms`` and ``make_learner``.

The catalogue itself (the entries and how learners are found) is :mod:`safebandits.algorithms._catalogue`,
at the bottom of the package; this module adds :func:`make_learner`, which builds a learner on a problem
declaration through :mod:`safebandits.algorithms.compatibility`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from safebandits.algorithms._catalogue import (  # noqa: F401  (_REGISTRY: tests remove what they added)
    _REGISTRY,
    AlgorithmEntry,
    Task,
    get_algorithm,
    list_algorithms,
    register_algorithm,
)
from safebandits.algorithms._config import LearnerConfig
from safebandits.algorithms.base import BaseLearner
from safebandits.exceptions import CannotStartError

__all__ = ["AlgorithmEntry", "Task", "get_algorithm", "list_algorithms", "make_learner", "register_algorithm"]


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
    from safebandits.algorithms.compatibility import check_info, kinds_of, restate, view_for
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
        raise restate(name, exc, info) from None
