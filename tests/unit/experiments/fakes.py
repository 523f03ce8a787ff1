"""Fake learners and a fake experiment for testing the experiment machinery.

Importing this module registers them (worker processes import it as a plugin); tests call
:func:`register` / :func:`unregister` around their use so that other suites never see them.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numba
import numpy as np

from safebandits.algorithms import registry as alg_registry
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.experiments import spec as exp_registry
from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec
from safebandits.types import Decision, Recommendation

MODULE = __name__
ROUND_ROBIN = "_fake-round-robin"
RAISES = "_fake-raises"
EXPERIMENT = "_fake-experiment"


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class FakeConfig(LearnerConfig):
    """Config of the fake learners."""

    n_stop: int = 12
    delta: float = 0.05
    width: str = "theory"
    sleep_s: float = 0.0
    batch: bool = False
    parallel_numba: bool = False
    hold: str = ""  # while this file exists, a run pauses once it has 20 samples (only "RR long" gets there)


@numba.njit(parallel=True, cache=False)
def parallel_sum(x):
    """A kernel on numba's thread pool (its OpenMP layer is not fork-safe)."""
    s = 0.0
    for i in numba.prange(x.shape[0]):
        s += x[i]
    return s


class RoundRobin(BaseLearner):
    """Pulls the arms in turn (or all at once as a batch) and stops after ``n_stop`` samples.

    Recommends the highest-reward arm whose empirical constraint mean is below the threshold.
    """

    config_cls = FakeConfig

    def __init__(self, config, info, rng):
        super().__init__(config, info, rng)
        self.counts = np.zeros(info.n_arms)
        self.sums = np.zeros(info.n_arms)
        self._next = int(rng.integers(info.n_arms))  # uses the learner stream
        if config.parallel_numba:
            assert parallel_sum(np.ones(1000)) == 1000.0

    @property
    def done(self) -> bool:
        return self.n_samples >= self.config.n_stop

    def _ask(self, context):
        if self.config.sleep_s:
            time.sleep(self.config.sleep_s)
        if self.config.hold and self.n_samples >= 20:
            deadline = time.monotonic() + 300.0
            while os.path.exists(self.config.hold):  # a test holds the sweep with runs in flight
                if time.monotonic() > deadline:
                    raise RuntimeError(f"held by {self.config.hold!r} for 300 s")
                time.sleep(0.01)
        if self.config.batch:
            return Decision(counts=np.full(self.info.n_arms, 2, dtype=np.int64))
        arm = self._next
        self._next = (self._next + 1) % self.info.n_arms
        return Decision(arm=arm)

    def _tell(self, decision, observation):
        if decision.is_batch:
            self.counts += observation.counts
            self.sums += observation.constraint_sums[:, 0]
        else:
            self.counts[decision.arm] += 1
            self.sums[decision.arm] += observation.constraints[0]

    def _recommend(self, final):
        means = np.where(self.counts > 0, self.sums / np.maximum(self.counts, 1), np.inf)
        rewards = np.where(means <= self.info.threshold, self.info.rewards, -np.inf)
        arm = int(np.argmax(rewards)) if np.isfinite(rewards).any() else None
        return Recommendation(arm=arm, n_samples=self.n_samples, final=final, info={"counts": self.counts})


class Raises(RoundRobin):
    """Raises on the first ask."""

    def _ask(self, context):
        raise RuntimeError("boom: the fake learner always fails")


SPEC = ExperimentSpec(
    name=EXPERIMENT,
    title="Fake experiment (tests only)",
    panels=(
        PanelSpec(
            name="fixed-eps",
            instance="acol/irrelevant-dimensions",
            fixed={"d": 3},
            sweep_param="epsilon",
            values={"quick": (0.2, 0.4), "paper": (0.1, 0.2, 0.4)},
        ),
        PanelSpec(
            name="sphere-n",
            instance="acol/unit-sphere",
            fixed={"d": 3},
            sweep_param="n_arms",
            values={"quick": (4, 6), "paper": (4, 6, 8)},
        ),
    ),
    algorithms=(
        AlgorithmSpec(label="RR", name=ROUND_ROBIN),
        AlgorithmSpec(label="RR long", name=ROUND_ROBIN, params={"n_stop": 40}),
        AlgorithmSpec(label="Boom", name=RAISES),
    ),
    replicates={"quick": 2, "paper": 3},
    budget={"quick": 30, "paper": 100},
    plugins=(MODULE,),
)


def register() -> None:
    """Register the fake learners and experiment (idempotent)."""
    if ROUND_ROBIN not in alg_registry._REGISTRY:
        alg_registry.register_algorithm(ROUND_ROBIN, task="pure_exploration")(RoundRobin)
        alg_registry.register_algorithm(RAISES, task="pure_exploration")(Raises)
    exp_registry.register_experiment(SPEC, replace=True)


def unregister() -> None:
    for name in (ROUND_ROBIN, RAISES):
        alg_registry._REGISTRY.pop(name, None)
    exp_registry._REGISTRY.pop(EXPERIMENT, None)


register()
