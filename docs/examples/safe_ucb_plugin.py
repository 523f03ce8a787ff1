"""A learner written outside the library: safe UCB for K-armed bandits with a cost constraint.

``safebandits --plugin safe_ucb_plugin ...`` (run from this folder) imports this module, which
registers the learner ``safe-ucb`` and the experiment ``safe-ucb-demo``; the gallery example
``plot_plugin_learner.py`` runs it in a sweep beside OPB and writes the report.

Each round the learner keeps, per arm, the empirical mean reward and cost and a Hoeffding width
``sqrt(2 R^2 log(1 / delta_t) / n)``. It plays the arm with the largest reward upper bound among the
arms whose cost *upper* bound is at most the threshold (so it is safe every round with high
probability); the known safe arm is always allowed. Arms never pulled are tried once only if their
cost is known to be safe, which here means never: the safe set grows from the safe arm's side.
To bootstrap, unpulled arms are explored with a small probability ``explore``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from safebandits.algorithms import BaseLearner, LearnerConfig, register_algorithm
from safebandits.experiments import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment
from safebandits.types import Decision


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeUCBConfig(LearnerConfig):
    """Options of :class:`SafeUCB` (frozen, keyword-only, checked at construction)."""

    delta: float = 0.05
    explore: float = 0.01

    def __post_init__(self) -> None:
        if not 0.0 < self.delta < 1.0:
            raise ValueError(f"The 'delta' parameter of SafeUCBConfig must be in (0, 1). Got {self.delta}.")
        if not 0.0 <= self.explore < 1.0:
            raise ValueError(f"The 'explore' parameter of SafeUCBConfig must be in [0, 1). Got {self.explore}.")


@register_algorithm("safe-ucb", task="regret", description="Safe UCB over per-arm cost upper bounds (plugin).")
class SafeUCB(BaseLearner):
    """Per-arm optimistic reward, pessimistic cost; the safe arm is always allowed."""

    config_cls = SafeUCBConfig
    name = "safe-ucb"
    setting = "round"  # safe at every round (the run is scored against the per-round optimum)

    def __init__(self, config: SafeUCBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        if info.safe_arm is None or info.action_set != "simplex":
            raise TypeError("safe-ucb needs a K-armed stage-wise problem with a known safe arm.")
        k = info.arms.shape[0]
        self.counts = np.zeros(k)
        self.reward_sums = np.zeros(k)
        self.cost_sums = np.zeros(k)
        self.t = 0

    def _ask(self, context: Any) -> Decision:
        self.t += 1
        info, cfg = self.info, self.config
        pulled = self.counts > 0
        if not pulled.all() and self.rng.random() < cfg.explore:
            return Decision(arm=int(self.rng.choice(np.flatnonzero(~pulled))))
        n = np.maximum(self.counts, 1.0)
        width = np.sqrt(2.0 * info.noise_bound**2 * math.log(2.0 * self.t**2 / cfg.delta) / n)
        ucb_reward = np.where(pulled, self.reward_sums / n + width, -np.inf)
        ucb_cost = np.where(pulled, self.cost_sums / n + width, np.inf)
        allowed = ucb_cost <= info.threshold[0]
        allowed[info.safe_arm] = True
        ucb_reward[info.safe_arm] = max(ucb_reward[info.safe_arm], info.safe_reward or 0.0)
        return Decision(arm=int(np.argmax(np.where(allowed, ucb_reward, -np.inf))))

    def _tell(self, decision: Decision, observation: Any) -> None:
        arm = decision.arm
        self.counts[arm] += 1
        self.reward_sums[arm] += observation.reward
        self.cost_sums[arm] += observation.constraints[0]


register_experiment(
    ExperimentSpec(
        name="safe-ucb-demo",
        title="A plugin learner beside OPB on the four-armed instance",
        panels=(
            PanelSpec(
                name="four-arm",
                instance="stagewise/four-arm",
                fixed={},
                sweep_param="tau",
                values={"quick": (0.3, 0.6), "paper": (0.2, 0.3, 0.5, 0.6)},
                title="Four arms, r = (0.1, 0.2, 0.4, 0.7), c = (0, 0.4, 0.5, 0.2)",
                xlabel="tau",
            ),
        ),
        algorithms=(
            AlgorithmSpec(label="Safe UCB (plugin)", name="safe-ucb"),
            AlgorithmSpec(label="OPB", name="opb"),
        ),
        replicates={"quick": 2, "paper": 10},
        budget={"quick": 10**9, "paper": 10**9},
        figure="regret-curves",
        algorithm_defaults={"delta": 0.05},
        horizon={"quick": 5_000, "paper": 100_000},
        plugins=("safe_ucb_plugin",),
    )
)
