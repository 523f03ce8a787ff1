"""Safe linear bandits (Amani et al. 2019): decision sets, oracle, gap, feedback, zoo instances."""

import numpy as np
import pytest

from safebandits import make_instance
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems.noise import make_noise
from safebandits.problems.safe_linear import DecisionSet, SafeLinearInstance, directions_grid
from safebandits.types import Decision

SQUARE = DecisionSet("polytope", g_mat=np.vstack([np.eye(2), -np.eye(2)]), h_vec=np.ones(4))


def instance(ds, mu=(0.6, 0.8), b=((1.0, 0.3), (-0.2, 0.9)), c=0.3, sigma=0.1):
    return SafeLinearInstance(
        decision_set=ds, mu=np.array(mu), b_mat=np.array(b), threshold=c, noise=make_noise("gaussian", sigma)
    )


def dense_points(ds, n=801):
    lo, hi = ds.bounding_box()
    g = np.stack(np.meshgrid(np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n)), -1).reshape(-1, 2)
    return g[ds.contains(g, tol=0.0)]


@pytest.mark.parametrize(
    "ds",
    [
        SQUARE,
        DecisionSet("ball", center=np.array([0.2, -0.1]), radius=1.0),
        DecisionSet(
            "polytope", g_mat=np.array([[1.0, 2.0], [-1.0, 0.5], [0.2, -1.0]]), h_vec=np.array([1, 1, 1.0])
        ),
    ],
)
def test_convex_oracle_matches_dense_grid(ds):
    inst = instance(ds)
    pts = dense_points(ds)
    safe = pts[inst.in_safe_set(pts)]
    brute = (safe @ inst.mu).min()
    assert inst.optimal_loss <= brute + 1e-9
    assert inst.optimal_loss == pytest.approx(brute, abs=5e-3)
    x = inst.optimal_action
    assert ds.contains(x) and inst.safety_values(x)[0] <= inst.threshold + 1e-9
    assert inst.safety_gap == pytest.approx(max(0.0, inst.threshold - inst.safety_param @ x))


def test_ball_unconstrained_and_active_cases():
    ball = DecisionSet("ball", center=np.zeros(2), radius=1.0)
    free = instance(ball, mu=(0.6, 0.8), b=np.diag([-0.5, 1.0]), c=0.2)  # the Figure 1b instance
    np.testing.assert_allclose(free.optimal_action, [-0.6, -0.8])
    assert free.safety_gap == pytest.approx(0.66)
    active = instance(ball, mu=(0.6, 0.8), b=-np.eye(2), c=0.3)  # safety -mu^T x <= c binds at -mu
    assert active.safety_gap == pytest.approx(0.0, abs=1e-12)
    assert active.safety_values(active.optimal_action)[0] == pytest.approx(0.3)


def test_finite_oracle_and_tracker_attributes():
    arms = np.array([[1.0, 0.0], [0.0, 1.0], [-0.5, -0.5], [-0.9, 0.1]])
    inst = instance(DecisionSet("arms", arms=arms), mu=(1.0, 0.0), b=np.eye(2), c=0.5)
    # losses 1, 0, -0.5, -0.9; safety = losses: all arms but 0 are safe, the best is arm 3
    np.testing.assert_allclose(inst.optimal_action, arms[3])
    assert inst.optimal_value == pytest.approx(0.9) and inst.optimal_policy_value == inst.optimal_value
    np.testing.assert_allclose(inst.reward_param, [-1.0, 0.0])
    np.testing.assert_allclose(inst.cost_params, [[1.0, 0.0]])
    np.testing.assert_allclose(inst.threshold, 0.5)
    assert inst.safety_gap == pytest.approx(1.4)
    assert inst.arms is arms or np.array_equal(inst.arms, arms)
    assert inst.safe_arm is None and np.array_equal(inst.safe_action, np.zeros(2))
    with pytest.raises(InfeasibleInstanceError):
        instance(DecisionSet("arms", arms=arms[:1]), mu=(1.0, 0.0), b=np.eye(2), c=0.5)


def test_environment_returns_only_the_negated_loss():
    inst = instance(SQUARE, sigma=0.0)
    env = inst.environment(np.random.default_rng(0))
    obs = env.play(Decision(point=np.array([0.5, -0.25])))
    assert obs.reward == pytest.approx(-(0.6 * 0.5 - 0.8 * 0.25))
    assert obs.constraints.size == 0
    info = inst.public_info()
    assert not hasattr(info, "mu") and info.safety_gap == pytest.approx(inst.safety_gap)
    assert info.arm_norm_bound == pytest.approx(np.sqrt(2)) and info.param_norm_bound == pytest.approx(1.0)


def test_decision_set_validation_and_geometry():
    with pytest.raises(ConfigError):
        DecisionSet("ball", center=np.array([2.0, 0.0]), radius=1.0)
    with pytest.raises(ConfigError):
        DecisionSet("polytope", g_mat=np.eye(2), h_vec=np.ones(2))  # unbounded
    with pytest.raises(ConfigError):
        DecisionSet("polytope", g_mat=np.vstack([np.eye(2), -np.eye(2)]), h_vec=np.array([1, 1, 1, 0.0]))
    u = directions_grid(2, 64)
    for ds in (SQUARE, DecisionSet("ball", center=np.array([0.3, 0.1]), radius=1.0)):
        rho = ds.radial(u)
        assert np.all(ds.contains(rho[:, None] * u * (1 - 1e-9)))
        assert not np.any(ds.contains(rho[:, None] * u * (1 + 1e-6), tol=0.0))
        assert DecisionSet.from_description(ds.describe()).describe() == ds.describe()
    np.testing.assert_allclose(SQUARE.vertices(), [[-1, -1], [1, -1], [1, 1], [-1, 1]])


@pytest.mark.parametrize("ds", [SQUARE, DecisionSet("ball", center=np.zeros(2), radius=0.8)])
def test_shell_radius_is_the_largest_inside(ds):
    b = np.array([[1.0, 0.3], [-0.2, 0.9]])
    eps = ds.shell_radius(b, 10.0)
    z = directions_grid(2, 4000)
    shell = eps * z @ np.linalg.inv(b).T
    assert ds.contains(shell, tol=1e-9).all()
    assert not ds.contains(shell * 1.001, tol=0.0).all()  # exact: the shell touches the boundary


def test_karm_zoo_instance_properties():
    for seed in range(5):
        inst = make_instance("safelucb/karm", np.random.default_rng(seed), condition="margin")
        arms, k = inst.arms, inst.arms.shape[0]
        loss, safety = arms @ inst.mu, inst.safety_values(arms)
        assert 0.5 <= inst.safety_gap <= 1.2
        assert safety[np.argmin(loss)] > inst.threshold  # the unconstrained best arm is unsafe
        star = int(np.argmin(np.where(safety <= inst.threshold, loss, np.inf)))
        assert star >= k // 2  # an outer arm, outside D^w
        assert not inst.in_conservative_set(arms[star])[0]
        assert inst.in_conservative_set(arms[: k // 2]).all()
        assert np.linalg.norm(arms, axis=1).max() <= 1.0 + 1e-12


def test_convex_zoo_instance():
    inst = make_instance("safelucb/2d-convex", T=1000)
    np.testing.assert_allclose(inst.optimal_action, [-0.6, -0.8])
    assert inst.safety_gap == pytest.approx(0.66)
    desc = inst.describe()
    assert desc["decision_set"]["kind"] == "ball" and desc["x_star"] == pytest.approx([-0.6, -0.8])
    assert inst.with_horizon(50).horizon == 50


def test_derived_truth_and_public_info_are_built_once_and_read_only():
    inst = make_instance("safelucb/karm", np.random.default_rng(0), K=5, d=3, condition="margin")
    info = inst.public_info()
    assert inst.public_info() is info and not info.b_mat.flags.writeable
    assert not np.shares_memory(info.b_mat, inst.b_mat)
    for name in ("reward_param", "safety_param"):
        first = getattr(inst, name)
        assert getattr(inst, name) is first and not first.flags.writeable, name
    np.testing.assert_array_equal(inst.reward_param, -inst.mu)
    np.testing.assert_array_equal(inst.safety_param, inst.b_mat.T @ inst.mu)
    with pytest.raises(ValueError, match="read-only"):
        inst.reward_param[0] = 1.0
    horizon = inst.with_horizon(7)  # (a new instance: its own cache)
    assert horizon.public_info() is not info and horizon.public_info().horizon == 7


def test_a_safe_instance_derived_by_replace_computes_its_own_truth():
    import dataclasses

    inst = make_instance("safelucb/karm", np.random.default_rng(0), K=5, d=3, condition="margin")
    info, param = inst.public_info(), inst.reward_param
    other = dataclasses.replace(inst, mu=2.0 * inst.mu)
    np.testing.assert_array_equal(other.reward_param, -2.0 * inst.mu)
    assert other.public_info() is not info and inst.reward_param is param
    ds = inst.decision_set
    assert dataclasses.replace(ds)._cache is not ds._cache
