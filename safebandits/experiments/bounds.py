"""Theory quantities of the regret settings, for ``safebandits bounds``.

Pure-exploration instances have their own modules (:mod:`safebandits.problems.cbai_bounds` for
constrained best-arm identification, :mod:`safebandits.problems.beside_bounds` for BESIDE). For the
regret settings the quantities each paper gives are computed by the paper's learner itself, built on the
instance's public view, so ``bounds`` reports exactly the values a run uses:

- safe linear bandits (Safe-LUCB, Amani et al.): ``T_Delta``, ``T0`` (and ``T0_numerical``), ``beta_T``,
  ``lambda_minus``, Lemma 1's ``t_delta``;
- stage-wise constrained bandits (OPB / OPLB / OPNLB, Pacchiano et al.): the optimism factors
  ``alpha_r`` / ``alpha_c``, ``delta_prime``, the radii ``beta_r`` / ``beta_c`` or the function-class
  radii ``radius_r`` / ``radius_c``;
- constrained kernelized bandits (CKB, Zhou and Ji): the Slater constant, the dual bound ``rho`` and
  the first-round widths ``beta`` / ``beta_g`` (they grow with the information gain of the data).

Other kinds (classification pools, the driving task) have no bound in their paper: asking for one is a
one-line :class:`~safebandits.exceptions.ConfigError` naming the kinds that have.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from safebandits.exceptions import ConfigError

__all__ = ["BOUND_KINDS", "regret_bounds"]

#: Instance class -> the learners whose theory quantities ``bounds`` reports.
_REGRET_FAMILIES: dict[str, tuple[str, ...]] = {
    "SafeLinearInstance": ("safe-lucb",),
    "StagewiseInstance": ("opb", "oplb"),
    "FunctionClassInstance": ("opnlb",),
    "KernelInstance": ("ckb-ucb",),
}

#: A learner's settings tried, in order, when its default refuses an instance: Safe-LUCB's default
#: exploration length T_Delta needs a positive safety gap; on a zero-gap instance (Theorem 3) the bounds
#: are those of T' = T_0.
_FALLBACK_CONFIGS: dict[str, tuple[dict[str, Any], ...]] = {"safe-lucb": ({"t_prime": "t0"},)}

#: One line naming the kinds of problem that have bounds.
BOUND_KINDS = (
    "bounds exist for constrained best-arm identification (acol/*), transductive designs (beside/*), "
    "safe linear bandits (safelucb/*), stage-wise constrained bandits (stagewise/*) and constrained "
    "kernelized bandits (ckb/*)"
)


def is_regret_instance(instance: Any) -> bool:
    return type(instance).__name__ in _REGRET_FAMILIES


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


def regret_bounds(name: str, instance: Any, *, delta: float | None = None) -> dict[str, Any]:
    """Theory quantities of a regret instance, per learner of its paper.

    Raises
    ------
    ConfigError
        If the instance is of a kind without bounds.
    """
    from safebandits.algorithms.registry import get_algorithm, make_learner

    kind = type(instance).__name__
    if kind not in _REGRET_FAMILIES:
        raise ConfigError(f"Instance {name!r} (a {kind}) has no bounds in its paper; {BOUND_KINDS}.")
    out: dict[str, Any] = {"kind": kind, "horizon": getattr(instance, "horizon", None)}
    refusals = []
    for alg in _REGRET_FAMILIES[kind]:
        entry = get_algorithm(alg)
        fields = {f.name for f in dataclasses.fields(entry.cls.config_cls)}
        config = {"delta": delta} if delta is not None and "delta" in fields else {}
        info = instance.privileged_info() if entry.privileged else instance.public_info()
        learner = None
        for extra in ({}, *_FALLBACK_CONFIGS.get(alg, ())):
            try:
                learner = make_learner(alg, info, np.random.default_rng(0), {**config, **extra})
                break
            except ConfigError as exc:  # (e.g. OPB needs a K-armed problem; OPLB a linear one)
                if not extra:
                    refusals.append(f"{alg}: {exc}")
        if learner is None:
            continue
        values = dict(learner.diagnostics()) if hasattr(learner, "diagnostics") else {}
        settings = {"settings": extra} if extra else {}  # the fallback that was accepted
        out[alg] = {"delta": getattr(learner.config, "delta", None), **settings, **_scalars(values)}
    if not any(alg in out for alg in _REGRET_FAMILIES[kind]):
        raise ConfigError(f"No learner of {name!r}'s paper accepts it: {'; '.join(refusals)}")
    return out
