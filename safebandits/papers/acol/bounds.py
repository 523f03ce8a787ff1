"""``safebandits bounds`` of the ACOL paper's instances: the sample-complexity bounds of constrained
linear best-arm identification (:func:`safebandits.papers.acol.cbai_bounds.cbai_bounds`)."""

from __future__ import annotations

from typing import Any

from safebandits.experiments.bounds import register_bounds
from safebandits.papers.acol.cbai_bounds import cbai_bounds
from safebandits.problems.linear import LinearCBAIInstance

__all__: list[str] = []


def _bounds(name: str, instance: Any, **options: Any) -> dict[str, Any]:
    return cbai_bounds(instance, **options)


register_bounds(
    LinearCBAIInstance,
    "constrained best-arm identification (acol/*)",
    _bounds,
    ("delta", "epsilon", "phase_base", "noise_variance", "tol"),
)
