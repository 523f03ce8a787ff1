"""Constrained reference solvers of the driving study (papers/acol/simulator/constrained.py)."""

import numpy as np
import pytest

from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator import DrivingConfig, get_scenario, policy_features
from safebandits.papers.acol.simulator.cem import CEMConfig, cem
from safebandits.papers.acol.simulator.constrained import PolishConfig, constrained_optimum, polish_feasible
from safebandits.papers.acol.simulator.solve import DrivingCEMConfig, DrivingTask, solve_driving


def _reward_cost(policy, scenario, env=None):
    f = policy_features(policy, scenario, env)[0, :8]
    return float(f @ scenario.reward), float(f @ scenario.constraint)


def test_polish_only_moves_to_better_feasible_policies():
    sc = get_scenario("base")
    start = np.zeros((2, 20, 2))  # no acceleration: slow (reward -2.2) and feasible (cost 0.10)
    start[1, :, 1] = 0.2  # reward -0.55, cost 0.51
    rngs = [np.random.default_rng(s) for s in (1, 2)]
    pols, rewards = polish_feasible(sc, start, rngs, n_iterations=60, n_samples=40)
    for k in range(2):
        r, c = _reward_cost(pols[k], sc)
        assert c <= sc.threshold and r == pytest.approx(rewards[k])
        assert r > _reward_cost(start[k], sc)[0] + 0.1
    assert np.all(np.abs(pols) <= 1.0)
    same, _ = polish_feasible(sc, start, rngs, n_iterations=0)
    np.testing.assert_array_equal(same, start)
    infeasible = np.zeros((1, 20, 2))
    infeasible[0, :, 1] = 0.4  # keeps v = 0.4 behind the lane-changing car: cost 7.7
    with pytest.raises(ConfigError, match="feasible"):
        polish_feasible(sc, infeasible, [np.random.default_rng(0)])


def test_wen_topcu_solver_is_the_authors_cem():
    sc, cfg = get_scenario("different-reward"), CEMConfig(n_iterations=8)
    res, info = constrained_optimum(
        sc, np.random.default_rng(3), solver="wen-topcu", config=cfg, n_restarts=2
    )
    ref = cem(sc, np.random.default_rng(3), config=cfg, n_restarts=2)
    np.testing.assert_array_equal(res.policies, ref.policies)
    assert info == {"evaluations": 2 * 8 * 50}


def test_warm_polish_beats_wen_topcu_on_the_knife_edge():
    # base scenario, paper constants: Wen & Topcu CEM converges to a slow policy (reward ~ -0.3 to
    # -0.45); penalised seeds near the feasibility boundary, polished, keep v ~ 0.4 (reward ~ 0)
    sc = get_scenario("base")
    pol = PolishConfig(penalties=(0.6, 0.8, 1.0), warm_restarts=3, n_starts=2, n_iterations=200, n_samples=50)
    res, info = constrained_optimum(sc, np.random.default_rng(0), n_restarts=2, polish=pol)
    r, c = _reward_cost(res.policies[0], sc)
    assert res.feasible[0] and c <= sc.threshold and r == pytest.approx(res.rewards[0])
    assert info["polished_reward"] == pytest.approx(r)
    assert r >= info["best_seed_reward"] >= info["wen_topcu_reward"]
    assert r > -0.02 and info["wen_topcu_reward"] < -0.2
    assert info["best_seed_source"].startswith("penalised:")
    assert info["evaluations"] == (2 + 9) * 50 * 50 + 2 * (1 + 200 * 50)


def test_solver_config_and_task():
    with pytest.raises(ConfigError, match="constrained_solver"):
        DrivingCEMConfig(constrained_solver="exact")
    with pytest.raises(ConfigError, match="fraction"):
        PolishConfig(fraction=1.5)
    assert DrivingCEMConfig().constrained_solver == "wen-topcu"  # the authors' solver by default
    cfg = DrivingCEMConfig(
        n_restarts=1,
        n_iterations=5,
        warm_restarts=1,
        polish_starts=1,
        polish_iterations=5,
        constrained_solver="warm-polish",
    )
    task = DrivingTask(scenario="different-environment", objective="constrained", features="code")
    metrics, traces = solve_driving(task, cfg, np.random.default_rng(0))
    assert traces["solver"]["name"] == "warm-polish" and metrics["samples"] == traces["solver"]["evaluations"]
    r, c = _reward_cost(
        np.asarray(traces["policy"]), get_scenario(task.scenario), DrivingConfig.preset("code")
    )
    assert metrics["reward"] == pytest.approx(r) and metrics["cost"] == pytest.approx(c)
    assert metrics["feasible"] == (c <= 1.0)
