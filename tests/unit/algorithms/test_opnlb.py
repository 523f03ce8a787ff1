"""OPNLB (Pacchiano, Ghavamzadeh & Bartlett, Algorithm 4) on finite function classes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from safebandits.algorithms import get_algorithm, make_learner
from safebandits.algorithms.regret.opnlb import (
    OPNLB,
    OPNLBConfig,
    confidence_radius,
    policy_values,
    solve_round,
)
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.problems.function_class import (
    FunctionClassInfo,
    FunctionClassInstance,
    FunctionClassProblem,
)
from safebandits.types import Observation

# An easy instance: arm 1 is best (reward 0.9, cost 0.2 <= tau); the classes are well separated.
G_R = np.array([[0.1, 0.9, 0.3], [0.1, 0.3, 0.9], [0.1, 0.5, 0.5]])
G_C = np.array([[0.0, 0.2, 0.8], [0.0, 0.8, 0.2], [0.0, 0.9, 0.9]])


def easy(**kw):
    return FunctionClassProblem(
        reward_class=G_R, cost_class=G_C, true_reward=0, true_cost=0, threshold=0.5, horizon=300, **kw
    ).instance()


def random_instance(seed, n_actions=4, n_functions=10):
    return make_instance(
        "stagewise/finite-class",
        np.random.default_rng(seed),
        n_actions=n_actions,
        n_functions=n_functions,
        T=300,
    )


def true_rows(inst):
    info = inst.public_info()
    tr = np.flatnonzero(np.all(info.reward_class == inst.reward_param, axis=1))[0]
    tc = np.flatnonzero(np.all(info.cost_class == inst.cost_params[0], axis=1))[0]
    return int(tr), int(tc)


def play(inst, seed, T=300, **cfg):
    """Ask / tell loop recording, per round, truth coverage, the policy's true reward and cost."""
    learner = OPNLB(OPNLBConfig(**cfg), inst.public_info(), np.random.default_rng(seed))
    env = inst.environment(np.random.default_rng(10_000 + seed))
    tr, tc = true_rows(inst)
    covered, rewards, costs = [], [], []
    for _ in range(T):
        mask_r, mask_c = learner.confidence_sets()
        covered.append(bool(mask_r[tr] and mask_c[tc]))
        d = learner.ask()
        assert d.probs[d.arm] > 0.0 and np.isclose(d.probs.sum(), 1.0) and np.all(d.probs >= 0.0)
        rewards.append(d.probs @ inst.reward_param)
        costs.append(d.probs @ inst.cost_params[0])
        learner.tell(d, env.play(d))
    return learner, np.array(covered), np.array(rewards), np.array(costs)


# -- problem type and zoo ------------------------------------------------------------------------


def test_problem_builds_simplex_instance_with_classes():
    inst = easy()
    assert isinstance(inst, FunctionClassInstance)
    assert inst.action_set == "simplex" and np.array_equal(inst.arms, np.eye(3))
    assert inst.safe_arm == 0 and inst.safe_reward == 0.1 and inst.safe_cost[0] == 0.0
    assert inst.optimal_policy_value == pytest.approx(0.9)
    info = inst.public_info()
    assert isinstance(info, FunctionClassInfo)
    assert np.array_equal(info.reward_class, G_R) and np.array_equal(info.cost_class, G_C)
    assert (info.n_actions, info.safe_arm, info.threshold, info.safe_cost) == (3, 0, 0.5, 0.0)
    assert not hasattr(info, "true_reward") and not hasattr(info, "reward_param")
    assert isinstance(inst.with_horizon(7), FunctionClassInstance)
    assert inst.describe()["n_cost_functions"] == 3


def test_zoo_family():
    inst = make_instance(
        "stagewise/finite-class", np.random.default_rng(3), n_actions=6, n_functions=7, tau=0.4
    )
    info = inst.public_info()
    assert info.reward_class.shape == (7, 6) and info.cost_class.shape == (7, 6)
    # Every function agrees on the safe action; the truth is a row of each class.
    assert np.all(info.reward_class[:, 0] == info.safe_reward)
    assert np.all(info.cost_class[:, 0] == info.safe_cost) and info.safe_cost < 0.4
    true_rows(inst)
    assert inst.noise.name == "bernoulli"


@pytest.mark.parametrize(
    "kw",
    [
        {"reward_class": G_R + 0.5},  # values outside [0, 1]
        {"cost_class": G_C[:, :2]},  # wrong number of actions
        {"true_reward": 3},
        {"true_cost": -1},
        {"safe_arm": 3},
        {"threshold": 0.0},
        {"noise": "poisson"},
        {"sigma": -1.0},
    ],
)
def test_bad_problem_raises(kw):
    base = dict(reward_class=G_R, cost_class=G_C, true_reward=0, true_cost=0, threshold=0.5)
    with pytest.raises(ConfigError):
        FunctionClassProblem(**{**base, **kw})


def test_unsafe_safe_action_rejected():
    with pytest.raises(InfeasibleInstanceError):
        FunctionClassProblem(
            reward_class=G_R, cost_class=G_C, true_reward=0, true_cost=0, threshold=0.5, safe_arm=2
        )


# -- configuration ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {"delta": 0.0},
        {"delta": 1.0},
        {"radius_form": "cubed"},
        {"radius_scale": 0.0},
        {"radius_scale": -1.0},
        {"alpha_r": -0.5},
        {"alpha_r": float("nan")},
        {"constrain_reward_safe": "yes"},
        {"constrain_reward_safe": 1},
        {"safe_tol": -1e-3},
        {"cache_size": -1},
        {"cache_size": 1.5},
    ],
)
def test_bad_config_raises(kw):
    with pytest.raises(ConfigError, match=next(iter(kw))):
        OPNLBConfig(**kw)


def test_bad_info_and_context_raise():
    stagewise = make_instance("stagewise/four-arm")
    with pytest.raises(ConfigError, match="FunctionClassInfo"):
        OPNLB(OPNLBConfig(), stagewise.public_info(), np.random.default_rng(0))
    learner = OPNLB(OPNLBConfig(), easy().public_info(), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="safe action"):
        learner.ask(context=[1, 2])
    with pytest.raises(ConfigError, match="indices"):
        learner.ask(context=[0, 5])


def test_registered():
    entry = get_algorithm("opnlb")
    assert entry.task == "regret" and entry.cls is OPNLB and OPNLB.setting == "expectation"
    cfg = entry.config(radius_scale=0.01)
    assert cfg.radius_form == "squared" and cfg.alpha_r is None


# -- estimation and confidence sets ----------------------------------------------------------------


def test_noiseless_least_squares_is_the_truth():
    rng = np.random.default_rng(0)
    g_r = rng.uniform(0, 1, (15, 5))
    g_c = rng.uniform(0, 1, (12, 5))
    g_r[:, 0], g_c[:, 0] = 0.2, 0.1
    info = FunctionClassInfo(g_r, g_c, safe_arm=0, safe_reward=0.2, safe_cost=0.1, threshold=0.6)
    for tr, tc in [(3, 7), (14, 0), (0, 11)]:
        learner = OPNLB(OPNLBConfig(cache_size=0), info, np.random.default_rng(tr))
        arms = []
        for _ in range(40):
            d = learner.ask()
            arms.append(d.arm)
            learner.tell(d, Observation(reward=g_r[tr, d.arm], constraints=np.array([g_c[tc, d.arm]])))
        assert len(set(arms) - {0}) >= 2  # enough actions seen to identify these (generic) functions
        assert learner.estimates() == (tr, tc)
        # The incremental losses and distances equal their definitions on the data.
        arms = np.array(arms)
        ys = g_r[tr, arms]
        loss = ((g_r[:, arms] - ys[None, :]) ** 2).sum(axis=1) - (ys**2).sum()
        assert np.allclose(learner._ls_r.loss, loss)
        best = learner.estimates()[0]
        assert np.allclose(learner._ls_r.dist2, ((g_r[:, arms] - g_r[best, arms][None, :]) ** 2).sum(axis=1))
        assert learner._ls_r.dist2[tr] == 0.0 and learner._ls_c.dist2[tc] == 0.0


def test_radius_and_forms():
    assert confidence_radius(10, 20, 0.025) == pytest.approx(512 * np.log(24 * 20 * np.log(20) / 0.025))
    info = easy().public_info()
    sq = OPNLB(OPNLBConfig(radius_scale=0.01), info, np.random.default_rng(0))
    lit = OPNLB(OPNLBConfig(radius_scale=0.01, radius_form="literal"), info, np.random.default_rng(0))
    # gamma(t, delta/2) with |G| = 3, delta = 0.05: the literal form bounds the norm, not its square.
    gamma = 0.01 * confidence_radius(1, 3, 0.025)
    assert sq.radii() == pytest.approx((gamma, gamma))
    assert lit.radii() == pytest.approx((gamma**2, gamma**2))


def test_sets_cover_truth_at_theory_radius():
    """radius_scale = 1: the truth is in both sets in every round of 30 seeded runs."""
    for seed in range(30):
        _, covered, _, _ = play(random_instance(seed), seed, T=300)
        assert covered.all()


def test_sets_cover_truth_at_small_radius():
    """radius_scale = 0.001 (squared radius about 5.6 instead of about 5 600): the truth stays in both sets
    in every round of 29 of these 30 seeded runs (98.8% of rounds); at 0.0003 only 11 of 30 runs stay
    covered and 4 runs play an infeasible policy; at 0.003, 30 of 30."""
    runs = [play(random_instance(seed), seed, T=300, radius_scale=0.001)[1].all() for seed in range(30)]
    assert sum(runs) >= 27


# -- safety, regret ----------------------------------------------------------------------------------


def test_no_policy_violations_and_learning():
    """radius_scale = 0.003: the sets shrink (from 10 functions to about 4), the truth stays covered in
    all 20 runs, and no policy's true expected cost exceeds tau (Lemma 37)."""
    sizes = []
    for seed in range(20):
        inst = random_instance(seed)
        learner, covered, _, costs = play(inst, seed, T=300, radius_scale=0.003)
        assert covered.all()
        assert np.all(costs <= inst.threshold[0] + 1e-9)
        diag = learner.diagnostics()
        sizes.append(diag["reward_set_size"] + diag["cost_set_size"])
    assert np.mean(sizes) < 12  # out of 20: learning happened


def test_run_regret_integration():
    inst = random_instance(1)
    learner = make_learner("opnlb", inst.public_info(), np.random.default_rng(1), {"radius_scale": 0.003})
    out = run_regret(learner, inst.environment(np.random.default_rng(2)), inst, horizon=300)
    assert out.rounds == 300 and out.policy_violations == 0 and out.regret == out.policy_regret
    assert out.info["n_solves"] + out.info["cache_hits"] == 300


def test_regret_per_round_decreases():
    inst = easy()
    for seed in range(5):
        _, covered, rewards, _ = play(inst, seed, T=300, radius_scale=0.01)
        regret = inst.optimal_policy_value - rewards
        assert covered.all()
        assert regret[-100:].mean() < regret[:100].mean()


def test_same_seed_same_trajectory():
    inst = random_instance(4)
    a = play(inst, 7, T=200, radius_scale=0.003)[2]
    b = play(inst, 7, T=200, radius_scale=0.003, cache_size=0)[2]
    assert np.array_equal(a, b)


# -- values and the per-round solver ------------------------------------------------------------------


def small_sets(rng, n, k_r, k_c, c0=0.1):
    g_r = rng.uniform(0, 1, (k_r, n))
    g_c = rng.uniform(0, 1, (k_c, n))
    g_c[:, 0] = c0
    return g_r, g_c


def test_values_are_max_over_triples():
    rng = np.random.default_rng(5)
    g_r, g_c = small_sets(rng, 4, 5, 4)
    pis = rng.dirichlet(np.ones(4), 50)
    v_r, v_c = policy_values(pis, g_r, g_c, 1.7)
    triples = [t + 1.7 * (a - b) for t, a, b in itertools.product(g_r, g_c, g_c)]
    assert np.allclose(v_r, (pis @ np.array(triples).T).max(axis=1))
    assert np.allclose(v_c, (pis @ g_c.T).max(axis=1))


def test_pessimistic_cost_of_safe_policy_is_c0():
    inst = random_instance(2)
    learner = OPNLB(OPNLBConfig(radius_scale=0.003), inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(0))
    pi0 = np.eye(4)[0]
    for _ in range(100):
        _, v_c = learner.values(pi0)
        assert v_c[0] == pytest.approx(inst.safe_cost[0], abs=1e-12)
        d = learner.ask()
        assert learner.values(d.probs)[1][0] <= inst.threshold[0] + 1e-12  # estimated-feasible
        learner.tell(d, env.play(d))


def simplex_grid(n, steps):
    pts = [c for c in itertools.product(range(steps + 1), repeat=n - 1) if sum(c) <= steps]
    grid = np.array([[*c, steps - sum(c)] for c in pts], dtype=float) / steps
    return grid


@pytest.mark.parametrize(("n", "steps"), [(3, 300), (4, 60)])
def test_solver_matches_brute_force(n, steps):
    rng = np.random.default_rng(n)
    grid = simplex_grid(n, steps)
    tau = 0.45
    for _ in range(8):
        g_r, g_c = small_sets(rng, n, int(rng.integers(1, 6)), int(rng.integers(1, 6)))
        alpha = float(rng.uniform(0.0, 3.0))
        sols = {
            m: solve_round(g_r, g_c, tau=tau, alpha_r=alpha, safe_arm=0, method=m)
            for m in ("auto", "vertices", "lp")
        }
        for sol in sols.values():
            v_r, v_c = policy_values(sol.pi, g_r, g_c, alpha)
            assert v_c[0] <= tau + 1e-12 and v_r[0] == pytest.approx(sol.value, abs=1e-12)
        assert sols["auto"].value == pytest.approx(sols["lp"].value, abs=1e-7)
        assert sols["vertices"].value == pytest.approx(sols["lp"].value, abs=1e-7)
        v_r, v_c = policy_values(grid, g_r, g_c, alpha)
        best_grid = v_r[v_c <= tau].max()
        assert sols["auto"].value >= best_grid - 1e-9  # no grid policy beats the solver
        assert sols["auto"].value <= best_grid + 0.05  # and the solver's value is attainable


def test_solver_large_branch_and_bound_agrees():
    """Past the vertex-enumeration cap, branch and bound (Lagrangian bounds) equals the plain LPs."""
    rng = np.random.default_rng(11)
    g_r, g_c = small_sets(rng, 8, 12, 12)
    auto = solve_round(g_r, g_c, tau=0.5, alpha_r=2.0, safe_arm=0)
    assert auto.n_lps > 0
    ref = solve_round(g_r, g_c, tau=0.5, alpha_r=2.0, safe_arm=0, method="lp")
    assert auto.value == pytest.approx(ref.value, abs=1e-7)


def test_empty_cost_set_falls_back_to_pi0():
    sol = solve_round(np.ones((1, 3)), np.zeros((0, 3)), tau=0.5, alpha_r=1.0, safe_arm=2)
    assert sol.fallback and np.array_equal(sol.pi, [0.0, 0.0, 1.0])
    # No cost function agrees with c0: C^c is always empty and OPNLB plays x0.
    info = FunctionClassInfo(G_R, G_C, safe_arm=0, safe_reward=0.1, safe_cost=0.05, threshold=0.5)
    learner = OPNLB(OPNLBConfig(), info, np.random.default_rng(0))
    assert learner.ask().arm == 0 and learner.diagnostics()["fallbacks"] == 1


def test_context_restricts_the_policy():
    learner = OPNLB(OPNLBConfig(), easy().public_info(), np.random.default_rng(0))
    d = learner.ask(context=np.array([True, False, True]))
    assert d.probs[1] == 0.0 and d.arm in (0, 2)
    assert learner.policy([0, 1])[2] == 0.0


def test_sets_use_the_known_safe_values():
    g_r = np.vstack([G_R, [0.4, 0.9, 0.9]])  # disagrees with r0 = 0.1 on x0
    g_c = np.vstack([G_C, [0.3, 0.0, 0.0]])  # disagrees with c0 = 0.0 on x0
    info = FunctionClassInfo(g_r, g_c, safe_arm=0, safe_reward=0.1, safe_cost=0.0, threshold=0.5)
    mask_r, mask_c = OPNLB(OPNLBConfig(), info, np.random.default_rng(0)).confidence_sets()
    assert mask_r.all() and mask_c.tolist() == [True, True, True, False]  # mu(x0) = c0 (Sec. 5.3)
    mask_r, _ = OPNLB(
        OPNLBConfig(constrain_reward_safe=True), info, np.random.default_rng(0)
    ).confidence_sets()
    assert mask_r.tolist() == [True, True, True, False]
