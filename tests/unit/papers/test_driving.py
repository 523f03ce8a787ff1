"""Driving environment and features (Lindner et al. 2022, Sec. 4.3, Table C.1) against hand computations."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from safebandits.exceptions import ConfigError
from safebandits.papers.acol.simulator import DrivingConfig, get_scenario, policy_features, rollout
from safebandits.papers.acol.simulator.dynamics import car_trajectories

PHI = np.array([0.0, 0.0, 0.3, 0.05, 0.02, 0.5, 0.3, 0.8])


def released_path():
    here = Path(__file__).resolve()
    for base in [*(p / ".." / "shared" / "data" for p in here.parents), Path("/work/shared/data")]:
        f = base / "acol_driver" / "driver_candidate_policies_1000.npy"
        if f.is_file():
            return f
    return None


def test_one_step_dynamics_by_hand():
    cfg = DrivingConfig()
    s = rollout([0.0, -0.1, np.pi / 2, 0.41], np.array([[[0.5, 1.0]]]), cfg)[0, 0]
    # increments use the old state: dy = 0.2 * 0.41, dphi = 0.2 * 0.41 * 0.5, dv = 0.2 * (1 - 0.41)
    np.testing.assert_allclose(s, [0.0, -0.1 + 0.082, np.pi / 2 + 0.041, 0.41 + 0.118], atol=1e-15)


def test_two_steps_turning_and_velocity_clip():
    # the paper's literal update (dt = 1): v' = clip(v + a2 - v) = a2
    acts = np.array([[[1.0, 1.0], [0.0, -1.0]]])
    s = rollout([0.0, 0.0, 0.0, 0.5], acts, DrivingConfig(dt=1.0, horizon=2))[0]
    np.testing.assert_allclose(s[0], [0.5, 0.0, 0.5, 1.0])
    np.testing.assert_allclose(s[1], [0.5 + np.cos(0.5), np.sin(0.5), 0.5, -1.0])
    # velocity is clipped to [-v_max, v_max]
    s = rollout([0.0, 0.0, 0.0, 0.9], np.array([[[0.0, 1.0]]]), DrivingConfig(dt=2.0, horizon=1))[0, 0]
    assert s[3] == 1.0


def test_one_step_features_by_hand():
    sc = get_scenario("base")
    for preset, c1 in (("paper", 4.0), ("code", 10.0)):
        cfg = DrivingConfig(horizon=1, c1=c1, lane_distance="absolute" if preset == "paper" else "squared")
        assert DrivingConfig.preset(preset).c1 == c1
        f = policy_features(np.zeros((1, 2)), sc, cfg)[0]
        v = 0.41 * 0.8
        y, car_y = -0.1 + 0.082, 0.082  # the other car starts at (0.17, 0) with v = 0.41
        expected = [
            -((v - 0.4) ** 2),
            -(0.17**2),
            0.0,
            1.0 / (1.0 + np.exp(10.0)),  # on the lane centre: d = 0
            0.0,
            0.0,
            0.0,
            np.exp(-30.0 * (c1 * 0.17**2 + (y - car_y) ** 2) + 0.3),
            1.0,
        ]
        np.testing.assert_allclose(f, expected, atol=1e-12)


def test_lane_distance_options():
    sc = get_scenario("base")
    # one step straight ahead from x = 0.03: absolute distance 0.03 -> ~1, squared 0.0009 -> ~0.45
    pol = np.zeros((1, 1, 2))
    start = (0.03, -0.1, np.pi / 2, 0.41)
    sc = dataclasses.replace(sc, start=start)
    f_abs = policy_features(pol, sc, DrivingConfig(horizon=1))[0, 3]
    f_sq = policy_features(pol, sc, DrivingConfig(horizon=1, lane_distance="squared"))[0, 3]
    assert f_abs == pytest.approx(1.0 / (1.0 + np.exp(-300.0 + 10.0)))
    assert f_sq == pytest.approx(1.0 / (1.0 + np.exp(-9.0 + 10.0)))


def test_summed_features_zero_policy():
    sc = get_scenario("base")
    f = policy_features(np.zeros((20, 2)), sc)[0]
    v = 0.41 * 0.8 ** np.arange(1, 21)
    assert f[0] == pytest.approx(-np.sum((v - 0.4) ** 2))
    assert f[1] == pytest.approx(-20 * 0.17**2)
    assert f[2] == 0 and f[5] == 0 and f[6] == 0 and f[8] == 1.0
    assert f[4] == pytest.approx(0.0, abs=1e-12)


def test_blocked_cars_stay_and_changing_lane_car_moves_left():
    cfg = DrivingConfig()
    blocked = car_trajectories(get_scenario("different-environment"), cfg)
    assert blocked.shape == (3, 20, 4)
    np.testing.assert_allclose(blocked[:, -1, :2], [[-0.17, 0.6], [0.0, 0.65], [0.17, 0.7]])
    lane = car_trajectories(get_scenario("base"), cfg)[0]
    assert lane[4, 0] == pytest.approx(0.17) and lane[-1, 0] < 0.17 - 0.02


def test_vectorised_equals_one_by_one():
    rng = np.random.default_rng(0)
    pols = rng.uniform(-1, 1, (7, 20, 2))
    sc = get_scenario("different-environment")
    batch = policy_features(pols, sc)
    single = np.vstack([policy_features(p, sc) for p in pols])
    np.testing.assert_allclose(batch, single)


def test_policy_validation():
    sc = get_scenario("base")
    with pytest.raises(ConfigError, match="shape"):
        policy_features(np.zeros((19, 2)), sc)
    with pytest.raises(ConfigError, match=r"\[-1, 1\]"):
        policy_features(np.full((20, 2), 1.5), sc)
    with pytest.raises(ConfigError, match="lane_distance"):
        DrivingConfig(lane_distance="manhattan")


@pytest.mark.parametrize(
    ("scenario", "n_feasible", "lo", "hi"),
    [
        ("base", 520, -0.979, 3.98),
        ("different-reward", 520, -0.979, 3.98),
        ("different-environment", 60, -0.0082, 4.01),
    ],
)
def test_released_set_feasibility_counts_with_code_features(scenario, n_feasible, lo, hi):
    path = released_path()
    if path is None:
        pytest.skip("acol_driver/driver_candidate_policies_1000.npy not found (shared data absent)")
    f = policy_features(np.load(path), get_scenario(scenario), DrivingConfig.preset("code"))
    margins = f[:, :8] @ PHI - 1.0
    assert int((margins <= 0).sum()) == n_feasible
    assert margins.min() == pytest.approx(lo, abs=6e-4) and margins.max() == pytest.approx(hi, abs=6e-3)
