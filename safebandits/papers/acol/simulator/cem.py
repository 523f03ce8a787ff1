"""Cross-entropy method for open-loop driving policies (Lindner et al. 2022, App. C; Algorithm 4).

The cross-entropy method (Rubinstein & Kroese 2004) keeps a diagonal Gaussian over the flattened
policy (``horizon x 2`` actions). Each iteration samples ``n_samples`` policies, clips them to
``[-1, 1]``, evaluates their features and refits the Gaussian to ``n_elite`` of them:

- ``"unconstrained"`` and ``"penalised"``: the elites maximise ``theta^T f`` (penalised:
  ``theta^T f - lambda phi^T f``);
- ``"constrained"`` (Wen & Topcu 2020): sort by constraint value ``phi^T f``; if the ``n_elite``-th
  smallest exceeds the threshold, the elites are the ``n_elite`` least-violating samples, otherwise the
  ``n_elite`` feasible samples with the highest reward.

The best feasible sample seen (highest reward) is returned; the environment is deterministic.
:func:`cem_batch` runs many independent problems at once (one generator each), vectorised over
problems x samples.

Deviations: when no sample is ever feasible the authors return the all-zero initial mean; we return the
least-violating sample seen and report ``feasible=False`` (``docs/decisions/acol.md``, "Driving: CEM").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from safebandits._validation import check_int, check_literal_fields, check_positive
from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator.dynamics import DrivingConfig, Scenario
from safebandits.papers.acol.simulator.features import policy_features
from safebandits.types import FloatArray

__all__ = ["CEMConfig", "CEMResult", "cem", "cem_batch"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CEMConfig:
    """Settings of the cross-entropy method (defaults: the authors' code).

    Parameters
    ----------
    mode : {"constrained", "unconstrained", "penalised"}, default "constrained"
    penalty : float >= 0, default 0.0
        ``lambda`` of the penalised objective ``theta^T f - lambda phi^T f`` (mode "penalised").
    n_iterations : int >= 1, default 50
    n_samples : int >= 2, default 50
    n_elite : int in [1, n_samples], default 5
    init_std : float > 0, default 5.0
        Initial standard deviation of every action (initial mean 0).
    """

    mode: Literal["constrained", "unconstrained", "penalised"] = "constrained"
    penalty: float = 0.0
    n_iterations: int = 50
    n_samples: int = 50
    n_elite: int = 5
    init_std: float = 5.0

    def __post_init__(self) -> None:
        owner = "CEMConfig"
        check_literal_fields(self, owner=owner)
        check_positive(self.penalty, "penalty", owner=owner, allow_zero=True)
        check_int(self.n_iterations, "n_iterations", low=1, owner=owner)
        check_int(self.n_samples, "n_samples", low=2, owner=owner)
        check_int(self.n_elite, "n_elite", low=1, high=self.n_samples, owner=owner)
        check_positive(self.init_std, "init_std", owner=owner)


@dataclass(frozen=True, slots=True)
class CEMResult:
    """Best policies of a batch of CEM problems.

    Attributes
    ----------
    policies : ndarray of shape (B, horizon, 2)
    features : ndarray of shape (B, 9)
    rewards : ndarray of shape (B,)
        ``theta^T f`` (without penalty).
    constraints : ndarray of shape (B,)
        ``phi^T f`` (over the 8 summed features).
    feasible : ndarray of bool, shape (B,)
        Whether a sample with constraint value <= threshold was found (always True unconstrained).
    """

    policies: FloatArray
    features: FloatArray
    rewards: FloatArray
    constraints: FloatArray
    feasible: np.ndarray


def cem_batch(
    scenario: Scenario,
    reward: FloatArray,
    constraint: FloatArray,
    threshold: FloatArray,
    modes: np.ndarray,
    penalties: FloatArray,
    rngs: list[np.random.Generator],
    *,
    config: CEMConfig | None = None,
    env: DrivingConfig | None = None,
    progress: bool = False,
) -> CEMResult:
    """Run ``B`` independent CEM problems in one scenario, vectorised over problems and samples.

    Parameters
    ----------
    scenario : Scenario
        Start state and other cars (its own reward vector is not used: see ``reward``).
    reward, constraint : ndarray of shape (B, 8)
        Per-problem reward weights theta and constraint weights phi (over the 8 summed features).
    threshold : ndarray of shape (B,)
        Per-problem threshold tau (constrained problems).
    modes : ndarray of bool, shape (B,)
        ``True`` for a constrained problem; ``False`` maximises ``(theta - penalty phi)^T f``.
    penalties : ndarray of shape (B,)
        Penalty ``lambda`` of the unconstrained problems (0 for plain maximisation).
    rngs : list of B numpy.random.Generator
        One generator per problem, so that a problem's result does not depend on the batch.
    config : CEMConfig, optional
        Iterations, samples, elites and initial spread (``mode`` / ``penalty`` are ignored here).
    env : DrivingConfig, optional
    progress : bool
        Show a tqdm progress bar over the iterations.
    """
    cfg = CEMConfig() if config is None else config
    env = DrivingConfig() if env is None else env
    reward = np.atleast_2d(np.asarray(reward, dtype=np.float64))
    n_problems = reward.shape[0]
    constraint = np.broadcast_to(np.asarray(constraint, dtype=np.float64), (n_problems, 8))
    threshold = np.broadcast_to(np.asarray(threshold, dtype=np.float64), (n_problems,))
    constrained = np.broadcast_to(np.asarray(modes, dtype=bool), (n_problems,))
    penalties = np.broadcast_to(np.asarray(penalties, dtype=np.float64), (n_problems,))
    if len(rngs) != n_problems:
        raise ConfigError(f"cem_batch needs one generator per problem ({n_problems}); got {len(rngs)}.")
    objective = reward - np.where(constrained, 0.0, penalties)[:, None] * constraint
    n_s, n_e, dim = cfg.n_samples, cfg.n_elite, env.horizon * 2
    mu = np.zeros((n_problems, dim))
    std = np.full((n_problems, dim), cfg.init_std)
    best = np.zeros((n_problems, dim))
    best_obj = np.full(n_problems, -np.inf)
    best_viol = np.full(n_problems, np.inf)  # least constraint value seen while nothing is feasible
    found = ~constrained.copy()
    rows = np.arange(n_problems)[:, None]
    iterator = range(cfg.n_iterations)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc=f"CEM {scenario.name} ({n_problems} problems)", leave=False)
    for _ in iterator:
        noise = np.stack([g.standard_normal((n_s, dim)) for g in rngs])
        samples = np.clip(mu[:, None] + std[:, None] * noise, -1.0, 1.0)
        feats = policy_features(samples.reshape(-1, env.horizon, 2), scenario, env, check=False)[:, :8]
        feats = feats.reshape(n_problems, n_s, 8)
        obj = np.einsum("bsk,bk->bs", feats, objective)
        cons = np.einsum("bsk,bk->bs", feats, constraint)
        ok = ~constrained[:, None] | (cons <= threshold[:, None])
        # best feasible sample so far
        cand = np.where(ok, obj, -np.inf)
        j = np.argmax(cand, axis=1)
        c_best = cand[rows[:, 0], j]
        better = c_best > best_obj
        best[better] = samples[better, j[better]]
        best_obj[better] = c_best[better]
        found |= np.isfinite(best_obj)
        # least-violating sample while nothing feasible was found
        jv = np.argmin(cons, axis=1)
        v_best = cons[rows[:, 0], jv]
        fallback = ~found & (v_best < best_viol)
        best[fallback] = samples[fallback, jv[fallback]]
        best_viol[fallback] = v_best[fallback]
        # elites
        by_obj = np.argsort(-obj, axis=1, kind="stable")[:, :n_e]
        order_c = np.argsort(cons, axis=1, kind="stable")
        kth = cons[rows[:, 0], order_c[:, n_e - 1]]
        by_feasible_obj = np.argsort(np.where(ok, -obj, np.inf), axis=1, kind="stable")[:, :n_e]
        cons_elite = np.where((kth > threshold)[:, None], order_c[:, :n_e], by_feasible_obj)
        elite_idx = np.where(constrained[:, None], cons_elite, by_obj)
        elites = samples[rows, elite_idx]
        mu = elites.mean(axis=1)
        std = elites.std(axis=1)
    policies = best.reshape(n_problems, env.horizon, 2)
    feats = policy_features(policies, scenario, env, check=False)
    return CEMResult(
        policies=policies,
        features=feats,
        rewards=np.einsum("bk,bk->b", feats[:, :8], reward),
        constraints=np.einsum("bk,bk->b", feats[:, :8], constraint),
        feasible=found.copy(),
    )


def cem(
    scenario: Scenario,
    rng: np.random.Generator,
    *,
    config: CEMConfig | None = None,
    env: DrivingConfig | None = None,
    reward: FloatArray | None = None,
    constraint: FloatArray | None = None,
    threshold: float | None = None,
    n_restarts: int = 1,
    progress: bool = False,
) -> CEMResult:
    """Optimise one scenario's policy with CEM (best of ``n_restarts`` independent restarts).

    Parameters
    ----------
    scenario : Scenario
    rng : numpy.random.Generator
    config : CEMConfig, optional
        ``mode`` "constrained" (default), "unconstrained" or "penalised" (with ``penalty``).
    env : DrivingConfig, optional
    reward, constraint, threshold : optional
        Override the scenario's theta (8,), phi (8,) and tau.
    n_restarts : int >= 1
        Restarts run in one batch; the best feasible result (highest objective) is returned (the
        authors' Figure 4 script uses 10).

    Returns
    -------
    CEMResult
        With a batch dimension of 1.

    Examples
    --------
    >>> import numpy as np
    >>> from safebandits.papers.acol.simulator import get_scenario
    >>> res = cem(get_scenario("base"), np.random.default_rng(0), config=CEMConfig(n_iterations=5))
    >>> res.policies.shape
    (1, 20, 2)
    """
    cfg = CEMConfig() if config is None else config
    n_restarts = check_int(n_restarts, "n_restarts", low=1, owner="cem")
    theta = scenario.reward if reward is None else np.asarray(reward, dtype=np.float64)
    phi = scenario.constraint if constraint is None else np.asarray(constraint, dtype=np.float64)
    tau = scenario.threshold if threshold is None else float(threshold)
    constrained = cfg.mode == "constrained"
    penalty = cfg.penalty if cfg.mode == "penalised" else 0.0
    rngs = list(rng.spawn(n_restarts))
    res = cem_batch(
        scenario,
        np.tile(theta, (n_restarts, 1)),
        phi,
        np.full(n_restarts, tau),
        np.full(n_restarts, constrained),
        np.full(n_restarts, penalty),
        rngs,
        config=cfg,
        env=env,
        progress=progress,
    )
    score = res.rewards - (0.0 if constrained else penalty * res.constraints)
    if constrained:
        score = np.where(res.feasible, score, -np.inf)
        if not res.feasible.any():
            score = -res.constraints
    k = int(np.argmax(score))
    return CEMResult(
        policies=res.policies[k : k + 1],
        features=res.features[k : k + 1],
        rewards=res.rewards[k : k + 1],
        constraints=res.constraints[k : k + 1],
        feasible=res.feasible[k : k + 1],
    )
