"""Driving CBAI instances, CEM and candidate sets (Lindner et al. 2022, Sec. 4.3, App. C)."""

import numpy as np
import pytest

from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator import DrivingConfig, get_scenario, policy_features
from safebandits.papers.acol.simulator.bandit import driving_instance, normalise_arms
from safebandits.papers.acol.simulator.candidates import (
    candidate_set,
    generate_candidates,
    load_released_candidates,
)
from safebandits.papers.acol.simulator.cem import CEMConfig, cem
from safebandits.problems import make_instance
from safebandits.problems.kernel import DataNotFoundError

SMALL = CEMConfig(n_iterations=8, n_samples=20, n_elite=4)


@pytest.mark.parametrize("scenario", ["base", "different-reward", "different-environment"])
def test_constrained_cem_finds_feasible_policy(scenario):
    sc = get_scenario(scenario)
    res = cem(sc, np.random.default_rng(0), n_restarts=2)
    assert res.feasible[0]
    f = policy_features(res.policies[0], sc)[0]
    assert f[:8] @ sc.constraint <= sc.threshold
    assert res.rewards[0] == pytest.approx(f[:8] @ sc.reward)
    # unconstrained CEM earns more reward and violates the constraint
    free = cem(sc, np.random.default_rng(0), config=CEMConfig(mode="unconstrained"), n_restarts=2)
    assert free.rewards[0] > res.rewards[0] and free.constraints[0] > sc.threshold


def test_penalised_cem_trades_reward_for_constraint():
    sc = get_scenario("base")
    lo = cem(sc, np.random.default_rng(1), config=CEMConfig(mode="penalised", penalty=0.0), n_restarts=2)
    hi = cem(sc, np.random.default_rng(1), config=CEMConfig(mode="penalised", penalty=2.0), n_restarts=2)
    assert hi.constraints[0] < lo.constraints[0] and hi.rewards[0] < lo.rewards[0]


def test_generation_deterministic_and_prefix_stable(tmp_path):
    a = generate_candidates(6, seed=3, config=SMALL)
    b = generate_candidates(6, seed=3, config=SMALL)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(generate_candidates(3, seed=3, config=SMALL), a[:3])
    assert not np.array_equal(generate_candidates(6, seed=4, config=SMALL), a)
    assert a.shape == (6, 20, 2) and np.all(np.abs(a) <= 1.0)
    cached = candidate_set(6, 3, config=SMALL, cache=tmp_path)
    np.testing.assert_array_equal(cached, a)
    assert len(list(tmp_path.glob("driving-candidates-n6-seed3-*.npy"))) == 1
    np.testing.assert_array_equal(candidate_set(6, 3, config=SMALL, cache=tmp_path), a)


def test_normalisation_keeps_signs_and_bounds():
    rng = np.random.default_rng(0)
    feats = np.hstack([rng.uniform(0, 1.2, (50, 8)), np.ones((50, 1))])
    phi = np.append(get_scenario("base").constraint, -1.0)
    raw = feats @ phi
    arms = normalise_arms(feats, phi)
    c = arms @ phi
    assert np.all(np.sign(c) == np.sign(raw)) and np.all(np.abs(c) <= 1.0)
    assert c.min() == pytest.approx(-1.0, abs=1e-5) and c.max() == pytest.approx(1.0, abs=1e-5)


def test_instance_rewards_raw_by_default_and_rescaled_in_place():
    sc = get_scenario("base")
    pols = np.clip(np.random.default_rng(2).normal(0, 0.3, (30, 20, 2)), -1, 1)
    pols = np.concatenate([pols, cem(sc, np.random.default_rng(0), config=SMALL).policies])
    feats = policy_features(pols, sc)
    inst = driving_instance(pols, sc)
    np.testing.assert_allclose(inst.rewards, feats[:, :8] @ sc.reward)
    np.testing.assert_allclose(inst.public_info().rewards, inst.rewards)
    np.testing.assert_array_equal(inst.feasible, feats[:, :8] @ sc.constraint <= 1.0)
    inplace = driving_instance(pols, sc, normalise="in-place")
    np.testing.assert_allclose(inplace.rewards, inplace.arms @ inplace.reward_param)
    assert inplace.optimal_arm == inst.optimal_arm
    with pytest.raises(ConfigError, match="Binary feedback"):
        driving_instance(pols, sc, normalise="none")
    assert driving_instance(pols, sc, normalise="none", noise="gaussian").arms.shape == (31, 9)


def test_registered_instance_generated():
    inst = make_instance("acol/driving", scenario="different-environment", n_candidates=20)
    assert inst.dim == 9 and inst.n_arms == 20 and inst.noise.name == "binary"
    assert np.all(np.abs(inst.constraint_values) <= 1.0)
    with pytest.raises(ConfigError, match="scenario"):
        make_instance("acol/driving", scenario="rainy")


def test_released_loader_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("SAFEBANDITS_DATA", raising=False)
    with pytest.raises(DataNotFoundError, match="SAFEBANDITS_DATA"):
        load_released_candidates()
    with pytest.raises(DataNotFoundError, match="not found"):
        load_released_candidates(tmp_path)
    np.save(tmp_path / "driver_candidate_policies_1000.npy", np.zeros((2, 20, 2)))
    assert load_released_candidates(tmp_path).shape == (2, 20, 2)
    assert DrivingConfig.preset("code").c1 == 10.0
