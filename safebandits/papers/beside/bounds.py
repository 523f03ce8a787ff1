"""``safebandits bounds`` of the BESIDE paper's instances: the transductive design quantities
(:func:`safebandits.papers.beside.beside_bounds.beside_bounds`)."""

from __future__ import annotations

from typing import Any

from safebandits.experiments.bounds import register_bounds
from safebandits.papers.beside.beside_bounds import beside_bounds
from safebandits.problems.transductive import TransductiveInstance

__all__: list[str] = []


def _bounds(name: str, instance: Any, **options: Any) -> dict[str, Any]:
    return beside_bounds(instance, **options)


register_bounds(TransductiveInstance, "transductive designs (beside/*)", _bounds, ("delta", "epsilon", "tol"))
