"""Stage-wise linear estimators, LC-LUCB, Safe-LTS and OPLB (Pacchiano, Ghavamzadeh & Bartlett)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.algorithms.base import config_from_dict, play_ask_tell
from safebandits.algorithms.registry import get_algorithm, make_learner
from safebandits.algorithms.regret.lc_lucb import LCLUCBConfig, StagewiseLinearLearner, ts_sample
from safebandits.algorithms.regret.oplb import OPLBConfig
from safebandits.algorithms.regret.safe_lts import SafeLTSConfig
from safebandits.estimators.confidence import adaptive_width
from safebandits.estimators.stagewise import StagewiseEstimator, orthonormal_complement
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems.noise import make_noise
from safebandits.problems.stagewise import StagewiseInstance, policy_mean_points

LEARNERS = ("lc-lucb", "safe-lts", "oplb")


def _instance(name: str, seed: int = 0, **kw):
    return sb.make_instance(name, np.random.default_rng(seed), **kw)


def _random_estimator(seed: int, x0_zero: bool = False, full: bool = False, n: int = 60, refresh: int = 1000):
    """An estimator of a random-linear problem (x0 != 0, two constraints) after ``n`` random rounds."""
    rng = np.random.default_rng(seed)
    d, m = 5, 2
    x0 = np.zeros(d) if x0_zero else rng.uniform(0.1, 0.5, d)
    mu, theta = rng.uniform(0, 1, (m, d)) / 2, rng.uniform(0, 1, d) / 2
    c0 = mu @ x0
    est = StagewiseEstimator(
        x0, c0 + 0.4, None if full else c0, reg=1.0, noise_bound=0.1, refresh_every=refresh
    )
    xs = rng.uniform(-1, 1, (n, d))
    rewards = xs @ theta + 0.1 * rng.standard_normal(n)
    costs = xs @ mu.T + 0.1 * rng.standard_normal((n, m))
    for x, r, c in zip(xs, rewards, costs):
        est.update(x, r, c)
    return est, xs, rewards, costs, rng


def _unit_ellipsoid(mat_inv: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points ``C u`` with ``C C^T = mat_inv`` and ``u`` on the unit sphere: the boundary of
    ``{v : ||v||_{mat} <= 1}``."""
    u = rng.standard_normal((n, mat_inv.shape[0]))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u @ np.linalg.cholesky(mat_inv).T


# --------------------------------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------------------------------
def test_closed_forms_equal_brute_force_over_the_ellipsoid():
    est, _, _, _, rng = _random_estimator(0)
    kr, kc = est.radii
    points = rng.uniform(-1, 1, (4, est.dim))
    # (9): max over ||theta - theta_hat||_Sigma <= kr of <x, theta>
    thetas = est.theta_hat + kr * _unit_ellipsoid(est.sigma_inv, 100_000, rng)
    brute_r = (points @ thetas.T).max(axis=1)
    closed_r = est.optimistic_reward(points)
    assert np.all(brute_r <= closed_r + 1e-12)
    np.testing.assert_allclose(brute_r, closed_r, atol=0.02 * kr * est.reward_norm(points).max())
    v_star = kr * points @ est.sigma_inv / est.reward_norm(points)[:, None]  # the maximiser (App. A)
    np.testing.assert_allclose(np.einsum("ij,ij->i", points, est.theta_hat + v_star), closed_r, rtol=1e-12)
    # (10): known part along e0 plus max over mu in V_o^perp with ||mu - mu_hat_perp||_{Sigma_perp} <= kc
    mus = kc * _unit_ellipsoid(est.perp_gram_inv, 100_000, rng) @ est.basis.T
    known = (points @ est.e0)[:, None] * (est.c0 / np.linalg.norm(est.x0))[None, :]
    closed_c = est.pessimistic_cost(points)
    for j in range(est.n_constraints):
        brute_c = known[:, j] + (points @ (est.mu_perp_hat[j] + mus).T).max(axis=1)
        assert np.all(brute_c <= closed_c[:, j] + 1e-12)
        np.testing.assert_allclose(brute_c, closed_c[:, j], atol=0.02 * kc * est.perp_norm(points).max())


@pytest.mark.parametrize("x0_zero", [False, True])
def test_safe_action_has_known_cost_and_lemma17(x0_zero):
    est, _, _, _, rng = _random_estimator(1, x0_zero=x0_zero)
    np.testing.assert_allclose(est.pessimistic_cost(est.x0)[0], est.c0, atol=1e-12)  # V~c(x0) = c0
    x = rng.uniform(-2, 2, (500, est.dim))
    assert np.all(est.perp_norm(x) <= est.reward_norm(x) + 1e-12)  # Lemma 17


def test_pessimistic_cost_is_affine_along_rays_and_scaling_is_tight():
    inst = _instance("stagewise/random-linear", 3, action_set="star", d=4, n_arms=6, n_constraints=2)
    learner = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0))
    learner.simulate(inst.environment(np.random.default_rng(1)), 200)
    est = learner.estimator
    x0, arms, tau = inst.safe_action, inst.arms, inst.threshold
    assert np.linalg.norm(x0) > 0 and not est.shared
    vertex_costs = est.pessimistic_cost(arms)
    for a in (0.0, 0.3, 0.7, 1.0, 1.6):
        ray = x0[None, :] + a * (arms - x0[None, :])
        expected = (1.0 - a) * inst.safe_cost[None, :] + a * vertex_costs
        np.testing.assert_allclose(est.pessimistic_cost(ray), expected, atol=1e-12)
    scale = est.ray_scaling(arms)
    scaled = est.pessimistic_cost(x0[None, :] + scale[:, None] * (arms - x0[None, :]))
    assert np.all(scaled <= tau + 1e-12)
    tight = scale < 1.0
    assert tight.any() and np.all(np.isclose(scaled - tau[None, :], 0.0, atol=1e-12).any(axis=1)[tight])
    expected_a = np.minimum(
        1.0,
        np.where(vertex_costs > tau, (tau - inst.safe_cost) / (vertex_costs - inst.safe_cost), np.inf).min(
            axis=1
        ),
    )
    np.testing.assert_allclose(scale, expected_a, rtol=1e-12)


@pytest.mark.parametrize("refresh", [0, 7])
def test_projected_estimator_equals_pseudo_inverse(refresh):
    est, xs, rewards, costs, _ = _random_estimator(2, refresh=refresh)
    lam, e0 = 1.0, est.e0
    perp = np.eye(est.dim) - np.outer(e0, e0)
    x_perp = xs @ perp
    sigma_perp = lam * perp + x_perp.T @ x_perp
    c_perp = costs - (xs @ e0)[:, None] * (est.c0 / np.linalg.norm(est.x0))[None, :]
    mu_perp = (np.linalg.pinv(sigma_perp) @ (x_perp.T @ c_perp)).T
    np.testing.assert_allclose(est.mu_perp_hat, mu_perp, atol=1e-10)
    np.testing.assert_allclose(est.sigma_perp, sigma_perp, atol=1e-10)
    np.testing.assert_allclose(est.sigma_perp_pinv, np.linalg.pinv(sigma_perp), atol=1e-10)
    sigma = lam * np.eye(est.dim) + xs.T @ xs
    np.testing.assert_allclose(est.theta_hat, np.linalg.solve(sigma, xs.T @ rewards), atol=1e-10)
    np.testing.assert_allclose(est.sigma_inv, np.linalg.inv(sigma), atol=1e-10)
    np.testing.assert_allclose(est.mu_hat @ e0, est.c0 / np.linalg.norm(est.x0), atol=1e-12)


def test_full_estimator_and_radii():
    est, xs, _, costs, _ = _random_estimator(4, full=True)
    sigma = np.eye(est.dim) + xs.T @ xs
    np.testing.assert_allclose(est.mu_hat, np.linalg.solve(sigma, xs.T @ costs).T, atol=1e-10)
    beta_r, beta_c = est.betas
    n, m = xs.shape[0], est.n_constraints
    want = adaptive_width(n, est.dim, 0.05 / (1 + m), 1.0, noise_bound=0.1)
    assert beta_r == pytest.approx(want) and beta_c == pytest.approx(want)  # full: d directions
    proj, *_ = _random_estimator(4)
    assert proj.betas[1] == pytest.approx(
        adaptive_width(n, est.dim - 1, 0.05 / (1 + m), 1.0, noise_bound=0.1)
    )
    code = StagewiseEstimator(np.zeros(3), [0.5], [0.0], radii="code", param_norm_bound=2.0, reward_scale=2.0)
    x = np.array([1.0, 0.5, 0.0])
    code.update(x, 0.3, [0.1])
    logdet = np.linalg.slogdet(np.eye(3) + np.outer(x, x))[1]
    noise = 2.0 * np.sqrt(2.0 * (0.5 * logdet + np.log(3.0)))  # delta_t = 1/(1 + t), t = 2
    assert code.radii == pytest.approx((2.0 * noise + 2.0, noise + 2.0))


def test_orthonormal_complement():
    u, e0, norm = orthonormal_complement(np.array([0.0, 3.0, 4.0]))
    assert norm == 5.0 and u.shape == (3, 2)
    np.testing.assert_allclose(u.T @ u, np.eye(2), atol=1e-14)
    np.testing.assert_allclose(u.T @ e0, 0.0, atol=1e-14)


@pytest.mark.parametrize(("x0_zero", "full"), [(False, False), (True, False), (False, True)])
def test_vertex_table_fields_are_the_terms_of_eqs_9_and_10(x0_zero, full):
    """Each named field of the vertex table is the term of V~r (eq. 9) or V~c (eq. 10) it says it is,
    row 0 being x0 (projected, x0 = 0 and full layouts)."""
    est, xs, _, _, _ = _random_estimator(3, x0_zero=x0_zero, full=full)
    pts = xs[:7]
    tbl = est.make_table(pts)
    rows = np.vstack([est.x0, pts])
    sinv = est.sigma_inv
    np.testing.assert_allclose(tbl.sxx, np.einsum("ij,jk,ik->i", rows, sinv, rows), atol=1e-12)
    np.testing.assert_allclose(tbl.s0x, rows @ sinv @ est.x0, atol=1e-12)
    np.testing.assert_allclose(tbl.rx, rows @ est.theta_hat, atol=1e-12)
    np.testing.assert_allclose(tbl.qc, est.perp_norm(rows) ** 2, atol=1e-12)
    kr, kc = est.radii
    np.testing.assert_allclose(
        tbl.lin + kc * np.sqrt(tbl.qc)[:, None], est.pessimistic_cost(rows), atol=1e-12
    )
    np.testing.assert_allclose(tbl.rx + kr * np.sqrt(tbl.sxx), est.optimistic_reward(rows), atol=1e-12)
    assert tbl.lin.shape == (8, 2) and tbl.vx.shape == (8, 5)


def test_vertex_table_stays_exact_under_rank_one_updates():
    inst = _instance("stagewise/random-linear", 5, action_set="star", n_constraints=2)
    learner = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0), {"refresh_every": 0})
    learner.simulate(inst.environment(np.random.default_rng(1)), 3000)
    live = learner._tbl.lin
    exact = learner.estimator.make_table(inst.arms).lin
    np.testing.assert_allclose(live, exact, atol=1e-10)


# --------------------------------------------------------------------------------------------------
# learners
# --------------------------------------------------------------------------------------------------
def test_lc_lucb_choice_equals_brute_force():
    inst = _instance("stagewise/random-linear", 6, action_set="star", n_constraints=2)
    learner = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    learner.simulate(env, 300)
    est, x0 = learner.estimator, inst.safe_action
    scale = est.ray_scaling(inst.arms)
    cands = np.vstack([x0, x0 + scale[:, None] * (inst.arms - x0)])
    assert np.all(est.pessimistic_cost(cands) <= inst.threshold + 1e-12)
    decision = learner.ask()
    np.testing.assert_allclose(decision.point, cands[np.argmax(est.optimistic_reward(cands))], atol=1e-12)
    learner.tell(decision, env.play(decision))


CASES = [
    ("stagewise/cyclic", {"d": 5, "tau": 0.5}),
    ("stagewise/random-linear", {"action_set": "star", "n_arms": 6}),
    ("stagewise/random-linear", {"action_set": "points", "n_arms": 6, "known_safe_values": False}),
    ("stagewise/four-arm", {"tau": 0.5}),
]


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize(("instance", "params"), CASES)
def test_simulate_equals_ask_tell_bit_for_bit(name, instance, params):
    if instance == "stagewise/four-arm" and name != "oplb":
        with pytest.raises(ConfigError, match=r"Remark 7|needs a 'stagewise'"):
            make_learner(name, _instance(instance, **params).public_info(), np.random.default_rng(0))
        return
    inst = _instance(instance, 7, **params)
    runs = []
    for compiled in (True, False):
        env = inst.environment(np.random.default_rng(8))
        learner = make_learner(name, inst.public_info(), np.random.default_rng(9))
        if compiled:
            blocks = [learner.simulate(env, k) for k in (137, 1500 - 137)]
            points = np.vstack([b.points for b in blocks])
            means = np.vstack(
                [b.points if b.probs is None else policy_mean_points(b.probs, inst.arms, inst.safe_action,
                                                                     inst.safe_arm) for b in blocks]
            )  # fmt: skip
        else:
            block = play_ask_tell(learner, env, 1500, safe_action=inst.safe_action, safe_arm=inst.safe_arm)
            points, means = block.points, block.means
        runs.append((points, means, learner.n_samples, env.n_samples))
    (p1, m1, n1, e1), (p2, m2, n2, e2) = runs
    assert np.array_equal(p1, p2)
    np.testing.assert_allclose(m1, m2, atol=1e-15)
    assert n1 == n2 == e1 == e2 == 1500


def _same_decision(a, b):
    return a.arm == b.arm and (
        (a.point is None and b.point is None) or (a.point is not None and np.array_equal(a.point, b.point))
    )


@pytest.mark.parametrize(
    ("instance", "params"),
    [
        ("stagewise/cyclic", {"d": 5, "tau": 0.5}),
        ("stagewise/random-linear", {"action_set": "star", "n_arms": 6, "known_safe_values": False}),
        ("stagewise/random-linear", {"action_set": "points", "n_arms": 6, "known_safe_values": False}),
    ],
)
def test_decisions_prepared_at_tell_equal_the_selection_at_ask(instance, params):
    """LC-LUCB selects the next action at tell (tell_then_select) and ask returns it; a twin that selects
    at ask (the two-kernel path) plays the same rounds, with cancels, contexts and an estimator change
    between tell and ask."""
    inst = _instance(instance, 3, **params)
    env = inst.environment(np.random.default_rng(4))
    fused = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0))
    plain = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0))
    plain._fuse = False
    plain._fused_choice = None
    prepared = 0
    for t in range(400):
        if t == 250:  # a change through the estimator between tell and ask: the prepared one is stale
            for lrn in (fused, plain):
                lrn.estimator.set_alphas(alpha_c=1.5)
        if t % 37 == 5:  # a round with another vertex matrix, cancelled
            ctx = inst.arms[::-1].copy()
            a, b = fused.ask(ctx), plain.ask(ctx)
            assert _same_decision(a, b)
            fused.cancel()
            plain.cancel()
        prepared += fused._prepared is not None
        a = fused.ask()
        if t % 11 == 3:  # cancelled and asked again: the same decision
            fused.cancel()
            again = fused.ask()
            assert _same_decision(a, again)
            a = again
        b = plain.ask()
        assert _same_decision(a, b), t
        assert fused.last_value == plain.last_value or (
            np.isnan(fused.last_value) and np.isnan(plain.last_value)
        )
        obs = env.play(a)
        fused.tell(a, obs)
        plain.tell(b, obs)
    assert prepared > 100
    for a, b in zip([*fused.estimator.state[:-2], *fused._tbl], [*plain.estimator.state[:-2], *plain._tbl]):
        assert np.array_equal(a, b)


@pytest.mark.slow
def test_lc_lucb_never_violates_over_100_runs():
    inst = _instance("stagewise/cyclic", d=5, tau=0.5)
    total = 0
    for seed in range(100):
        learner = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(seed))
        out = run_regret(learner, inst.environment(np.random.default_rng(1000 + seed)), inst, horizon=300)
        total += out.violations
    assert total == 0


def test_multi_constraint_lc_lucb_is_safe():
    # (on action_set="points" with known c0 these problems cannot start: see test_points_that_cannot_start)
    for seed in range(4):
        inst = _instance("stagewise/random-linear", seed, action_set="star", n_constraints=3)
        learner = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(seed))
        out = run_regret(learner, inst.environment(np.random.default_rng(50 + seed)), inst, horizon=2000)
        assert out.violations == 0


def test_unknown_safe_values_run_the_warm_start_first():
    inst = _instance("stagewise/random-linear", 2, action_set="star", known_safe_values=False)
    learner = make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    block = learner.simulate(env, 3000)
    diag = learner.diagnostics()
    t0 = diag["warm_start_rounds"]
    assert 0 < t0 < 3000 and diag["warm_certified"]
    assert np.all(block.points[:t0] == inst.safe_action)
    assert diag["alpha_r"] == pytest.approx(1.0 + 6.0 * diag["warm_delta_r_hat"] / diag["warm_delta_c_min"])
    costs = block.points @ inst.cost_params.T
    assert np.all(costs <= inst.threshold + 1e-9)
    assert not np.all(block.points[t0:] == inst.safe_action)


@pytest.mark.slow
def test_oplb_policies_are_pessimistically_and_truly_feasible():
    for seed in range(30):
        instance = ("stagewise/four-arm", {"tau": 0.2}) if seed % 2 else ("stagewise/cyclic", {"d": 4})
        inst = _instance(instance[0], seed, **instance[1])
        learner = make_learner("oplb", inst.public_info(), np.random.default_rng(seed))
        env = inst.environment(np.random.default_rng(100 + seed))
        out = run_regret(learner, env, inst, horizon=400)
        assert out.policy_violations == 0
    inst = _instance("stagewise/random-linear", 1, action_set="points", n_arms=6, n_constraints=2)
    learner = make_learner("oplb", inst.public_info(), np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    for _ in range(300):
        decision = learner.ask()
        mean = policy_mean_points(decision.probs, inst.arms, inst.safe_action, inst.safe_arm)
        assert np.all(learner.estimator.pessimistic_cost(mean) <= inst.threshold + 1e-9)
        assert learner.estimator.optimistic_reward(mean)[0] == pytest.approx(learner.last_value, abs=1e-9)
        assert np.all(decision.probs >= 0) and decision.probs.sum() <= 1 + 1e-12
        learner.tell(decision, env.play(decision))


def test_oplb_beats_dense_search_over_three_supports():
    inst = _instance("stagewise/random-mab", 1, K=6)
    learner = make_learner("oplb", inst.public_info(), np.random.default_rng(3), {"solver": "search"})
    env = inst.environment(np.random.default_rng(2))
    learner.simulate(env, 400)
    learner.ask()
    est, arms, x0 = learner.estimator, inst.arms, inst.safe_action
    phis = np.linspace(0.0, 1.0, 1001)[:, None]
    best = -np.inf
    for i in range(1, 6):
        for k in range(i, 6):
            y = (1 - phis) * arms[i] + phis * arms[k]
            pts = x0 + est.ray_scaling(y)[:, None] * (y - x0)
            best = max(best, est.optimistic_reward(pts).max())
    assert learner.last_value >= best - 1e-12


def test_safe_lts_sample_distribution():
    est, *_ = _random_estimator(8, x0_zero=True)
    kr, _ = est.radii
    rng = np.random.default_rng(0)
    low, out = np.zeros((est.dim, est.dim)), np.zeros(est.dim)
    draws = np.empty((20000, est.dim))
    for k, eta in enumerate(rng.standard_normal((20000, est.dim))):
        ts_sample(est.state, eta, 2.0, low, out)  # N(theta_hat, 2^2 kr^2 Sigma^{-1})
        draws[k] = out
    cov = 4.0 * kr**2 * est.sigma_inv
    z = (draws.mean(axis=0) - est.theta_hat) / np.sqrt(np.diag(cov) / draws.shape[0])
    assert np.all(np.abs(z) < 4.5)
    assert np.linalg.norm(np.cov(draws.T) - cov) < 0.05 * np.linalg.norm(cov)


def test_cancel_gives_back_the_randomness():
    inst = _instance("stagewise/cyclic", d=4)
    for name in ("safe-lts", "oplb"):
        learner = make_learner(name, inst.public_info(), np.random.default_rng(0))
        learner.simulate(inst.environment(np.random.default_rng(1)), 50)
        first = learner.ask()
        learner.cancel()
        again = learner.ask()
        assert first.arm == again.arm
        assert (first.point is None and again.point is None) or np.array_equal(first.point, again.point)


def test_registry_and_settings():
    assert get_algorithm("lc-lucb").task == "regret"
    inst = _instance("stagewise/cyclic", d=3)
    info = inst.public_info()
    assert make_learner("oplb", info, np.random.default_rng(0)).setting == "expectation"
    assert make_learner("safe-lts", info, np.random.default_rng(0)).setting == "round"
    learner = make_learner("lc-lucb", info, np.random.default_rng(0))
    tau, r0 = inst.threshold[0], inst.safe_reward
    assert learner.diagnostics()["alpha_r"] == pytest.approx(1 + 2 * (1 - r0) / (tau - inst.safe_cost[0]))
    assert (
        make_learner("lc-lucb", info, np.random.default_rng(0), {"alpha_r": 3.0}).diagnostics()["alpha_r"]
        == 3
    )


@pytest.mark.parametrize(
    ("cls", "field", "value"),
    [
        (LCLUCBConfig, "delta", 1.5),
        (LCLUCBConfig, "reg", 0.0),
        (LCLUCBConfig, "radii", "exact"),
        (LCLUCBConfig, "alpha_r", -1.0),
        (LCLUCBConfig, "alpha_c", 0),
        (LCLUCBConfig, "refresh_every", -1),
        (LCLUCBConfig, "safe_value_ucb", "r0"),
        (SafeLTSConfig, "inflation", 0.0),
        (OPLBConfig, "n_grid", 0),
        (OPLBConfig, "refine_iters", 2.5),
    ],
)
def test_bad_configs_raise(cls, field, value):
    with pytest.raises(ConfigError, match=f"'{field}' parameter of {cls.__name__}"):
        cls(**{field: value})


def test_unknown_config_key_and_bad_info():
    with pytest.raises(ValueError, match="no parameter"):
        config_from_dict(LCLUCBConfig, {"alpha": 2.0})
    info = _instance("stagewise/cyclic", d=3).public_info()
    learner = make_learner("lc-lucb", info, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="context"):
        learner.ask(np.ones((2, 4)))


def _origin_problem(action_set, known=True, scale=1.0):
    """x0 = 0, six unit vertices in the positive orthant (one shrunk by ``scale``), one constraint."""
    rng = np.random.default_rng(0)
    arms = np.abs(rng.normal(size=(6, 4)))
    arms /= np.linalg.norm(arms, axis=1)[:, None]
    arms[0] *= scale
    theta = np.abs(rng.normal(size=4))
    mu = np.abs(rng.normal(size=(1, 4)))
    return StagewiseInstance(
        arms=arms, safe_action=np.zeros(4), reward_param=theta / np.linalg.norm(theta),
        cost_params=mu / np.linalg.norm(mu), threshold=np.array([0.85]), noise=make_noise("gaussian", 0.1),
        action_set=action_set, horizon=2000, known_safe_values=known, name="origin",
    )  # fmt: skip


@pytest.mark.parametrize("name", ["lc-lucb", "safe-lts"])
@pytest.mark.parametrize("known", [True, False])
def test_points_that_cannot_start(name, known, monkeypatch):
    # Issue 16: LC-LUCB on action_set="points" with x0 = 0 played x0 for all rounds without a word.
    inst = _origin_problem("points", known)
    assert np.any(inst.arm_costs[:, 0] <= 0.85)  # some vertex is truly safe and better than x0
    with pytest.raises(ConfigError, match=r"cannot start.*x0 = 0.*action_set='star'.*OPLB.*noise_bound"):
        make_learner(name, inst.public_info(), np.random.default_rng(0))
    # the refusal is exact: without it the learner plays x0 in every round
    monkeypatch.setattr(StagewiseLinearLearner, "_check_points_can_start", lambda self, owner: None)
    learner = make_learner(name, inst.public_info(), np.random.default_rng(0))
    block = play_ask_tell(
        learner,
        inst.environment(np.random.default_rng(1)),
        2000,
        safe_action=inst.safe_action,
        safe_arm=inst.safe_arm,
    )
    assert np.all(block.points == 0.0)


def test_points_with_x0_known_c0_cannot_start_either():
    inst = _instance("stagewise/random-linear", 0, action_set="points", n_constraints=3)
    with pytest.raises(ConfigError, match="c0 is known"):
        make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0))


def test_origin_problem_learns_on_star_and_on_points_that_can_start():
    star = _origin_problem("star")
    out = run_regret(make_learner("lc-lucb", star.public_info(), np.random.default_rng(0)),
                     star.environment(np.random.default_rng(1)), star)  # fmt: skip
    assert out.reward > 0.3 and out.violations == 0
    # a short first vertex is pessimistically feasible from the start: the learner starts and moves on
    points = _origin_problem("points", scale=0.1)
    learner = make_learner("lc-lucb", points.public_info(), np.random.default_rng(0))
    block = play_ask_tell(
        learner,
        points.environment(np.random.default_rng(1)),
        2000,
        safe_action=points.safe_action,
        safe_arm=points.safe_arm,
    )
    assert np.any(block.points != 0.0)
    assert make_learner("oplb", _origin_problem("points").public_info(), np.random.default_rng(0))


@settings(max_examples=30, deadline=None)
@given(
    d=st.integers(1, 5),
    m=st.integers(1, 3),
    known=st.booleans(),
    x0_zero=st.booleans(),
    radii=st.sampled_from(["theory", "code"]),
    reg=st.floats(0.01, 10.0),
)
def test_estimator_without_input_checks_is_the_same_estimator(d, m, known, x0_zero, radii, reg):
    """``check_input=False`` (learners, which checked their problem and config) builds the same state,
    bit for bit, as the checked path; the memoised complement of ``x0`` equals a fresh one."""
    rng = np.random.default_rng(d + 10 * m)
    x0 = np.zeros(d) if x0_zero else rng.normal(size=d)
    tau = rng.uniform(0.5, 1.0, size=m)
    c0 = rng.uniform(0.0, 0.4, size=m) if known else None
    kw = dict(reg=reg, delta=0.1, noise_bound=0.5, param_norm_bound=2.0, arm_norm_bound=1.5, radii=radii)
    checked = StagewiseEstimator(x0, tau, c0, **kw)
    trusted = StagewiseEstimator(
        x0.copy(), tau.copy(), None if c0 is None else c0.copy(), check_input=False, **kw
    )
    for a, b in zip(trusted.state[:-2], checked.state[:-2], strict=True):
        np.testing.assert_array_equal(a, b)
    assert trusted.state.const == checked.state.const
    assert trusted.live.tobytes() == checked.live.tobytes()
    if known and not x0_zero:
        u, e0, _ = orthonormal_complement(x0)
        np.testing.assert_array_equal(checked.basis, u)
        np.testing.assert_array_equal(checked.e0, e0)
        assert not checked.basis.flags.writeable  # (shared by every estimator of this x0)


def test_estimator_checks_its_input_by_default():
    with pytest.raises(ConfigError, match="safe_cost"):
        StagewiseEstimator(np.ones(3), np.array([0.5]), np.zeros(2))
    with pytest.raises(ConfigError, match="refresh_every"):
        StagewiseEstimator(np.ones(3), np.array([0.5]), refresh_every=-1)
    with pytest.raises(ConfigError, match="reward_scale"):
        StagewiseEstimator(np.ones(3), np.array([0.5]), reward_scale=0.0)


def test_code_radii_need_a_positive_threshold():
    """``radii="code"`` divides the reward radius by ``min(1, tau)``: a threshold <= 0 (with a negative
    ``c0 < tau``) is refused with one clear line, not a division by zero or a negative radius."""
    inst = StagewiseInstance(
        arms=np.eye(2), safe_action=np.array([1.0, 0.0]), reward_param=np.array([0.5, 0.2]),
        cost_params=np.array([[-1.0, 0.1]]), threshold=np.array([-0.5]),
        noise=make_noise("gaussian", sigma=0.1), horizon=10,
    )  # fmt: skip
    with pytest.raises(ConfigError, match="min\\(1, tau\\)"):
        make_learner("lc-lucb", inst.public_info(), np.random.default_rng(0), {"radii": "code"})


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("told", ["known", "unknown"])
def test_exact_refresh_outside_the_kernels_changes_nothing(name, told):
    """The exact refresh runs outside the compiled update (the loops stop for it, ask / tell runs it
    after the update): both paths play the same rounds, and the estimator's state equals that of an
    estimator told the same rounds through its own update (refresh inside its kernel), bit for bit.
    ``unknown``: the safe action's reward and cost are not told (warm start, full cost estimator)."""
    import dataclasses

    inst = _instance("stagewise/cyclic", d=3, tau=0.5, T=400)
    info = inst.public_info()
    if told == "unknown":
        info = dataclasses.replace(info, safe_reward=None, safe_cost=None)
    n = 90

    def fresh():
        return make_learner(name, info, np.random.default_rng(3), {"refresh_every": 7})

    asked, env = fresh(), inst.environment(np.random.default_rng(4))
    rounds = []
    for _ in range(n):
        d = asked.ask()
        obs = env.play(d)
        rounds.append((env.point_of(d).copy(), obs))
        asked.tell(d, obs)
    fast = fresh()
    points = fast.simulate(inst.environment(np.random.default_rng(4)), n).points
    assert points.tolist() == [x.tolist() for x, _ in rounds]
    reference = fresh().estimator
    for x, obs in rounds:
        reference.update(x, obs.reward, obs.constraints)
    for learner in (asked, fast):
        est = learner.estimator
        assert not est.refresh_due  # (none pending outside a compiled call)
        for field in ("sigma_inv", "sigma", "b_r", "theta", "m_inv", "m_gram", "b_c", "nu"):  # (not scratch)
            got, want = getattr(est.state, field), getattr(reference.state, field)
            assert got.tobytes() == want.tobytes(), field
        assert est.live[["t", "since_refresh", "logdet_sigma", "logdet_m"]].tolist() == (
            reference.live[["t", "since_refresh", "logdet_sigma", "logdet_m"]].tolist()
        )
    assert reference.n_samples == n  # (twelve refreshes on the way)
