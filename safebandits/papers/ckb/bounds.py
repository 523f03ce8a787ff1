"""``safebandits bounds`` of the CKB paper's instances: Zhou and Ji's quantities as CKB computes them.

The Slater constant, the dual bound ``rho``, ``V`` (``step``), and at the horizon ``T`` the information
gains ``gamma_T`` / ``gamma_g_T`` that the learner uses (its ``info_gain`` mode) with the widths
``beta_T`` / ``beta_g_T`` of round ``T`` (from ``gamma_{T-1}``), the greedy estimates of the kernels'
maximum information gain at ``T`` (``gamma_T_greedy`` / ``gamma_g_T_greedy``, Theorem 1's ``gamma_T``)
and the first-round widths ``beta_1`` / ``beta_g_1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from safebandits.experiments.bounds import learner_quantities, register_bounds
from safebandits.problems.kernel import KernelInstance

__all__ = ["ckb_bounds", "kernel_horizon"]


def kernel_horizon(learner: Any, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
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
    labels = {k: out.pop(k) for k in ("info_gain", "gamma_source")}
    return out, labels


def ckb_bounds(name: str, instance: Any, *, delta: float | None = None) -> dict[str, Any]:
    return learner_quantities(name, instance, ("ckb-ucb",), delta=delta, post=kernel_horizon)


register_bounds(KernelInstance, "constrained kernelized bandits (ckb/*)", ckb_bounds)
