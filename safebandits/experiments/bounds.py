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
- constrained kernelized bandits (CKB, Zhou and Ji): the Slater constant, the dual bound ``rho``, ``V``
  (``step``), and at the horizon ``T`` the information gains ``gamma_T`` / ``gamma_g_T`` that the learner
  uses (its ``info_gain`` mode) with the widths ``beta_T`` / ``beta_g_T`` of round ``T`` (from
  ``gamma_{T-1}``), the greedy estimates of the kernels' maximum information gain at ``T``
  (``gamma_T_greedy`` / ``gamma_g_T_greedy``, Theorem 1's ``gamma_T``) and the first-round widths
  ``beta_1`` / ``beta_g_1``.

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


def _kernel_horizon(learner: Any, values: dict[str, Any]) -> dict[str, Any]:
    """CKB's theory quantities at the horizon ``T`` (issue 31): ``gamma_T`` as the learner computes it
    (``"heuristic"``: ``log(1 + T)``; ``"greedy"``: the kernel's greedy information gain; ``"realised"``
    depends on the data, so the greedy value stands in and ``gamma_source`` says so), ``beta_T`` from
    ``gamma_{T-1}`` (Theorem 1), the greedy ``gamma_T`` of both kernels, and the first-round widths."""
    from safebandits.estimators.gp import InformationGain, beta_width, greedy_information_gain

    c, info, t = learner.config, learner.info, int(learner.horizon)
    out = {k: v for k, v in values.items() if k not in ("beta", "beta_g")}
    mode = c.info_gain
    gains = {}
    for key, gp in (("f", learner.gp_f), ("g", learner.gp_g)):
        greedy = greedy_information_gain(gp.kernel, gp.noise_var, t)
        used = greedy if mode != "heuristic" else None
        if used is None:
            gain = InformationGain("heuristic", gp.kernel, gp.noise_var, t)
            used = np.array([gain(t - 1), gain(t)])
        gains[key] = (float(used[-2]), float(used[-1]), float(greedy[t]))
    bound_f, noise_f = float(info.reward_bound), float(info.noise_bound)
    bound_g, noise_g = float(info.constraint_bound), float(info.constraint_noise_bound)
    out.update(
        info_gain=mode,
        gamma_source="greedy (the realised gain is known only after a run)" if mode == "realised" else mode,
        gamma_T=gains["f"][1],
        gamma_g_T=gains["g"][1],
        beta_T=beta_width(bound_f, noise_f, gains["f"][0], c.delta, c.beta_scale),
        beta_g_T=beta_width(bound_g, noise_g, gains["g"][0], c.delta, c.beta_scale),
        gamma_T_greedy=gains["f"][2],
        gamma_g_T_greedy=gains["g"][2],
        beta_1=values.get("beta"),
        beta_g_1=values.get("beta_g"),
    )
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
        labels = {}
        if kind == "KernelInstance":
            values = _kernel_horizon(learner, values)
            labels = {k: values.pop(k) for k in ("info_gain", "gamma_source")}
        settings = {"settings": extra} if extra else {}  # the fallback that was accepted
        out[alg] = {"delta": getattr(learner.config, "delta", None), **settings, **labels, **_scalars(values)}
    if not any(alg in out for alg in _REGRET_FAMILIES[kind]):
        raise ConfigError(f"No learner of {name!r}'s paper accepts it: {'; '.join(refusals)}")
    return out
