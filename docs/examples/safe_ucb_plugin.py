"""A learner written outside the library: a safe optimistic mixture for K-armed bandits with a cost.

``safebandits --plugin safe_ucb_plugin ...`` (run from this folder) imports this module, which
registers the learner ``safe-ucb`` and the experiment ``safe-ucb-demo``; the gallery example
``plot_plugin_learner.py`` runs it in a sweep beside OPB and writes the report.

Rewards and costs are in [0, 1]. Each round the learner computes, per arm, Hoeffding upper bounds on
the mean reward and the mean cost (1 for an arm never pulled). For each arm ``i`` it mixes ``i`` with
the known safe arm 0 (cost ``c0``, reward ``r0``): weight ``w_i`` on ``i`` is the largest for which the
mixture's cost upper bound stays at most ``tau``. It plays the mixture with the largest optimistic
value ``w_i ucb_r_i + (1 - w_i) r0``, drawing the arm from it: safe in expectation with high
probability, like OPB, but with a much cruder policy class (two arms at a time).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from safebandits import (
    AlgorithmSpec,
    BaseLearner,
    Decision,
    ExperimentSpec,
    LearnerConfig,
    PanelSpec,
    register_algorithm,
    register_experiment,
)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class SafeUCBConfig(LearnerConfig):
    """Options of :class:`SafeUCB` (frozen, keyword-only, checked at construction)."""

    delta: float = 0.05

    def __post_init__(self) -> None:
        if not 0.0 < self.delta < 1.0:
            raise ValueError(f"The 'delta' parameter of SafeUCBConfig must be in (0, 1). Got {self.delta}.")


@register_algorithm(
    "safe-ucb",
    task="regret",
    description="Safe optimistic two-arm mixture (plugin).",
    info="k-armed",  # the problem view it reads: K arms with a known safe arm (StagewiseInfo, simplex)
    guarantee="expectation",  # listed by `safebandits learners --for` as safe in expectation
)
class SafeUCB(BaseLearner):
    """Optimistic reward, pessimistic cost, mixed with the known safe arm."""

    config_cls = SafeUCBConfig
    name = "safe-ucb"
    setting = "expectation"  # safe in expectation: scored against the best policy

    def __init__(self, config: SafeUCBConfig, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        if info.safe_arm is None or info.action_set != "simplex" or info.safe_reward is None:
            raise TypeError("safe-ucb needs a K-armed stage-wise problem with a known safe arm and r0, c0.")
        k = info.arms.shape[0]
        self.counts = np.zeros(k)
        self.reward_sums = np.zeros(k)
        self.cost_sums = np.zeros(k)
        self.t = 0

    def _ask(self, context: Any) -> Decision:
        self.t += 1
        info = self.info
        n = np.maximum(self.counts, 1.0)
        width = np.sqrt(math.log(2.0 * len(n) * self.t**2 / self.config.delta) / (2.0 * n))
        pulled = self.counts > 0
        ucb_r = np.where(pulled, np.minimum(self.reward_sums / n + width, 1.0), 1.0)
        ucb_c = np.where(pulled, np.minimum(self.cost_sums / n + width, 1.0), 1.0)
        r0, c0, tau = info.safe_reward, float(info.safe_cost[0]), float(info.threshold[0])
        # Largest weight on arm i such that w ucb_c_i + (1 - w) c0 <= tau.
        excess = np.maximum(ucb_c - c0, 1e-12)
        weight = np.clip((tau - c0) / excess, 0.0, 1.0)
        value = weight * ucb_r + (1.0 - weight) * r0
        best = int(np.argmax(value))
        probs = np.zeros(len(n))
        probs[best] += weight[best]
        probs[info.safe_arm] += 1.0 - weight[best]
        return Decision(arm=int(self.rng.choice(len(n), p=probs)), probs=probs)

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
