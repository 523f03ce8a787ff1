"""The ask / tell bookkeeping of BaseLearner, on a minimal learner."""

import dataclasses

import numpy as np
import pytest

from safebandits.algorithms.base import BaseLearner, LearnerConfig, config_from_dict, config_to_dict
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.experiments.simulate import run
from safebandits.problems import make_instance
from safebandits.types import BatchObservation, Decision, Recommendation


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class RoundRobinConfig(LearnerConfig):
    n_stop: int = 5


class RoundRobin(BaseLearner):
    config_cls = RoundRobinConfig

    def _ask(self, context):
        return Decision(arm=self.n_samples % self.info.n_arms)

    def _tell(self, decision, observation):
        pass

    @property
    def done(self):
        return self.n_samples >= self.config.n_stop

    def _recommend(self, final):
        return Recommendation(arm=0, n_samples=self.n_samples, final=final)


def make():
    inst = make_instance("acol/one-dimensional")
    return inst, RoundRobin(RoundRobinConfig(), inst.public_info(), np.random.default_rng(0))


def test_protocol_order():
    inst, learner = make()
    env = inst.environment(np.random.default_rng(0))
    with pytest.raises(ProtocolError, match="without a pending ask"):
        learner.tell(Decision(arm=0), env.pull(0))
    d = learner.ask()
    with pytest.raises(ProtocolError, match="twice"):
        learner.ask()
    with pytest.raises(ProtocolError, match="not the pending"):
        learner.tell(Decision(arm=0), env.pull(0))
    with pytest.raises(ProtocolError, match="BatchObservation"):
        learner.tell(d, BatchObservation(counts=np.zeros(10, dtype=np.int64)))
    learner.tell(d, env.play(d))
    with pytest.raises(ProtocolError, match="before done"):
        learner.recommend()
    assert learner.recommend(anytime=True).final is False


def test_run_stops_and_scores():
    inst, learner = make()
    out = run(learner, inst.environment(np.random.default_rng(0)), inst, budget=100)
    assert out.samples == 5 and out.stopped and out.recommended == 0
    assert out.feasible and not out.correct
    with pytest.raises(ProtocolError, match="after the learner stopped"):
        learner.ask()


def test_budget_is_honoured():
    inst, learner = make()
    learner = RoundRobin(RoundRobinConfig(n_stop=10**9), inst.public_info(), np.random.default_rng(0))
    out = run(learner, inst.environment(np.random.default_rng(0)), inst, budget=7)
    assert out.samples == 7 and not out.stopped


def test_constructor_checks_types():
    inst = make_instance("acol/one-dimensional")
    with pytest.raises(TypeError):
        RoundRobin({"n_stop": 3}, inst.public_info(), np.random.default_rng(0))
    with pytest.raises(TypeError):
        RoundRobin(RoundRobinConfig(), inst.public_info(), 0)


def test_config_dict_round_trip():
    cfg = RoundRobinConfig(n_stop=3)
    assert config_from_dict(RoundRobinConfig, config_to_dict(cfg)) == cfg
    with pytest.raises(ConfigError, match="no parameter"):
        config_from_dict(RoundRobinConfig, {"bogus": 1})


def test_cancel_withdraws_the_pending_decision():
    inst, learner = make()
    with pytest.raises(ProtocolError, match="cancel called without"):
        learner.cancel()
    d = learner.ask()
    learner.cancel()
    assert learner.n_samples == 0
    d2 = learner.ask()  # a new ask is allowed after cancel
    with pytest.raises(ProtocolError, match="not the pending"):
        learner.tell(d, inst.environment(np.random.default_rng(0)).play(d))
    learner.tell(d2, inst.environment(np.random.default_rng(0)).play(d2))
    assert learner.n_samples == 1
