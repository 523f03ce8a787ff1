"""Theory quantities of an instance, for ``safebandits bounds``: a registry the paper packages fill.

Each paper registers, for the instance types of its settings, a function that computes the quantities
the paper gives (:func:`register_bounds`); ``safebandits bounds`` dispatches on the instance's type
(:func:`bounds_entry`). For the regret settings the quantities are computed by the paper's learner itself,
built on the instance's public view (:func:`learner_quantities`), so ``bounds`` reports exactly the values
a run uses. Instances of a type no paper registers (classification pools, the driving task) get one
:class:`~safebandits.exceptions.ConfigError` naming the kinds that have bounds (:func:`bound_kinds`).
The engine names no paper: the papers' own modules say which learners and which quantities.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError

__all__ = ["BoundsEntry", "bound_kinds", "bounds_entry", "learner_quantities", "register_bounds"]


@dataclasses.dataclass(frozen=True)
class BoundsEntry:
    """The bounds of one instance type: ``compute(name, instance, **options)`` returns them as a dict;
    ``options`` are the option names it accepts (``delta``, ``epsilon``, ...); ``family`` says in words
    which problems have them (e.g. ``"safe linear bandits (safelucb/*)"``)."""

    instance_type: type
    family: str
    compute: Callable[..., dict[str, Any]]
    options: tuple[str, ...] = ("delta",)


_BOUNDS: list[BoundsEntry] = []


def register_bounds(
    instance_type: type,
    family: str,
    compute: Callable[..., dict[str, Any]],
    options: Sequence[str] = ("delta",),
) -> BoundsEntry:
    """Register the bounds of ``instance_type`` (a paper package calls this when it is imported)."""
    if not isinstance(instance_type, type) or not callable(compute):
        raise ConfigError(
            "register_bounds needs an instance type and a callable compute(name, instance, ...)."
        )
    entry = BoundsEntry(instance_type, str(family), compute, tuple(options))
    _BOUNDS[:] = [e for e in _BOUNDS if e.instance_type is not instance_type] + [entry]
    return entry


def _entries() -> list[BoundsEntry]:
    from safebandits.experiments.papers import load_papers

    load_papers()
    return list(_BOUNDS)


def bounds_entry(instance: Any) -> BoundsEntry | None:
    """The bounds registered for ``instance``'s type (its own type first, then a base class)."""
    entries = _entries()
    exact = [e for e in entries if type(instance) is e.instance_type]
    return (exact or [e for e in entries if isinstance(instance, e.instance_type)] or [None])[0]


def bound_kinds() -> str:
    """One line naming the kinds of problem that have bounds."""
    families = [e.family for e in _entries()]
    return "bounds exist for " + (", ".join(families[:-1]) + " and " + families[-1] if families else "none")


def _scalars(values: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in values.items():
        if isinstance(value, (bool, np.bool_)):
            out[key] = bool(value)
        elif isinstance(value, (int, float, np.integer, np.floating)):
            v = float(value)
            out[key] = value.item() if isinstance(value, np.generic) else value
            if not math.isfinite(v):
                out[key] = str(v)
    return out


def learner_quantities(
    name: str,
    instance: Any,
    learners: Sequence[str],
    *,
    delta: float | None = None,
    fallbacks: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    post: Callable[[Any, dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The theory quantities of a regret instance as its paper's ``learners`` compute them (their
    ``diagnostics()`` on the instance's view, with ``delta`` where they take one).

    ``fallbacks[learner]``: settings tried in order when the learner's defaults refuse the instance;
    ``post(learner, values)`` returns ``(values, labels)`` (quantities the diagnostics do not hold, and
    non-numeric labels kept as they are).

    Raises
    ------
    ConfigError
        If none of the learners accepts the instance.
    """
    from safebandits.algorithms.registry import get_algorithm, make_learner

    kind = type(instance).__name__
    out: dict[str, Any] = {"kind": kind, "horizon": getattr(instance, "horizon", None)}
    refusals = []
    for alg in learners:
        entry = get_algorithm(alg)
        fields = {f.name for f in dataclasses.fields(entry.cls.config_cls)}
        config = {"delta": delta} if delta is not None and "delta" in fields else {}
        info = instance.privileged_info() if entry.privileged else instance.public_info()
        learner = None
        for extra in ({}, *(fallbacks or {}).get(alg, ())):
            try:
                learner = make_learner(alg, info, np.random.default_rng(0), {**config, **extra})
                break
            except ConfigError as exc:  # (e.g. OPB needs a K-armed problem; OPLB a linear one)
                if not extra:
                    refusals.append(f"{alg}: {exc}")
        if learner is None:
            continue
        values = dict(learner.diagnostics()) if hasattr(learner, "diagnostics") else {}
        labels: dict[str, Any] = {}
        if post is not None:
            values, labels = post(learner, values)
        settings = {"settings": extra} if extra else {}  # the fallback that was accepted
        out[alg] = {"delta": getattr(learner.config, "delta", None), **settings, **labels, **_scalars(values)}
    if not any(alg in out for alg in learners):
        raise ConfigError(f"No learner of {name!r}'s paper accepts it: {'; '.join(refusals)}")
    return out
