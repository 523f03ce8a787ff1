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
from typing import Any

import numpy as np

from safebandits._validation import check_int, check_interval
from safebandits.algorithms.registry import register_algorithm
from safebandits.algorithms.regret.ckb import (
    GPBanditConfig,
    RoundDraws,
    SafeSeedGPLearner,
    _pick,
    reward_and_constraint,
)
from safebandits.exceptions import ConfigError
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
    """

    exploration_fraction: float = 0.05
    exploration_rounds: int | None = None

    def __post_init__(self) -> None:
        GPBanditConfig.__post_init__(self)  # (zero-argument super() fails in slotted dataclasses)
        owner = type(self).__name__
        check_interval(
            self.exploration_fraction, "exploration_fraction", low=0.0, high=1.0, closed="both", owner=owner
        )
        if self.exploration_rounds is not None:
            check_int(self.exploration_rounds, "exploration_rounds", low=0, owner=owner)


@register_algorithm(
    "sgp-ucb",
    task="regret",
    description="SGP-UCB: random safe-seed exploration, then GP-UCB in the pessimistic safe set "
    "(Amani et al. 2020; baseline of Zhou & Ji, Sec. 5).",
    info="kernel",
    guarantee="round",
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
        beta, _ = self.betas()
        scores = self._scores
        scores[:] = np.where(self.safe_set(), self.gp_f.mean + beta * self.gp_f.std(), -np.inf)
        return Decision(arm=int(_pick(scores, float(np.max(scores)), u)))

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
