"""Theorem 1 of Amani et al. (2019) as an audit run: is ``mu`` in the confidence ellipsoid at every round?

Theorem 1 (citing Abbasi-Yadkori et al. 2011): with probability at least ``1 - delta``, ``mu in C_t`` for
all ``t > 0``, where ``C_t = {v : ||v - mu_hat_t||_{A_t} <= beta_t}`` (eq. 6) and ``beta_t`` is eq. (7)
(digest ``safe_lucb.md`` section 5.4). Checking it needs the learner's estimate at *every* round, which
the compiled regret loop does not expose (it plays blocks of rounds). The audit is therefore a solver run
(:mod:`safebandits.experiments.solvers`): it drives a Safe-LUCB learner by plain ask / ``env.play`` /
tell for the instance's horizon and, before each round ``t``, reads the learner's own ``C_t`` through its
public :meth:`~safebandits.algorithms.regret.safe_lucb.SafeLUCB.estimated_safe_set` (``theta``, ``a``,
``beta``) and tests the true ``mu`` against it. The truth stays with the audit; the learner never sees it.

Metrics stored per run: ``confidence_rounds`` (rounds checked, ``T``), ``confidence_failures`` (rounds
with ``mu`` outside ``C_t``), ``confidence_first_failure`` (the first such round, ``None`` if none) and
``confidence_min_slack`` (the least ``1 - ||mu_hat_t - mu||_{A_t} / beta_t`` over the rounds; negative
iff some round fails), besides ``regret`` and ``violations`` of the audited run.

The audit's randomness: the solver's generator (``learner_rng`` of the run key) is spawned into the
environment's and the learner's streams, so a run is a pure function of its run key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from safebandits.experiments.solvers import register_solver

__all__ = ["CONFIDENCE_AUDIT", "ConfidenceAuditConfig", "audit_confidence"]

#: Name of the solver (the ``name`` of an ``AlgorithmSpec``).
CONFIDENCE_AUDIT = "safe-lucb-confidence-audit"

#: Relative tolerance of the membership test ``||mu_hat - mu||_A <= beta (1 + REL_TOL)`` (rounding only).
REL_TOL = 1e-9


@dataclass(frozen=True)
class ConfidenceAuditConfig:
    """The audited learner's settings (a :class:`~safebandits.algorithms.regret.safe_lucb.SafeLUCBConfig`
    subset): the exploration length rule ``t_prime``, the confidence level ``delta`` of ``beta_t`` and the
    ridge ``reg`` (lambda)."""

    t_prime: Literal["t_delta", "t0", "t0-numerical", "none"] = "t_delta"
    delta: float = 0.01
    reg: float = 1.0


def audit_confidence(
    instance: Any, config: ConfidenceAuditConfig, rng: np.random.Generator
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play Safe-LUCB for ``instance.horizon`` rounds and count the rounds whose ``C_t`` misses ``mu``."""
    from safebandits.algorithms.registry import make_learner

    env_rng, learner_rng = rng.spawn(2)
    env = instance.environment(env_rng)
    params = {"t_prime": config.t_prime, "delta": config.delta, "reg": config.reg}
    learner = make_learner("safe-lucb", instance.public_info(), learner_rng, params)
    mu = np.asarray(instance.mu, dtype=np.float64)
    horizon = int(instance.horizon)
    failures, first, min_slack = 0, None, math.inf
    points = np.empty((horizon, mu.shape[0]))
    for t in range(1, horizon + 1):
        est = learner.estimated_safe_set()  # C_t: mu_hat_t, A_t, beta_t before round t's sample
        err = est["theta"] - mu
        dist = math.sqrt(max(float(err @ est["a"] @ err), 0.0))
        slack = 1.0 - dist / est["beta"]
        min_slack = min(min_slack, slack)
        if dist > est["beta"] * (1.0 + REL_TOL):
            failures += 1
            first = t if first is None else first
        decision = learner.ask()
        points[t - 1] = env.point_of(decision)
        learner.tell(decision, env.play(decision))
    losses = instance.losses(points)
    metrics = {
        "samples": horizon,
        "confidence_rounds": horizon,
        "confidence_failures": failures,
        "confidence_first_failure": first,
        "confidence_min_slack": min_slack,
        "regret": float(np.sum(losses) - horizon * instance.optimal_loss),
        "violations": int(np.sum(~instance.in_safe_set(points))),
    }
    return metrics, {"instance": {"name": instance.name, "mu": mu.tolist()}}


register_solver(CONFIDENCE_AUDIT, ConfidenceAuditConfig)(audit_confidence)
