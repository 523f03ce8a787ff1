"""``learner.arm_estimates()``: one tidy record of per-arm estimates and intervals for every family that
has them, consistent with the quantities each learner acts on (its bounds, indices, safe-set tests)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import safebandits as sb
from safebandits.problems.declare import KernelProblem, LinearProblem
from safebandits.problems.safe_linear import estimated_safety_ucb
from safebandits.records import ArmEstimates, interval_estimates

ARMS = [[0.3, 0.0], [0.9, 0.0], [0.6, 0.6], [0.0, 0.9], [0.5, 0.3]]
LIN = LinearProblem(
    arms=ARMS, threshold=0.5, safe_arm=0, safe_reward=0.18, safe_cost=0.03,
    feedback={"kind": "gaussian", "sigma": 0.1}, horizon=300, epsilon=0.05,
)  # fmt: skip
LIN_SIM = LIN.simulate(reward_param=[0.6, 0.8], cost_params=[[0.1, 0.45]])


def trained(name, sim, kind, n, seed=0):
    inst = sim.instance(kind)
    learner = sb.make_learner(name, inst.public_info(), np.random.default_rng(seed))
    learner.simulate(inst.environment(np.random.default_rng(seed + 1)), n)
    return learner


def check_record(est: ArmEstimates, n_arms: int):
    assert isinstance(est, ArmEstimates) and est.estimate.shape == (n_arms, len(est.quantities))
    finite = np.isfinite(est.estimate)
    assert np.all(est.lower[finite] <= est.estimate[finite] + 1e-12)
    assert np.all(est.estimate[finite] <= est.upper[finite] + 1e-12)
    assert np.all(np.isinf(est.lower[~finite])) and np.all(np.isinf(est.upper[~finite]))
    back = ArmEstimates.from_dict(est.to_dict())
    for key in ("estimate", "lower", "upper"):
        np.testing.assert_array_equal(getattr(back, key), getattr(est, key))
    assert len(est.rows()) == n_arms * len(est.quantities) and est.interval


def test_record_round_trip_and_checks():
    est = interval_estimates(["reward", "cost"], [[0.1, 0.2], [math.nan, math.nan]], [[0.05, 0.1], [1, 1]],
                             [None, 0.5])  # fmt: skip
    assert est.lower[1, 0] == -math.inf and est.upper[1, 1] == math.inf  # an arm with no estimate
    assert est.rows()[0] == {"arm": 0, "quantity": "reward", "estimate": 0.1, "lower": 0.05,
                             "upper": 0.15000000000000002, "threshold": None}  # fmt: skip
    assert est.to_dict()["estimate"][1] == [None, None]
    with pytest.raises(ValueError, match="shape"):
        ArmEstimates(("a",), np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2)), (None,))
    with pytest.raises(ValueError, match="thresholds"):
        ArmEstimates(("a",), np.zeros(2), np.zeros(2), np.zeros(2), (None, 1.0))


@pytest.mark.parametrize("name", ["g-acol", "acol"])
def test_cbai_family_shows_its_confidence_bounds(name):
    inst = sb.make_instance("acol/one-dimensional", noise="binary")
    learner = sb.make_learner(name, inst.public_info(), np.random.default_rng(0))
    before = learner.arm_estimates()
    assert np.all(np.isnan(before.estimate[:, 0])) or name == "g-acol"
    learner.simulate(inst.environment(np.random.default_rng(1)), 3000)
    est = learner.arm_estimates()
    check_record(est, inst.n_arms)
    lower, upper = learner.confidence_bounds()
    np.testing.assert_array_equal(est.lower[:, 0], lower)
    np.testing.assert_array_equal(est.upper[:, 0], upper)
    assert est.thresholds[0] == float(inst.public_info().threshold)


def test_opb_shows_means_and_beta():
    learner = trained("opb", LIN_SIM, "k-armed", 200)
    est = learner.arm_estimates()
    check_record(est, 5)
    st = learner.state
    pulled = st.counts > 0
    assert pulled.sum() >= 2
    np.testing.assert_allclose(est.estimate[pulled, 0], st.reward_sums[pulled] / st.counts[pulled])
    beta = np.sqrt(st.const.log_term / st.counts[pulled])
    np.testing.assert_allclose((est.upper - est.estimate)[pulled, 0], learner.alpha_r * beta)
    # the upper ends are the indices the LP reads (unclipped reward index; cost index where not clipped)
    _, uc = learner.indices()
    np.testing.assert_allclose(est.upper[pulled, 0], st.raw[pulled])
    inside = pulled & (est.upper[:, 1] <= 1.0) & (est.upper[:, 1] >= 0.0)
    assert inside.any()
    np.testing.assert_allclose(est.upper[inside, 1], uc[inside, 0])
    # the safe arm's cost is known (c_1): exact
    assert est.lower[0, 1] == est.upper[0, 1] == 0.03
    assert est.thresholds == (None, 0.5)
    fresh = sb.make_learner("opb", LIN_SIM.instance("k-armed").public_info(), np.random.default_rng(0))
    assert np.all(np.isnan(fresh.arm_estimates().estimate[1:, 0]))  # nothing pulled yet


def play_batches(learner, inst, n_batches, seed=1):
    env = inst.environment(np.random.default_rng(seed))
    for _ in range(n_batches):
        if learner.done:
            break
        d = learner.ask()
        learner.tell(d, env.play(d))


def test_beside_shows_its_last_round_estimates():
    inst = LIN_SIM.instance("transductive")
    learner = sb.make_learner("beside", inst.public_info(), np.random.default_rng(0))
    assert learner.arm_estimates() is None  # before the first round's estimates
    play_batches(learner, inst, 3)
    est = learner.arm_estimates()
    check_record(est, 5)
    assert est.unit == "decision"
    np.testing.assert_allclose(est.estimate[:, 0], learner.constraint_hat[:, 0])
    np.testing.assert_allclose(est.upper[:, 0] - est.estimate[:, 0], learner.width)


@pytest.mark.parametrize("name", ["beside-practical", "xy-safe-only"])
def test_elimination_learners_certify_by_their_intervals(name):
    inst = LIN_SIM.instance("transductive")
    learner = sb.make_learner(name, inst.public_info(), np.random.default_rng(0))
    assert learner.arm_estimates() is None
    play_batches(learner, inst, 4)
    est = learner.arm_estimates()
    check_record(est, 5)
    from safebandits.algorithms.pure_exploration._transductive import SAFE, UNSAFE

    safe, unsafe = learner.status == SAFE, learner.status == UNSAFE
    assert safe.any()
    assert np.all(est.upper[safe, 0] <= 0.5)  # certified safe: the whole interval under the threshold
    assert np.all(est.lower[unsafe, 0] > 0.5)


def kernel_sim():
    x = np.linspace(0.0, 1.0, 8)
    problem = KernelProblem(kernel={"name": "se", "lengthscale": 0.3}, points=x[:, None], reward_bound=1.0,
                            constraint_bound=1.0, slater=0.2, safe_seed=(0,), horizon=60)  # fmt: skip
    return problem.simulate(reward=np.sin(3 * x), constraint=x - 0.6)


@pytest.mark.parametrize("name", ["ckb-ucb", "sgp-ucb", "stageopt"])
def test_kernel_learners_show_posterior_intervals(name):
    learner = trained(name, kernel_sim(), "kernel", 40)
    est = learner.arm_estimates()
    check_record(est, 8)
    assert est.unit == "point" and est.thresholds == (None, 0.0)
    beta, beta_g = learner.betas()
    np.testing.assert_allclose(est.upper[:, 0], learner.gp_f.mean + beta * learner.gp_f.std())
    if name == "stageopt":  # the intersected safety intervals it acts on
        lower, upper = learner.g_bounds
        np.testing.assert_array_equal(est.lower[:, 1], lower)
        np.testing.assert_array_equal(est.upper[:, 1], upper)
    else:
        np.testing.assert_allclose(est.upper[:, 1], learner.gp_g.mean + beta_g * learner.gp_g.std())
    if name == "sgp-ucb":  # its safe set is the points whose upper end is <= 0 (and the seed)
        safe = learner.safe_set()
        np.testing.assert_array_equal(safe[1:], est.upper[1:, 1] <= 0.0)


@pytest.mark.parametrize("name", ["oplb", "lc-lucb", "safe-lts"])
def test_stagewise_linear_learners_show_their_optimistic_and_pessimistic_values(name):
    learner = trained(name, LIN_SIM, "stagewise", 200)
    est = learner.arm_estimates()
    check_record(est, 5)
    e = learner.estimator
    points = np.asarray(ARMS)
    np.testing.assert_allclose(est.upper[:, 0], e.optimistic_reward(points))
    np.testing.assert_allclose(est.upper[:, 1], e.pessimistic_cost(points)[:, 0])
    assert est.lower[0, 1] == pytest.approx(0.03) == est.upper[0, 1]  # x0's known cost


@pytest.mark.parametrize("name", ["safe-lucb", "gslucb"])
def test_safe_lucb_shows_the_confidence_set(name):
    inst = sb.make_instance("safelucb/karm", np.random.default_rng(0))
    learner = sb.make_learner(name, inst.public_info(), np.random.default_rng(0))
    learner.simulate(inst.environment(np.random.default_rng(1)), 300)
    est = learner.arm_estimates()
    arms = inst.public_info().decision_set.arms
    check_record(est, arms.shape[0])
    s = learner.estimated_safe_set()
    ucb = estimated_safety_ucb(arms, s["b_mat"], s["theta"], s["a"], s["beta"])
    np.testing.assert_allclose(est.upper[:, 1], ucb)


def test_learners_without_per_arm_estimates_say_none():
    inst = LIN_SIM.instance("stagewise")
    learner = sb.make_learner("uniform-exploration", inst.public_info(), np.random.default_rng(0))
    assert learner.arm_estimates() is None
    convex = sb.make_instance("safelucb/2d-convex", np.random.default_rng(0))
    assert (
        sb.make_learner("safe-lucb", convex.public_info(), np.random.default_rng(0)).arm_estimates() is None
    )


def test_opnlb_shows_the_range_over_its_confidence_sets():
    inst = sb.make_instance(
        "stagewise/finite-class", np.random.default_rng(3), n_actions=4, n_functions=10, T=300
    )
    learner = sb.make_learner("opnlb", inst.public_info(), np.random.default_rng(0))
    learner.simulate(inst.environment(np.random.default_rng(1)), 150)
    est = learner.arm_estimates()
    check_record(est, 4)
    mask_r, mask_c = learner.confidence_sets()
    np.testing.assert_array_equal(est.upper[:, 0], learner.reward_class[mask_r].max(axis=0))
    np.testing.assert_array_equal(est.lower[:, 1], learner.cost_class[mask_c].min(axis=0))
    assert est.thresholds == (None, learner.tau)
