"""A listed learner must start (issue 29): ``compatible_learners`` (and ``learners --for``) lists a learner
only if a run can build it on the problem and play.

Hypothesis generates linear declarations (arms, thresholds, a safe arm or none, known safe values or not,
a cost read off the reward or not, Gaussian or Bernoulli feedback) with a truth under which the safe arm
is safe; every learner listed for the declaration is then built exactly as the runner builds it (the
simulated instance of its kind, its public or privileged information, a run's seeds) and plays a few
rounds. Learners of a fitting kind that are left out must carry a reason.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.algorithms.compatibility import instance_for, learner_fit
from safebandits.exceptions import ConfigError, DefaultToleranceWarning
from safebandits.problems.declare import LinearProblem


@st.composite
def declarations(draw):
    k = draw(st.integers(2, 5))
    d = draw(st.integers(1, 3))
    bern = draw(st.booleans())
    unit = st.floats(0.0, 1.0, allow_nan=False).map(lambda v: round(v, 3))
    arms = np.array(draw(st.lists(st.lists(unit, min_size=d, max_size=d), min_size=k, max_size=k)))
    theta = np.array(draw(st.lists(st.floats(0.0, 0.5), min_size=d, max_size=d)))
    mu = np.array(draw(st.lists(st.floats(0.0, 0.5), min_size=d, max_size=d)))
    if bern:  # means in [0, 1]: nonnegative arms and parameters with small norms
        theta, mu = theta / max(1.0, d), mu / max(1.0, d)
    safe = draw(st.one_of(st.none(), st.integers(0, k - 1)))
    cost = arms @ mu
    tau = float(draw(st.floats(0.05, 0.95)))
    if safe is not None:
        assume(cost[safe] < tau - 1e-3)
    known = safe is not None and draw(st.booleans())
    read_off = draw(st.booleans()) and not bern
    values = dict(
        arms=arms,
        threshold=tau,
        safe_arm=safe,
        feedback="bernoulli" if bern else {"kind": "gaussian", "sigma": 0.2},
        horizon=60,
        epsilon=draw(st.sampled_from([None, 0.05])),
    )
    if read_off and safe is not None:
        m_mat = np.eye(d)
        mu = theta @ m_mat  # cost(x) = theta^T M x
        cost = arms @ mu
        assume(cost[safe] < tau - 1e-3)
        values["cost_matrix"] = m_mat
        values["safe_reward"], values["safe_cost"] = float(theta @ arms[safe]), float(cost[safe])
    elif known:
        values["safe_reward"], values["safe_cost"] = float(theta @ arms[safe]), float(cost[safe])
    try:
        problem = LinearProblem(**values)
        sim = problem.simulate(
            reward_param=theta, cost_params=None if read_off and safe is not None else [mu]
        )
    except ConfigError:
        assume(False)
    return sim


def _play(sim, name, rounds=5):
    """Build ``name`` as the runner does and play ``rounds`` rounds (or until an identification stops)."""
    entry = sb.get_algorithm(name)
    inst = instance_for(sim, name, horizon=60)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    learner = sb.make_learner(name, info, np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    for _ in range(rounds):
        if getattr(learner, "done", False):
            break
        decision = learner.ask()
        learner.tell(decision, env.play(decision))


@pytest.mark.filterwarnings("ignore::safebandits.exceptions.DefaultToleranceWarning")
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(sim=declarations())
def test_every_listed_learner_starts_and_plays(sim):
    fit = learner_fit(sim, task=None)
    for c in fit.fitting:
        if c.task == "classification":
            continue
        _play(sim, c.name)
    for c, check in fit.cannot_start:
        assert not check.ok and check.reason and check.message, c.name
        with pytest.raises(ConfigError):  # and what is left out truly cannot start
            _play(sim, c.name)
    for fam in fit.families:
        assert fam.reason and fam.learners


def test_default_tolerance_is_announced_and_relative_to_the_cost_scale():
    p = LinearProblem(arms=np.eye(3), threshold=0.5, safe_arm=0, mean_bound=2.0)
    tol = p.answer_tolerance
    assert tol.is_default and tol.value == pytest.approx(0.02) and "mean_bound" in tol.source
    with pytest.warns(DefaultToleranceWarning, match=r"exceed your threshold by up to epsilon = 0.02"):
        info = p.view("transductive")
    assert info.epsilon == pytest.approx(0.02)
    given_ = LinearProblem(arms=np.eye(3), threshold=0.5, safe_arm=0, epsilon=0.07)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefaultToleranceWarning)  # a given epsilon is not announced
        assert given_.view("transductive").epsilon == 0.07
    assert not given_.answer_tolerance.is_default
    # the declaration's dict form keeps "not given" (a TOML file round trip does not invent a value)
    assert "epsilon" not in p.to_dict() and given_.to_dict()["epsilon"] == 0.07
