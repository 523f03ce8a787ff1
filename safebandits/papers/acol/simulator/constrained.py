"""Constrained driving optima: ``max theta^T f(pi)`` s.t. ``phi^T f(pi) <= tau`` (reference of Figure 4).

Two solvers (``docs/decisions/acol.md``, "Driving: constrained reference solver"):

- ``"wen-topcu"``: the authors' constrained CEM (:func:`~safebandits.papers.acol.simulator.cem.cem`, Wen &
  Topcu elite rule), best of ``n_restarts``.
- ``"warm-polish"`` (ours): (1) *seeds* -- in one vectorised batch, ``n_restarts`` Wen & Topcu CEM runs
  and ``warm_restarts`` penalised CEM runs (``theta^T f - lambda phi^T f``) for every ``lambda`` of a
  grid (default 0, 0.1, ..., 3); (2) the ``n_starts`` best *feasible* seeds (highest reward) are
  *polished* by :func:`polish_feasible`, an elitist local search that only ever moves to a feasible
  policy with a higher reward; (3) the best polished policy is returned. Every result is feasible by
  construction whenever any seed is; the answer is never worse than the best feasible seed.

The polish is derivative-free on purpose: three features are indicators (off street, backwards, too
fast) and "not in lane" is a sigmoid of slope ``10^4`` (flat almost everywhere, a cliff within 1 mm of
a lane centre with the paper's constants), so gradients are zero or huge almost everywhere, while a
feasible-only (1 + lambda) search moves along the constraint boundary in small steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from safebandits._validation import check_choice, check_int, check_positive
from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator.cem import CEMConfig, CEMResult, cem, cem_batch
from safebandits.papers.acol.simulator.dynamics import DrivingConfig, Scenario
from safebandits.papers.acol.simulator.features import policy_features
from safebandits.types import FloatArray

__all__ = [
    "CONSTRAINED_SOLVERS",
    "WARM_PENALTIES",
    "PolishConfig",
    "constrained_optimum",
    "polish_feasible",
]

ConstrainedSolver = Literal["warm-polish", "wen-topcu"]
CONSTRAINED_SOLVERS: tuple[str, ...] = get_args(ConstrainedSolver)
#: Penalties of the penalised CEM seeds of "warm-polish" (0, 0.1, ..., 3).
WARM_PENALTIES = tuple(round(0.1 * k, 1) for k in range(31))


@dataclass(frozen=True, kw_only=True, slots=True)
class PolishConfig:
    """Settings of the ``"warm-polish"`` solver (seeds and local search).

    Parameters
    ----------
    penalties : tuple of float >= 0, default 0, 0.1, ..., 3
        ``lambda`` grid of the penalised CEM seeds.
    warm_restarts : int >= 0, default 3
        Penalised CEM runs per ``lambda`` (0: Wen & Topcu seeds only).
    n_starts : int >= 1, default 3
        Best feasible seeds that are polished.
    n_iterations : int >= 0, default 300
        Iterations of the local search (0: no polish).
    n_samples : int >= 1, default 100
        Perturbations evaluated per iteration and start.
    step : float > 0, default 0.05
        Initial standard deviation of a perturbed action.
    fraction : float in (0, 1], default 0.25
        Probability that an action is perturbed in a sample (sparse moves keep most of the policy).
    """

    penalties: tuple[float, ...] = WARM_PENALTIES
    warm_restarts: int = 3
    n_starts: int = 3
    n_iterations: int = 300
    n_samples: int = 100
    step: float = 0.05
    fraction: float = 0.25

    def __post_init__(self) -> None:
        owner = "PolishConfig"
        if not self.penalties and self.warm_restarts > 0:
            raise ConfigError(f"{owner}: penalties must not be empty when warm_restarts > 0.")
        for lam in self.penalties:
            check_positive(lam, "penalties", owner=owner, allow_zero=True)
        check_int(self.warm_restarts, "warm_restarts", low=0, owner=owner)
        check_int(self.n_starts, "n_starts", low=1, owner=owner)
        check_int(self.n_iterations, "n_iterations", low=0, owner=owner)
        check_int(self.n_samples, "n_samples", low=1, owner=owner)
        check_positive(self.step, "step", owner=owner)
        check_positive(self.fraction, "fraction", owner=owner)
        if self.fraction > 1.0:
            raise ConfigError(f"{owner}: fraction must lie in (0, 1]; got {self.fraction}.")


#: Bounds of the adaptive step of :func:`polish_feasible` and its factors after a success / failure.
_STEP_MIN, _STEP_MAX, _GROW, _SHRINK = 1e-4, 0.5, 1.3, 0.85


def polish_feasible(
    scenario: Scenario,
    policies: FloatArray,
    rngs: list[np.random.Generator],
    *,
    env: DrivingConfig | None = None,
    n_iterations: int = 300,
    n_samples: int = 100,
    step: float = 0.05,
    fraction: float = 0.25,
    reward: FloatArray | None = None,
    constraint: FloatArray | None = None,
    threshold: float | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Feasible-only local search from feasible policies, vectorised over starts.

    Every iteration perturbs each start's policy ``n_samples`` times (each action with probability
    ``fraction``, by ``N(0, step^2)``, then clipped to ``[-1, 1]``) and moves to the best feasible
    perturbation if it earns more reward; the step grows by 1.3 after a move and shrinks by 0.85
    otherwise (within ``[1e-4, 0.5]``).

    Parameters
    ----------
    scenario : Scenario
    policies : ndarray of shape (B, horizon, 2)
        Feasible start policies.
    rngs : list of B numpy.random.Generator
        One per start (a start's result does not depend on the batch).
    env : DrivingConfig, optional
    n_iterations, n_samples, step, fraction
        See :class:`PolishConfig`.
    reward, constraint, threshold : optional
        Override the scenario's theta (8,), phi (8,) and tau.

    Returns
    -------
    policies : ndarray of shape (B, horizon, 2)
    rewards : ndarray of shape (B,)

    Raises
    ------
    ConfigError
        A start policy is infeasible.
    """
    env = DrivingConfig() if env is None else env
    theta = scenario.reward if reward is None else np.asarray(reward, dtype=np.float64)
    phi = scenario.constraint if constraint is None else np.asarray(constraint, dtype=np.float64)
    tau = scenario.threshold if threshold is None else float(threshold)
    x = np.asarray(policies, dtype=np.float64).reshape(len(rngs), -1).copy()
    n_starts, dim = x.shape
    if dim != env.horizon * 2:
        raise ConfigError(f"polish_feasible: policies must have shape (B, {env.horizon}, 2).")
    feats = policy_features(x.reshape(n_starts, env.horizon, 2), scenario, env, check=False)[:, :8]
    if np.any(feats @ phi > tau):
        raise ConfigError("polish_feasible: every start policy must be feasible.")
    best = feats @ theta
    sigma = np.full(n_starts, float(step))
    for _ in range(n_iterations):
        moves = np.stack(
            [g.standard_normal((n_samples, dim)) * (g.random((n_samples, dim)) < fraction) for g in rngs]
        )
        cand = np.clip(x[:, None] + sigma[:, None, None] * moves, -1.0, 1.0)
        f = policy_features(cand.reshape(-1, env.horizon, 2), scenario, env, check=False)[:, :8]
        f = f.reshape(n_starts, n_samples, 8)
        obj = np.where(f @ phi <= tau, f @ theta, -np.inf)
        j = np.argmax(obj, axis=1)
        top = obj[np.arange(n_starts), j]
        moved = top > best
        x[moved] = cand[moved, j[moved]]
        best[moved] = top[moved]
        sigma = np.clip(np.where(moved, sigma * _GROW, sigma * _SHRINK), _STEP_MIN, _STEP_MAX)
    return x.reshape(n_starts, env.horizon, 2), best


def constrained_optimum(
    scenario: Scenario,
    rng: np.random.Generator,
    *,
    solver: ConstrainedSolver = "warm-polish",
    config: CEMConfig | None = None,
    env: DrivingConfig | None = None,
    n_restarts: int = 10,
    polish: PolishConfig | None = None,
) -> tuple[CEMResult, dict[str, Any]]:
    """Approximate the constrained optimum of a scenario (see the module docstring).

    Parameters
    ----------
    scenario : Scenario
    rng : numpy.random.Generator
    solver : {"warm-polish", "wen-topcu"}
    config : CEMConfig, optional
        Iterations, samples, elites and initial spread of every CEM run (``mode`` is ignored).
    env : DrivingConfig, optional
    n_restarts : int >= 1
        Wen & Topcu CEM restarts.
    polish : PolishConfig, optional
        Settings of "warm-polish".

    Returns
    -------
    result : CEMResult
        The solution (batch dimension 1); ``feasible`` False only if no feasible policy was found.
    info : dict
        ``evaluations`` (policies rolled out) and, for "warm-polish", ``wen_topcu_reward`` (best
        feasible Wen & Topcu seed, None if none), ``best_seed_reward``, ``best_seed_source``
        (``"wen-topcu"`` or ``"penalised:<lambda>"``) and ``polished_reward``.

    Examples
    --------
    >>> from safebandits.papers.acol.simulator import get_scenario
    >>> small = CEMConfig(n_iterations=5)
    >>> pol = PolishConfig(penalties=(1.0,), warm_restarts=1, n_starts=1, n_iterations=5)
    >>> res, info = constrained_optimum(get_scenario("base"), np.random.default_rng(0), config=small,
    ...                                 n_restarts=1, polish=pol)
    >>> res.policies.shape, sorted(info)[0]
    ((1, 20, 2), 'best_seed_reward')
    """
    check_choice(solver, "solver", ConstrainedSolver, owner="constrained_optimum")
    n_restarts = check_int(n_restarts, "n_restarts", low=1, owner="constrained_optimum")
    base = CEMConfig() if config is None else config
    cem_cfg = CEMConfig(
        mode="constrained",
        n_iterations=base.n_iterations,
        n_samples=base.n_samples,
        n_elite=base.n_elite,
        init_std=base.init_std,
    )
    env = DrivingConfig() if env is None else env
    per_run = cem_cfg.n_iterations * cem_cfg.n_samples
    if solver == "wen-topcu":
        res = cem(scenario, rng, config=cem_cfg, env=env, n_restarts=n_restarts)
        return res, {"evaluations": n_restarts * per_run}
    pol = PolishConfig() if polish is None else polish
    seed_rng, polish_rng = rng.spawn(2)
    lams = np.repeat(np.asarray(pol.penalties, dtype=np.float64), pol.warm_restarts)
    n_problems = n_restarts + lams.size
    constrained = np.arange(n_problems) < n_restarts
    seeds = cem_batch(
        scenario,
        np.tile(scenario.reward, (n_problems, 1)),
        scenario.constraint,
        np.full(n_problems, scenario.threshold),
        constrained,
        np.concatenate([np.zeros(n_restarts), lams]),
        list(seed_rng.spawn(n_problems)),
        config=cem_cfg,
        env=env,
    )
    feasible = seeds.constraints <= scenario.threshold
    info: dict[str, Any] = {"evaluations": n_problems * per_run}
    wt = np.where(constrained & feasible, seeds.rewards, -np.inf)
    info["wen_topcu_reward"] = float(wt.max()) if np.isfinite(wt.max()) else None
    if not feasible.any():  # nothing to polish: the least-violating Wen & Topcu result
        k = int(np.argmin(np.where(constrained, seeds.constraints, np.inf)))
        info.update(best_seed_reward=None, best_seed_source=None, polished_reward=None)
        return _pick(seeds, k), info
    order = np.argsort(-np.where(feasible, seeds.rewards, -np.inf), kind="stable")
    starts = order[: min(pol.n_starts, int(feasible.sum()))]
    k0 = int(starts[0])
    info["best_seed_reward"] = float(seeds.rewards[k0])
    info["best_seed_source"] = "wen-topcu" if constrained[k0] else f"penalised:{lams[k0 - n_restarts]:g}"
    policies, rewards = polish_feasible(
        scenario,
        seeds.policies[starts],
        list(polish_rng.spawn(starts.size)),
        env=env,
        n_iterations=pol.n_iterations,
        n_samples=pol.n_samples,
        step=pol.step,
        fraction=pol.fraction,
    )
    info["evaluations"] += starts.size * (1 + pol.n_iterations * pol.n_samples)
    k = int(np.argmax(rewards))
    feats = policy_features(policies[k : k + 1], scenario, env, check=False)
    info["polished_reward"] = float(rewards[k])
    result = CEMResult(
        policies=policies[k : k + 1],
        features=feats,
        rewards=feats[:, :8] @ scenario.reward,
        constraints=feats[:, :8] @ scenario.constraint,
        feasible=np.array([True]),
    )
    return result, info


def _pick(res: CEMResult, k: int) -> CEMResult:
    return CEMResult(
        policies=res.policies[k : k + 1],
        features=res.features[k : k + 1],
        rewards=res.rewards[k : k + 1],
        constraints=res.constraints[k : k + 1],
        feasible=np.array([False]),
    )
