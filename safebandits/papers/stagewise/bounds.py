"""``safebandits bounds`` of the stage-wise paper's instances, as OPB / OPLB / OPNLB compute them: the
optimism factors ``alpha_r`` / ``alpha_c``, ``delta_prime``, the radii ``beta_r`` / ``beta_c`` or the
function-class radii ``radius_r`` / ``radius_c``."""

from __future__ import annotations

from typing import Any

from safebandits.experiments.bounds import learner_quantities, register_bounds
from safebandits.problems.function_class import FunctionClassInstance
from safebandits.problems.stagewise import StagewiseInstance

__all__: list[str] = []


def _stagewise(name: str, instance: Any, *, delta: float | None = None) -> dict[str, Any]:
    return learner_quantities(name, instance, ("opb", "oplb"), delta=delta)


def _function_class(name: str, instance: Any, *, delta: float | None = None) -> dict[str, Any]:
    return learner_quantities(name, instance, ("opnlb",), delta=delta)


register_bounds(StagewiseInstance, "stage-wise constrained bandits (stagewise/*)", _stagewise)
register_bounds(
    FunctionClassInstance,
    "stage-wise bandits over a function class (stagewise/finite-class)",
    _function_class,
)
