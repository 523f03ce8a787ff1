"""``safebandits bounds`` of the Safe-LUCB paper's instances, as Safe-LUCB computes them: ``T_Delta``,
``T0`` (and ``T0_numerical``), ``beta_T``, ``lambda_minus``, Lemma 1's ``t_delta``.

Safe-LUCB's default exploration length ``T_Delta`` needs a positive safety gap; on a zero-gap instance
(Theorem 3) the bounds are those of ``T' = T_0`` (the fallback setting, reported as ``settings``).
"""

from __future__ import annotations

from typing import Any

from safebandits.experiments.bounds import learner_quantities, register_bounds
from safebandits.problems.safe_linear import SafeLinearInstance

__all__: list[str] = []


def _bounds(name: str, instance: Any, *, delta: float | None = None) -> dict[str, Any]:
    return learner_quantities(
        name, instance, ("safe-lucb",), delta=delta, fallbacks={"safe-lucb": ({"t_prime": "t0"},)}
    )


register_bounds(SafeLinearInstance, "safe linear bandits (safelucb/*)", _bounds)
