"""SGP-UCB (Amani, Alizadeh & Thrampoulidis, L4DC 2020), the two-phase safe baseline of Zhou & Ji, Sec. 5.

Digest ``ckb.md`` §4.4, item 2 (the abstract confirms the two phases; the details are the digest's summary,
"verify"): from a known safe seed,

* **phase 1** (``T'`` rounds): random actions from the safe seed (uniform over its points), to learn ``g``;
  this is the "additional random initialization stage, which leads to linear regret at the beginning";
* **phase 2**: the pessimistic safe set ``D_t = {x : mu~_{t-1}(x) + beta~_t sigma~_{t-1}(x) <= 0}`` (the seed
  always included) and GP-UCB on ``f`` in it, ``x_t = argmax_{D_t} mu_{t-1} + beta_t sigma_{t-1}``.

Open parameters (``docs/decisions/ckb.md``): ``T'`` (default ``ceil(0.05 T)``), ``beta_t`` (CKB's formula and
options) and the seed (told by the instance).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numba
import numpy as np

from safebandits._numba import bind_kernel
from safebandits._validation import check_int, check_interval
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret._ckb_common import RoundDraws, _pick, stale_posterior
from safebandits.algorithms.regret.ckb import (
    GPBanditConfig,
    SafeSeedGPLearner,
    _check_updates,
    lazy_argmax,
    reward_and_constraint,
)
from safebandits.exceptions import ConfigError
from safebandits.records import Certificate
from safebandits.types import Decision

__all__ = ["SGPUCB", "SGPUCBConfig"]


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SGPUCBConfig(GPBanditConfig):
    """Configuration of :class:`SGPUCB`.

    Parameters
    ----------
    delta : float in (0, 1), default 0.05
        Failure probability in ``beta_t`` (CKB's formula).
    gp_noise : float > 0 or "theory", default 1.0
    info_gain : {"heuristic", "greedy", "realised"}, default "heuristic"
    beta_scale : float > 0, default 1.0
    exploration_fraction : float in [0, 1], default 0.05
        ``T' = ceil(exploration_fraction * T)`` rounds of phase 1.
    exploration_rounds : int >= 0 or None, default None
        ``T'`` directly (overrides the fraction).
    horizon : int >= 1 or None, default None
    updates : {"auto", "eager", "lazy"}, default "auto"
        As CKB's (:class:`~safebandits.algorithms.regret.ckb.CKBConfig`): ``"lazy"`` brings a point's
        posterior up to date only when it could be the round's choice (:func:`lazy_safe_bounds`; the
        same decisions as ``"eager"`` up to round-off); ``"auto"``: lazy on the low-rank posterior with
        known hyperparameters where a whole run is cheaper lazily (``T <= n`` and ``T n >= 1e6``; issue
        43, :func:`~safebandits.algorithms.regret.ckb.lazy_pays`).
    """

    exploration_fraction: float = 0.05
    exploration_rounds: int | None = None
    updates: Literal["auto", "eager", "lazy"] = "auto"

    def __post_init__(self) -> None:
        GPBanditConfig.__post_init__(self)  # (zero-argument super() fails in slotted dataclasses)
        owner = type(self).__name__
        check_interval(
            self.exploration_fraction, "exploration_fraction", low=0.0, high=1.0, closed="both", owner=owner
        )
        if self.exploration_rounds is not None:
            check_int(self.exploration_rounds, "exploration_rounds", low=0, owner=owner)
        _check_updates(self, owner)


@numba.njit(cache=True)
def lazy_safe_bounds(ub, pf, pg, beta, beta_g, seed):
    """Upper bounds of every point's SGP-UCB score (``mu + beta sigma`` in the safe set ``mu~ + beta~
    sigma~ <= 0`` or the seed, ``-inf`` elsewhere) from lazy posteriors of ``f`` and ``g`` as
    :class:`~safebandits.algorithms.regret._ckb_common.StalePosterior` records ``pf`` (arcs of ``beta``)
    and ``pg`` (arcs of ``-beta~``), written to ``ub``; ``seed`` the seed's mask (n,). ``O(n)``.

    As :func:`~safebandits.algorithms.regret.ckb.lazy_upper_bounds`: since a point's last update at step
    ``u``, ``mu_t + beta sigma_t <= mu_u + sigma_u pf.arc[u]`` and ``mu~_t + beta~ sigma~_t >= mu~_u -
    sigma~_u pg.arc[u]`` (:func:`~safebandits.algorithms.regret._ckb_common.arc_table`): a stale point
    whose lower bound is positive (by more than a relative ``1e-9``) is surely outside the safe set. A
    point up to date gets its exact score (the arithmetic of :meth:`SGPUCB.safe_set`).
    """
    mf, vf, fresh_f, arc_f, tf = pf.mean, pf.var, pf.fresh, pf.arc, pf.steps
    mg, vg, fresh_g, arc_g, tg = pg.mean, pg.var, pg.fresh, pg.arc, pg.steps
    for j in range(ub.shape[0]):
        sf = math.sqrt(max(vf[j], 0.0))
        sg = math.sqrt(max(vg[j], 0.0))
        if fresh_g[j] == tg:
            maybe_safe = mg[j] + beta_g * sg <= 0.0
        else:
            low = mg[j] - sg * arc_g[fresh_g[j]]
            maybe_safe = low - 1e-9 * (1.0 + abs(low)) <= 0.0
        if not (maybe_safe or seed[j]):
            ub[j] = -np.inf
        elif fresh_f[j] == tf:
            ub[j] = mf[j] + beta * sf
        else:
            s = mf[j] + sf * arc_f[fresh_f[j]]
            ub[j] = s + 1e-9 * (1.0 + abs(s))


@register_algorithm(
    "sgp-ucb",
    task="regret",
    description="SGP-UCB: random safe-seed exploration, then GP-UCB in the pessimistic safe set "
    "(Amani et al. 2020; baseline of Zhou & Ji, Sec. 5).",
    info="kernel",
    guarantee="round",
    assumptions=("rkhs", "noise", "safe-action", "slater"),
)
class SGPUCB(SafeSeedGPLearner):
    """SGP-UCB on a finite domain with a known safe seed (a hard-constraint baseline).

    Parameters
    ----------
    config : SGPUCBConfig
    info : KernelInfo
        Kernels, bounds, horizon and ``safe_seed`` (non-empty).
    rng : numpy.random.Generator
        Phase-1 draws and tie-breaking uniforms.

    Notes
    -----
    Glossary: ``T'`` -> ``self.exploration_rounds``; ``D_t`` -> :meth:`safe_set`.
    """

    config_cls = SGPUCBConfig
    setting = "round"
    owner = "SGP-UCB"

    def __init__(self, config: SGPUCBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        info = self.info
        c = config
        self.seed = np.asarray(info.safe_seed, dtype=np.int64)
        self.exploration_rounds = (
            int(c.exploration_rounds) if c.exploration_rounds is not None
            else math.ceil(c.exploration_fraction * self.horizon)
        )  # fmt: skip
        self._draws = RoundDraws(rng)
        self._scores = np.zeros(info.n_points)
        self._ub = np.zeros(info.n_points if self.lazy else 0)
        self._seed_mask = np.zeros(info.n_points if self.lazy else 0, dtype=np.bool_)
        self._bounds: Any = None  # (lazy_safe_bounds, bound on the first lazy round)
        if self.lazy:
            self._seed_mask[self.seed] = True
        if self.box is not None:  # a continuous domain (module docstring of .ckb_box)
            from safebandits.algorithms.regret.ckb_box import BoxAcquisition

            self.seed_points = np.asarray(info.points, dtype=np.float64)[self.seed]
            big_b, big_g = float(info.reward_bound), float(info.constraint_bound)
            self.search = BoxAcquisition(
                self.gp_f, self.gp_g, self.box, rng,
                constant=float(c.accuracy_c) if c.accuracy_c is not None else max(big_b, big_g),
                n_candidates=c.box_candidates, n_starts=c.box_starts, bounds=(big_b, big_g), truncate=False,
            )  # fmt: skip

    def safe_set(self) -> np.ndarray:
        """``D_t``: points whose upper confidence bound of ``g`` is at most 0, plus the seed (finite
        domains; on a box ``D_t`` is searched, not listed)."""
        if self.box is not None:
            raise ConfigError("SGP-UCB.safe_set lists a finite domain's points; on a box D_t is not listed.")
        _, beta_g = self.betas()
        mask = self.gp_g.mean + beta_g * self.gp_g.std() <= 0.0
        mask[self.seed] = True
        return mask

    @property
    def in_exploration(self) -> bool:
        return self.n_samples < self.exploration_rounds

    def diagnostics(self) -> dict[str, Any]:
        if self.box is not None:
            return {"exploration_rounds": self.exploration_rounds, **self.search.diagnostics()}
        return {"exploration_rounds": self.exploration_rounds, "safe_set_size": int(self.safe_set().sum())}

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError("SGP-UCB plays a fixed finite domain; ask() takes no context.")
        u, _ = self._draws.next()
        if self.box is not None:
            if self.in_exploration:
                return Decision(
                    point=self.seed_points[min(int(u * len(self.seed)), len(self.seed) - 1)].copy()
                )
            beta, beta_g = self.betas()
            return Decision(point=self.search.safe_ucb(self.n_samples + 1, beta, beta_g, self.seed_points, u))
        if self.in_exploration:
            return Decision(arm=int(self.seed[min(int(u * len(self.seed)), len(self.seed) - 1)]))
        if self.lazy:
            return Decision(arm=self._lazy_select(u))
        beta, _ = self.betas()
        scores = self._scores
        scores[:] = np.where(self.safe_set(), self.gp_f.mean + beta * self.gp_f.std(), -np.inf)
        return Decision(arm=int(_pick(scores, float(np.max(scores)), u)))

    def _lazy_select(self, u: float) -> int:
        """Phase 2 on lazy posteriors: the same point as the eager argmax (ties included), bringing up to
        date only the points that could be chosen: bounds of all points (:func:`lazy_safe_bounds`), then
        :func:`~safebandits.algorithms.regret.ckb.lazy_argmax` from the seed (always in the safe set)."""
        beta, beta_g = self.betas()
        gf, gg = self.gp_f, self.gp_g
        ub = self._ub
        args = (ub, stale_posterior(gf, beta), stale_posterior(gg, -beta_g), beta, beta_g, self._seed_mask)
        if self._bounds is None:
            self._bounds = bind_kernel(lazy_safe_bounds, args)
        self._bounds(*args)
        f = lambda idx: self._exact_scores(idx, beta, beta_g)  # noqa: E731
        return lazy_argmax(ub, f, (gf.lowrank, gg.lowrank), self._scores, u, first=self.seed)

    def _exact_scores(self, idx: np.ndarray, beta: float, beta_g: float) -> np.ndarray:
        """SGP-UCB's scores at the points ``idx``, brought up to date first (the arithmetic of the eager
        path: :meth:`safe_set` and ``mu + beta sigma``)."""
        gf, gg = self.gp_f, self.gp_g
        gf.lowrank.refresh(idx)
        if gg.lowrank is not gf.lowrank:
            gg.lowrank.refresh(idx)
        safe = gg._mean[idx] + beta_g * np.sqrt(np.maximum(gg.lowrank.var[idx], 0.0)) <= 0.0
        safe |= self._seed_mask[idx]
        return np.where(safe, gf._mean[idx] + beta * np.sqrt(np.maximum(gf.lowrank.var[idx], 0.0)), -np.inf)

    def _certificate(self, decision: Decision) -> Certificate:
        """Phase 1: the safe seed. Phase 2: ``D_t`` (finite domains; the seed included), or on a box the
        played point's upper bound ``mu~ + beta~ sigma~ <= 0`` (a seed point: the seed)."""
        t = self.n_samples + 1
        if self.box is None:
            if self.in_exploration:
                mask = np.zeros(self.info.n_points, dtype=bool)
                mask[self.seed] = True
                return Certificate(kind="safe-set", round=t, safe_arms=mask, basis="safe seed (phase 1)")
            return Certificate(kind="safe-set", round=t, safe_arms=self.safe_set(),
                               basis="D_t: mu~ + beta~ sigma~ <= 0, and the safe seed")  # fmt: skip
        x = np.asarray(decision.point, dtype=np.float64)
        seed = Certificate(kind="safe-set", round=t, safe_points=self.seed_points, basis="safe seed")
        if self.in_exploration or seed.covers(decision):
            return seed
        _, beta_g = self.betas()
        mg, vg = self.gp_g.predict(x[None, :])
        ucb = float(mg[0] + beta_g * np.sqrt(max(float(vg[0]), 0.0)))
        return Certificate(kind="upper-bound", round=t, bound=np.array([ucb]), threshold=np.zeros(1),
                           basis="D_t: mu~ + beta~ sigma~ <= 0 at the point")  # fmt: skip

    def cancel(self) -> None:
        super().cancel()
        self._draws.give_back()
        if self.box is not None and not self.in_exploration:
            self.search.undo()

    def _tell(self, decision: Decision, observation: Any) -> None:
        reward, constraint = reward_and_constraint(observation, "SGP-UCB")
        if self.box is not None:
            self.gp_f.update(decision.point, reward)
            self.gp_g.update(decision.point, constraint)
            return
        i = int(decision.arm)
        self.gp_f.update(i, reward)
        self.gp_g.update(i, constraint)
        self._maybe_refit()
