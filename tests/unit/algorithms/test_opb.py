"""OPB (Pacchiano et al., Algorithm 3): LP (37) closed form, indices, compiled loop, safety and regret."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.algorithms import get_algorithm, make_learner
from safebandits.algorithms.regret.opb import INFEASIBLE, OPB, OPBConfig, lp_closed_form, solve_index_lp
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.problems.noise import make_noise
from safebandits.problems.stagewise import StagewiseInstance, solve_policy_lp


def k_armed(rewards, costs, tau, noise="bernoulli", sigma=1.0, T=2000, known=True):
    costs = np.atleast_2d(costs)
    k = len(rewards)
    return StagewiseInstance(
        arms=np.eye(k),
        safe_action=np.eye(k)[0],
        reward_param=np.asarray(rewards, dtype=float),
        cost_params=costs,
        threshold=np.atleast_1d(tau),
        noise=make_noise(noise, sigma),
        action_set="simplex",
        horizon=T,
        known_safe_values=known,
    )


def linprog_value(ur, uc, tau):
    res = solve_policy_lp(np.asarray(ur), np.asarray(uc).reshape(len(ur), -1), np.atleast_1d(tau))
    return None if res is None else res[0]


# --------------------------------------------------------------------------------------------------
# LP (37)
# --------------------------------------------------------------------------------------------------
def random_indices(rng, k):
    kind = rng.integers(4)
    if kind == 0:  # generic
        ur, uc = rng.random(k), rng.random(k)
    elif kind == 1:  # many exact ties on a coarse grid, tau possibly on a value
        ur, uc = rng.integers(0, 4, k) / 4, rng.integers(0, 4, k) / 4
    elif kind == 2:  # clipped start: every index at 1 except the safe arm's cost
        ur, uc = np.ones(k), np.ones(k)
    else:  # everything infeasible but the safe arm
        ur, uc = rng.random(k), rng.uniform(0.6, 1.0, k)
    uc[0] = rng.choice([0.0, rng.uniform(0, 0.4)])  # the safe arm is always feasible
    tau = rng.choice([0.5, float(rng.choice(uc)), rng.uniform(0.1, 0.9)])
    return ur, uc, tau


def test_closed_form_matches_linprog_with_support_at_most_two():
    rng = np.random.default_rng(0)
    n_pairs = n_infeasible = 0
    for _ in range(600):
        k = int(rng.integers(1, 12))
        ur, uc, tau = random_indices(rng, k)
        res = solve_index_lp(ur, uc, tau, tiebreak=ur + rng.random(k))
        if res is None:  # tau below every index, the safe arm's included
            n_infeasible += 1
            assert uc.min() > tau and linprog_value(ur, uc, tau) is None
            continue
        value, pi = res
        assert value == pytest.approx(linprog_value(ur, uc, tau), abs=1e-9)
        assert value == pytest.approx(pi @ ur, abs=1e-12)
        assert np.all(pi >= 0) and pi.sum() == pytest.approx(1.0, abs=1e-12)
        assert pi @ uc <= tau + 1e-12
        support = np.flatnonzero(pi > 0)
        assert support.size <= 2
        if support.size == 2:  # eq. (44): a1 below tau, a2 above, expected cost exactly tau
            n_pairs += 1
            a1, a2 = sorted(support, key=lambda a: uc[a])
            assert uc[a1] < tau < uc[a2]
            assert pi @ uc == pytest.approx(tau, abs=1e-12)
            assert pi[a1] == pytest.approx((uc[a2] - tau) / (uc[a2] - uc[a1]), abs=1e-15)
    assert n_pairs > 50 and 0 < n_infeasible < 100


def test_closed_form_edge_cases():
    probs = np.zeros(3)
    uc = np.array([[0.9], [0.95], [1.0]])
    assert lp_closed_form(np.ones(3), np.ones(3), uc, 0.5, probs) == INFEASIBLE == -np.inf and not probs.any()
    assert solve_index_lp(np.ones(3), uc[:, 0], 0.5) is None
    # only the safe arm feasible: mix it with the best arm above tau
    value, pi = solve_index_lp(np.array([0.1, 0.9, 0.5]), np.array([0.0, 1.0, 1.0]), 0.25)
    np.testing.assert_allclose(pi, [0.75, 0.25, 0.0])
    assert value == pytest.approx(0.1 + 0.8 * 0.25)
    # a feasible best arm beats any pair; tau equal to an index value is feasible
    value, pi = solve_index_lp(np.array([0.1, 0.9, 0.95]), np.array([0.0, 0.5, 1.0]), 0.5)
    assert value == pytest.approx(0.9) and pi[1] == 1.0
    # exact ties on the clipped index go to the larger tie-break value
    _, pi = solve_index_lp(np.ones(3), np.array([0.0, 1.0, 1.0]), 0.3, tiebreak=np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(pi, [0.7, 0.0, 0.3])


def test_multi_constraint_lp_support_at_most_m_plus_one():
    rng = np.random.default_rng(1)
    for _ in range(60):
        k, m = int(rng.integers(3, 15)), int(rng.integers(2, 5))
        ur, uc = rng.random(k), rng.random((k, m))
        uc[0] = rng.uniform(0, 0.2, m)
        tau = rng.uniform(0.25, 0.8, m)
        value, pi = solve_index_lp(ur, uc, tau, tiebreak=ur)
        assert value == pytest.approx(linprog_value(ur, uc, tau), abs=1e-6)
        assert np.all(pi @ uc <= tau + 1e-7)
        assert np.count_nonzero(pi > 1e-9) <= m + 1


# --------------------------------------------------------------------------------------------------
# indices, first policies, radii
# --------------------------------------------------------------------------------------------------
def test_unpulled_indices_and_first_policies_are_safe_mixtures():
    inst = k_armed([0.1, 0.2, 0.4, 0.7], [0.2, 0.4, 0.5, 0.2], 0.5)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(0), {"safe_reward": "known"})
    ur, uc = learner.indices()
    np.testing.assert_array_equal(ur[1:], 1.0)
    np.testing.assert_array_equal(uc[1:, 0], 1.0)
    assert ur[0] == pytest.approx(0.1) and uc[0, 0] == 0.2  # known r1, c1
    d = learner.ask()
    assert d.probs[0] == pytest.approx(1 - (0.5 - 0.2) / (1 - 0.2))
    assert d.probs[1] == pytest.approx((0.5 - 0.2) / (1 - 0.2))
    # default (reward UCB of the safe arm): every early policy is a safe arm / unexplored arm mixture
    inst = make_instance("stagewise/four-arm", tau=0.3, T=1000)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    seen = set()
    for _ in range(20):
        d = learner.ask()
        support = np.flatnonzero(d.probs)
        assert support[0] == 0 and support.size <= 2 and d.probs @ inst.arm_costs[:, 0] <= 0.3
        if support.size == 2:
            assert d.probs[support[1]] == pytest.approx(0.3)  # (tau - c1) / (1 - c1), c1 = 0
            seen.add(int(support[1]))
        learner.tell(d, env.play(d))
    assert seen == {1, 2, 3}  # ties broken towards the less explored arms


def test_paper_unpulled_reading_is_literal():
    inst = make_instance("stagewise/four-arm", tau=0.5)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(0), {"unpulled": "paper"})
    ur, uc = learner.indices()
    np.testing.assert_array_equal(ur, 0.0)
    np.testing.assert_array_equal(uc[:, 0], 0.0)


def test_radii_and_levels():
    inst = make_instance("stagewise/four-arm", tau=0.2, T=1000)
    info = inst.public_info()
    rng = np.random.default_rng(0)
    learner = make_learner("opb", info, rng)
    assert (learner.alpha_r, learner.alpha_c) == pytest.approx((1 + 2 * 0.9 / 0.2, 1.0))
    assert learner.delta_prime == pytest.approx(0.05 / (4 * 4 * 1000))
    learner = make_learner("opb", info, rng, {"radii": "code", "confidence": "code"})
    assert learner.alpha_r == pytest.approx(1 + 1 / 0.2) and learner.delta_prime == pytest.approx(1e-6)
    learner = make_learner("opb", info, rng, {"alpha_r": 2.5, "alpha_c": 1.5, "horizon": 10})
    assert (learner.alpha_r, learner.alpha_c) == (2.5, 1.5) and learner.horizon == 10
    # beta of an arm pulled n times: sqrt(2 log(1/delta') / n)
    learner = make_learner("opb", info, rng, {"clip": False})
    learner._counts[2], learner._reward_sums[2], learner._cost_sums[2, 0] = 8, 2.0, 4.0
    ur, uc = learner.indices()
    beta = math.sqrt(2 * math.log(1 / learner.delta_prime) / 8)
    assert ur[2] == pytest.approx(0.25 + learner.alpha_r * beta) and uc[2, 0] == pytest.approx(0.5 + beta)


# --------------------------------------------------------------------------------------------------
# compiled loop = ask / tell
# --------------------------------------------------------------------------------------------------
def play_ask_tell(learner, env, n):
    arms, probs = np.empty(n, dtype=np.int64), np.empty((n, learner.n_arms))
    for i in range(n):
        d = learner.ask()
        arms[i], probs[i] = d.arm, d.probs
        learner.tell(d, env.play(d))
    return arms, probs


@pytest.mark.parametrize(
    "inst",
    [
        make_instance("stagewise/four-arm", tau=0.5, T=3000),
        k_armed([0.1, 0.5, 0.8, 0.6, 0.3], [0.1, 0.6, 0.9, 0.3, 0.2], 0.4, noise="gaussian", sigma=0.3),
        make_instance("stagewise/four-arm", tau=0.8, T=3000, known_safe_values=False),
        k_armed([0.1, 0.5, 0.8], [[0.0, 0.5, 0.9], [0.1, 0.7, 0.2]], [0.4, 0.5], T=3000),
    ],
    ids=["bernoulli", "gaussian", "warm-start", "two-constraints"],
)
def test_simulate_equals_ask_tell_bit_for_bit(inst):
    n = 2500 if inst.n_constraints == 1 else 400  # the HiGHS path costs about 1 ms per round
    info = inst.public_info()
    a = make_learner("opb", info, np.random.default_rng(7))
    b = make_learner("opb", info, np.random.default_rng(7))
    env_a, env_b = inst.environment(np.random.default_rng(8)), inst.environment(np.random.default_rng(8))
    arms_a, probs_a = play_ask_tell(a, env_a, n)
    blocks = [b.simulate(env_b, n // 4), b.simulate(env_b, 0), b.simulate(env_b, n - n // 4)]
    points = np.vstack([blk.points for blk in blocks])
    probs_b = np.vstack([blk.probs for blk in blocks])
    np.testing.assert_array_equal(points, np.eye(a.n_arms)[arms_a])
    np.testing.assert_array_equal(probs_b, probs_a)
    np.testing.assert_array_equal(a._reward_sums, b._reward_sums)
    np.testing.assert_array_equal(a._cost_sums, b._cost_sums)
    assert a.n_samples == b.n_samples == env_a.n_samples == env_b.n_samples == n
    assert a.diagnostics() == b.diagnostics()


def test_cancel_gives_back_the_uniform():
    inst = make_instance("stagewise/four-arm", tau=0.5)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(3))
    env = inst.environment(np.random.default_rng(4))
    for _ in range(30):
        d = learner.ask()
        learner.cancel()
        d2 = learner.ask()
        assert d2.arm == d.arm and np.array_equal(d2.probs, d.probs)
        learner.tell(d2, env.play(d2))


# --------------------------------------------------------------------------------------------------
# behaviour (fixed seeds)
# --------------------------------------------------------------------------------------------------
def test_four_arm_safety_regret_order_and_convergence():
    T, seeds = 2000, range(20)
    regret = {}
    for tau in (0.2, 0.5, 0.8):
        inst = make_instance("stagewise/four-arm", tau=tau, T=T)
        info, total, first, last = inst.public_info(), [], [], []
        for s in seeds:
            learner = make_learner("opb", info, np.random.default_rng(s))
            out = run_regret(learner, inst.environment(np.random.default_rng(10_000 + s)), inst)
            assert out.policy_violations == 0 and out.max_policy_cost[0] <= tau + 1e-9
            total.append(out.policy_regret)
            # the same run again, for the policies' rewards round by round
            learner = make_learner("opb", info, np.random.default_rng(s))
            blk = learner.simulate(inst.environment(np.random.default_rng(10_000 + s)), T)
            policy_reward = blk.probs @ inst.arm_rewards
            assert np.sum(inst.optimal_policy_value - policy_reward) == pytest.approx(out.policy_regret)
            first.append(policy_reward[:200].mean())
            last.append(policy_reward[-200:].mean())
        regret[tau] = np.mean(total)
        assert abs(0.7 - np.mean(last)) < abs(0.7 - np.mean(first))
    assert regret[0.2] > regret[0.5] > regret[0.8]


def test_unknown_safe_values_warm_start_first():
    inst = make_instance("stagewise/four-arm", tau=0.5, T=3000, known_safe_values=False)
    info = inst.public_info()
    assert info.safe_reward is None
    for s in range(5):
        learner = make_learner("opb", info, np.random.default_rng(s))
        blk = learner.simulate(inst.environment(np.random.default_rng(50 + s)), 3000)
        est = learner.warm_start.estimates
        assert est.certified and 0 < est.T0 < 3000
        np.testing.assert_array_equal(blk.probs[: est.T0], np.eye(4)[[0] * est.T0])
        assert learner.alpha_r == pytest.approx(1 + 6 * est.delta_r_hat / est.delta_c_min)
        assert np.all(blk.probs @ inst.arm_costs[:, 0] <= 0.5 + 1e-9)
        assert learner.diagnostics()["warm_start"]["T0"] == est.T0
    # an uncertifiable warm start (cap reached) leaves only the safe arm
    learner = make_learner("opb", info, np.random.default_rng(0), {"warm_start_cap": 5})
    blk = learner.simulate(inst.environment(np.random.default_rng(0)), 50)
    assert not learner.warm_start.certified and np.all(blk.points[:, 0] == 1.0)


def test_multi_constraint_run_is_safe():
    rng = np.random.default_rng(5)
    for s in range(3):
        k, m = 6, 2
        rewards = np.concatenate([[0.1], rng.random(k - 1)])
        costs = np.hstack([np.full((m, 1), 0.05), rng.random((m, k - 1))])
        inst = k_armed(rewards, costs, [0.4, 0.5], T=300)
        learner = make_learner("opb", inst.public_info(), np.random.default_rng(s))
        out = run_regret(learner, inst.environment(np.random.default_rng(s)), inst)
        assert out.policy_violations == 0
        assert np.count_nonzero(learner.policy() > 1e-9) <= m + 1


# --------------------------------------------------------------------------------------------------
# registry and errors
# --------------------------------------------------------------------------------------------------
def test_registry():
    entry = get_algorithm("opb")
    assert entry.cls is OPB and entry.task == "regret" and OPB.setting == "expectation"
    assert entry.config() == OPBConfig()


@pytest.mark.parametrize(
    "field, value",
    [
        ("delta", 0.0),
        ("delta", 1.0),
        ("confidence", "paper"),
        ("radii", "tuned"),
        ("alpha_r", -1.0),
        ("alpha_c", 0.0),
        ("noise_bound", 0.0),
        ("unpulled", "zero"),
        ("clip", "yes"),
        ("safe_reward", "true"),
        ("horizon", 0),
        ("warm_start_alpha", "literal"),
        ("warm_start_delta", 2.0),
        ("warm_start_cap", 0),
    ],
)
def test_bad_configs_raise(field, value):
    with pytest.raises(ConfigError, match=field):
        OPBConfig(**{field: value})


def test_bad_info_and_calls_raise():
    rng = np.random.default_rng(0)
    linear = make_instance("stagewise/cyclic", d=3)
    with pytest.raises(ConfigError, match="simplex"):
        make_learner("opb", linear.public_info(), rng)
    unknown = make_instance("stagewise/four-arm", known_safe_values=False)
    with pytest.raises(ConfigError, match="safe_reward"):
        make_learner("opb", unknown.public_info(), rng, {"safe_reward": "known"})
    learner = make_learner("opb", make_instance("stagewise/four-arm").public_info(), rng)
    with pytest.raises(ConfigError, match="context"):
        learner.ask(context=np.eye(4))
