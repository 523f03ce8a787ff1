"""Safe-LUCB and GSLUCB (Amani et al. 2019): Lemma 1, Remark 1, safe sets, optimistic step, trajectories."""

import json
import math

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.gslucb import GSLUCBConfig
from safebandits.algorithms.regret.safe_lucb import (
    SafeLUCBConfig,
    bound15,
    exploration_lengths,
    gap_lcb,
)
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.problems.noise import make_noise
from safebandits.problems.safe_linear import (
    DecisionSet,
    RadialProblem,
    SafeLinearInstance,
    boundary_grid_step,
    directions_grid,
    estimated_safety_ucb,
    radial_step,
)
from safebandits.records import EstimateSnapshot

B2 = np.array([[1.0, 0.3], [-0.2, 0.9]])


def convex(kind="ball", d=2, horizon=2000, c=0.3, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "ball":
        ds = DecisionSet("ball", center=np.zeros(d), radius=1.0)
    else:
        ds = DecisionSet(
            "polytope", g_mat=np.vstack([np.eye(d), -np.eye(d)]), h_vec=np.full(2 * d, 1 / np.sqrt(d))
        )
    b = B2 if d == 2 else np.eye(d) + 0.2 * rng.standard_normal((d, d)) / np.sqrt(d)
    mu = rng.standard_normal(d)
    return SafeLinearInstance(decision_set=ds, mu=mu / np.linalg.norm(mu), b_mat=b, threshold=c,
                              noise=make_noise("gaussian", 0.1), horizon=horizon)  # fmt: skip


def karm(seed=0, horizon=3000):
    return make_instance("safelucb/karm", np.random.default_rng(seed), T=horizon, condition="margin")


def learner(inst, name="safe-lucb", seed=0, **cfg):
    return make_learner(name, inst.public_info(), np.random.default_rng(seed), cfg)


def ask_tell(lrn, inst, n, seed=1):
    env = inst.environment(np.random.default_rng(seed))
    pts = []
    for _ in range(n):
        d = lrn.ask()
        pts.append(env.point_of(d).copy())
        lrn.tell(d, env.play(d))
    return np.array(pts)


# --------------------------------------------------------------------------------------------------
# Lemma 1, Remark 1, exploration lengths
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "sampler"), [("ball", "shell"), ("polytope", "rejection"), ("arms", "rejection")]
)
def test_lemma1_holds_in_at_least_one_minus_delta_of_trials(kind, sampler):
    delta, reg = 0.05, 1.0
    inst = karm() if kind == "arms" else convex(kind, d=3)
    lrn = learner(inst, sampler=sampler, delta=delta, reg=reg, t_prime="none")
    lam, t_delta = lrn.lengths["lambda_minus"], lrn.lengths["t_delta"]
    assert t_delta == pytest.approx(
        8 * inst.public_info().arm_norm_bound ** 2 / lam * math.log(inst.dim / delta)
    )
    n = math.ceil(t_delta)
    fails = 0
    for trial in range(100):
        rng = np.random.default_rng(trial)
        if kind == "arms":
            x = inst.arms[lrn._dw[rng.integers(0, lrn._dw.size, n)]]
        else:
            x = lrn._draw_convex(rng, n)
        fails += np.linalg.eigvalsh(reg * np.eye(inst.dim) + x.T @ x)[0] < reg + lam * n / 2
    assert fails <= delta * 100


def test_remark1_shell_covariance_by_monte_carlo():
    inst = convex("polytope", d=2)
    lrn = learner(inst, sampler="shell", t_prime="none")
    eps, d = lrn._eps, 2
    x = lrn._draw_convex(np.random.default_rng(0), 400_000)
    np.testing.assert_allclose(np.linalg.norm(x @ B2.T, axis=1), eps)
    sigma = eps**2 / d * np.linalg.inv(B2.T @ B2)
    np.testing.assert_allclose(x.T @ x / x.shape[0], sigma, atol=4e-3 * np.abs(sigma).max())
    assert lrn.lengths["lambda_minus"] == pytest.approx(eps**2 / (d * np.linalg.norm(B2, 2) ** 2))
    assert lrn.lengths["lambda_minus"] == pytest.approx(np.linalg.eigvalsh(sigma)[0])
    assert inst.decision_set.contains(x).all() and inst.in_conservative_set(x).all()


def test_exploration_lengths_formulas():
    kw = dict(horizon=10**5, dim=2, delta=0.01, reg=1.0, noise_bound=0.1, arm_norm=1.0, param_norm=1.0,
              norm_b=1.2, lambda_minus=0.1)  # fmt: skip
    ln = exploration_lengths(**kw, gap=0.5)
    beta = 0.1 * math.sqrt(2 * math.log((1 + (10**5 - 1)) / 0.01)) + 1.0
    assert ln["beta_T"] == pytest.approx(beta)
    assert ln["t_delta"] == pytest.approx(80 * math.log(200))
    assert ln["T_Delta"] == pytest.approx(max(8 * 1.44 * beta**2 / (0.1 * 0.25) - 20, ln["t_delta"]))
    assert ln["T0"] == pytest.approx(max((1.2 * beta * 1e5) ** (2 / 3), ln["t_delta"]))
    grid = np.arange(math.ceil(ln["t_delta"]), 10**5)
    vals = bound15(grid, 10**5, 2, beta, 1.0, 0.1, 1.0, 1.2)
    assert ln["T0_numerical"] == grid[np.argmin(vals)]
    assert math.isinf(exploration_lengths(**kw, gap=None)["T_Delta"])
    # memoised by value, a fresh dict on each call, the uncached values
    from safebandits.algorithms.regret.safe_lucb import _exploration_lengths

    again = exploration_lengths(**kw, gap=0.5)
    assert again == ln and again is not ln
    again["t_delta"] = -1.0
    assert exploration_lengths(**kw, gap=0.5) == ln
    assert _exploration_lengths.__wrapped__(*kw.values(), 0.5, 2.0) == ln
    assert exploration_lengths(**{**kw, "lambda_minus": np.array(0.1)}, gap=0.5) == ln  # (unhashable)


def test_t_delta_below_t0_on_karm_instances():
    for seed in range(8):
        lrn = learner(karm(seed, horizon=10**5), t_prime="t_delta")
        ln = lrn.lengths
        assert ln["T_Delta"] <= 0.5 * ln["T0"]
        assert lrn.live["t_prime"] == math.ceil(ln["T_Delta"])


# --------------------------------------------------------------------------------------------------
# estimated safe set, gap LCB, safety
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["arms", "ball"])
def test_estimated_safe_set_inside_true_safe_set_on_confidence_event(kind):
    inst = karm(3) if kind == "arms" else convex("ball", c=0.3, seed=2)
    lrn = learner(inst, t_prime=50)
    env = inst.environment(np.random.default_rng(5))
    probe = inst.arms if kind == "arms" else np.random.default_rng(0).uniform(-1, 1, (4000, 2))
    probe = probe[inst.decision_set.contains(probe)]
    checked = 0
    for t in range(1500):
        d = lrn.ask()
        lrn.tell(d, env.play(d))
        if t % 100:
            continue
        e = lrn.estimated_safe_set()
        on_event = math.sqrt((e["theta"] - inst.mu) @ e["a"] @ (e["theta"] - inst.mu)) <= e["beta"]
        ucb = estimated_safety_ucb(probe, e["b_mat"], e["theta"], e["a"], e["beta"])
        if on_event:
            checked += 1
            assert np.all(ucb >= inst.safety_values(probe) - 1e-12)
            assert inst.in_safe_set(probe[ucb <= inst.threshold]).all()
    assert checked >= 10


def test_gap_lcb_valid_on_the_event_and_plugin_larger():
    inst = karm(1)
    lrn = learner(inst, "gslucb")
    env = inst.environment(np.random.default_rng(2))
    k = inst.arms.shape[0]
    for _ in range(400):
        d = lrn.ask()
        lrn.tell(d, env.play(d))
        e = lrn.estimated_safe_set()
        r = lrn._ridge
        valid = gap_lcb(r.preds, r.sq_widths, k, e["beta"], inst.threshold, 0)
        plugin = gap_lcb(r.preds, r.sq_widths, k, e["beta"], inst.threshold, 1)
        on_event = math.sqrt((e["theta"] - inst.mu) @ e["a"] @ (e["theta"] - inst.mu)) <= e["beta"]
        if on_event:
            assert valid <= inst.safety_gap + 1e-12
        assert plugin >= valid - 1e-12 or plugin == -np.inf


def test_zero_violations_over_many_seeded_short_runs():
    total = 0
    for seed in range(12):
        for name, cfg in (
            ("safe-lucb", {"t_prime": "t_delta"}),
            ("safe-lucb", {"t_prime": "none"}),
            ("gslucb", {}),
        ):
            inst = karm(seed, horizon=2000)
            env = inst.environment(np.random.default_rng(seed))
            total += run_regret(learner(inst, name, seed, **cfg), env, inst).violations
    for seed in range(4):
        inst = convex("polytope", c=0.2, seed=seed, horizon=600)
        env = inst.environment(np.random.default_rng(seed))
        total += run_regret(learner(inst, seed=seed, t_prime=100), env, inst).violations
    assert total == 0


# --------------------------------------------------------------------------------------------------
# convex optimistic step
# --------------------------------------------------------------------------------------------------
def random_state(rng, d=2):
    m = rng.standard_normal((d, d))
    a = np.eye(d) + 30 * rng.random() * (m @ m.T)
    return rng.standard_normal(d) * 0.7, np.linalg.inv(a), rng.uniform(0.3, 1.5)


def objective(x, theta, a_inv, beta):
    return theta @ x - beta * math.sqrt(max(x @ a_inv @ x, 0.0))


@pytest.mark.parametrize("kind", ["ball", "polytope"])
def test_radial_step_matches_fine_discretisation(kind):
    ds = convex(kind).decision_set
    rng = np.random.default_rng(0)
    dense = np.random.default_rng(1).uniform(-1, 1, (300_000, 2))
    dense = np.vstack([dense[ds.contains(dense, tol=0.0)], np.zeros((1, 2))])
    dirs = directions_grid(2, 720)
    rho0 = ds.radial(dirs)
    out = np.zeros(2)
    for _ in range(15):
        theta, a_inv, beta = random_state(rng)
        c = rng.uniform(0.1, 0.6)
        val = radial_step(RadialProblem(ds.kernel_args(), dirs, rho0, B2, c), theta, a_inv, beta, True, out)
        assert val == pytest.approx(objective(out, theta, a_inv, beta), abs=1e-9)
        ucb = estimated_safety_ucb(out, B2, theta, np.linalg.inv(a_inv), beta)[0]
        assert ucb <= c + 1e-9 and ds.contains(out, tol=1e-12)[0]
        ok = estimated_safety_ucb(dense, B2, theta, np.linalg.inv(a_inv), beta) <= c
        f = dense[ok] @ theta - beta * np.sqrt(np.einsum("ij,jk,ik->i", dense[ok], a_inv, dense[ok]))
        assert val <= f.min() + 1e-9  # at least as good as every grid point of D_t^s
        assert val >= f.min() - 2e-2  # and the grid is fine enough to get close


def test_boundary_grid_socp_agrees_with_radial():
    ds = convex("polytope").decision_set
    rng = np.random.default_rng(3)
    dirs = directions_grid(2, 720)
    rho0 = ds.radial(dirs)
    out = np.zeros(2)
    for _ in range(2):
        theta, a_inv, beta = random_state(rng)
        val = radial_step(RadialProblem(ds.kernel_args(), dirs, rho0, B2, 0.4), theta, a_inv, beta, True, out)
        x = boundary_grid_step(ds, theta, a_inv, B2, beta, 0.4, n_v=90)
        assert objective(x, theta, a_inv, beta) >= val - 1e-6
        assert objective(x, theta, a_inv, beta) == pytest.approx(val, abs=2e-2)


def test_convex_solvers_give_safe_runs():
    inst = convex("ball", c=0.3, seed=4, horizon=300)
    for solver in ("discretise", "radial"):
        out = run_regret(learner(inst, t_prime=50, convex_solver=solver, n_directions=180),
                         inst.environment(np.random.default_rng(0)), inst)  # fmt: skip
        assert out.violations == 0


# --------------------------------------------------------------------------------------------------
# trajectories, diagnostics, validation
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("which", "name", "cfg"),
    [
        ("arms", "safe-lucb", {"t_prime": "t_delta"}),
        ("arms", "safe-lucb", {"t_prime": "none", "width": "logdet"}),
        ("arms", "gslucb", {}),
        ("arms", "gslucb", {"gap_lcb": "plugin", "t0_rule": "t0-numerical"}),
        ("ball", "safe-lucb", {"t_prime": 300, "sampler": "shell"}),
    ],
)
def test_simulate_equals_ask_tell(which, name, cfg):
    n = 3500 if which == "arms" else 700
    inst = karm(2, horizon=n) if which == "arms" else convex("ball", horizon=n)
    a = learner(inst, name, 7, **cfg)
    pts = ask_tell(a, inst, n, seed=11)
    b = learner(inst, name, 7, **cfg)
    env = inst.environment(np.random.default_rng(11))
    sim = np.vstack([b.simulate(env, k).points for k in (n // 3, 1, n - n // 3 - 1)])
    np.testing.assert_array_equal(pts, sim)
    da, db = a.diagnostics(), b.diagnostics()
    assert da == db and da["exploration_finished"]
    assert b.n_samples == n == env.n_samples


@pytest.mark.parametrize(("name", "cfg"), [("safe-lucb", {"t_prime": 40}), ("gslucb", {})])
def test_the_exact_refresh_run_from_python_is_the_same_in_both_paths(name, cfg):
    """The exact refresh falls due with a sample (``refresh_every`` rounds); the compiled update marks it
    (``refresh_pending``), the driver stops before the next round and the learner refreshes, then
    GSLUCB's step (``refresh_then_gap``); ask / tell does the same in ``tell``. Simulated in pieces that
    end on a refresh and across them, the trajectory, the ridge and the live record are those of ask /
    tell, and no refresh is left pending between calls."""
    n = 400
    inst = karm(2, horizon=n)
    a = learner(inst, name, 7, refresh_every=7, **cfg)
    pts = ask_tell(a, inst, n, seed=11)
    b = learner(inst, name, 7, refresh_every=7, **cfg)
    env = inst.environment(np.random.default_rng(11))
    pieces, played, sizes = [], 0, [7, 1, 6, 14, 3, 11]
    while played < n:
        k = min(sizes[len(pieces) % len(sizes)], n - played)
        pieces.append(b.simulate(env, k).points)
        played += k
        assert not b.live["refresh_pending"]
    np.testing.assert_array_equal(np.vstack(pieces), pts)
    for field in ("theta", "a_inv", "preds", "sq_widths"):
        np.testing.assert_array_equal(getattr(b.state.ridge, field), getattr(a.state.ridge, field))
    for field in a.live.dtype.names:
        np.testing.assert_array_equal(b.live[field], a.live[field])  # (NaN where GSLUCB's gap is unused)
    assert a.diagnostics() == b.diagnostics()


def test_diagnostics_and_cancel():
    inst = karm(0, horizon=3000)
    lrn = learner(inst, t_prime="t_delta")
    before = lrn.diagnostics()
    assert not before["exploration_finished"] and before["estimate_tprime"] is None
    d = lrn.ask()
    lrn.cancel()
    assert lrn.live["pos"] == 0  # the exploration draw is given back
    run_regret(lrn, inst.environment(np.random.default_rng(0)), inst)
    diag = lrn.diagnostics()
    assert diag["t_prime"] == math.ceil(lrn.lengths["T_Delta"]) and diag["lemma1_applicable"]
    assert diag["lemma1_holds"] and diag["lambda_min_gram"] >= diag["lemma1_bound"]
    assert d.arm is not None
    # the estimates are arrays for the user, JSON for the store
    final, tprime = diag["estimate_final"], diag["estimate_tprime"]
    assert isinstance(final, EstimateSnapshot) and isinstance(tprime, EstimateSnapshot)
    np.testing.assert_array_equal(final.theta, lrn.estimated_safe_set()["theta"])
    np.testing.assert_array_equal(final.a, lrn.estimated_safe_set()["a"])
    assert json.loads(final.to_json()) == {
        "theta": final.theta.tolist(),
        "a": final.a.tolist(),
        "beta": final.beta,
    }
    # at T' + 1: A from the stored inverse
    np.testing.assert_allclose(tprime.a @ lrn._snap_ainv, np.eye(tprime.a.shape[0]), atol=1e-9)
    assert lrn.diagnostics()["estimate_final"] == final and final != tprime


def test_config_validation():
    for bad in ({"t_prime": "T0"}, {"t_prime": -1}, {"t_prime": True}, {"delta": 1.5}, {"sampler": "grid"},
                {"convex_solver": "cvxpy"}, {"n_directions": 4}, {"width": "tight"}):  # fmt: skip
        with pytest.raises(ConfigError):
            SafeLUCBConfig(**bad)
    with pytest.raises(ConfigError):
        GSLUCBConfig(gap_lcb="oracle")
    with pytest.raises(ConfigError, match="shell"):
        learner(karm(), sampler="shell")
    with pytest.raises(ConfigError, match="finite"):
        learner(convex(), "gslucb")
    inst = convex("ball", c=0.3)
    info = inst.public_info()
    import dataclasses

    no_gap = dataclasses.replace(info, safety_gap=None)
    with pytest.raises(ConfigError, match="gap"):
        make_learner("safe-lucb", no_gap, np.random.default_rng(0), {"t_prime": "t_delta"})
    assert make_learner("safe-lucb", no_gap, np.random.default_rng(0), {"t_prime": "t0"}).lengths["T0"] > 0


# -- exploration draws read lazily from the stream (issue 19: the fixed cost of a short run) ------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(
    n=st.one_of(
        st.integers(1, 64), st.integers(1, 2**32 + 5), st.sampled_from([3 * 2**30, 2**31 + 1, 2**32 - 1])
    ),
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=5),
    seed=st.integers(0, 2**32 - 1),
)
def test_numpy_bounded_integers_split_like_one_draw(n, sizes, seed):
    """What Safe-LUCB relies on to draw its exploration in blocks of any size: numpy's bounded integers
    (``Generator.integers``) read the stream one value after the other, so draws of several sizes give
    the numbers (and the generator state) of one draw of their total size."""
    whole = np.random.default_rng(seed)
    parts = np.random.default_rng(seed)
    want = whole.integers(0, n, sum(sizes))
    got = np.concatenate([parts.integers(0, n, k) for k in sizes])
    assert got.tolist() == want.tolist()
    assert parts.bit_generator.state == whole.bit_generator.state


@pytest.mark.parametrize("t_prime", [0, 1, 100, 1500])
def test_exploration_arms_are_one_draw_of_the_stream(t_prime):
    """The arms explored are ``D^w[rng.integers(0, |D^w|, T')]`` of the learner's generator, whatever
    the sizes of the blocks the learner draws (first block: at most ``T'``, then 1,024 at a time), on
    the ask / tell path and on the compiled one."""
    from safebandits.algorithms.regret.safe_lucb import EXPLORE_BLOCK

    inst = karm(0, horizon=2000)
    n = min(t_prime + 5, 2000)
    lrn = learner(inst, seed=11, t_prime=t_prime)
    assert lrn.live["drawn"] == min(t_prime, EXPLORE_BLOCK)  # (nothing drawn that cannot be played)
    env = inst.environment(np.random.default_rng(1))
    arms = []
    for _ in range(n):
        d = lrn.ask()
        arms.append(d.arm)
        lrn.tell(d, env.play(d))
    dw = lrn._dw
    assert arms[:t_prime] == dw[np.random.default_rng(11).integers(0, dw.size, t_prime)].tolist()
    fast = learner(inst, seed=11, t_prime=t_prime)
    points = fast.simulate(inst.environment(np.random.default_rng(1)), n).points
    assert points.tolist() == inst.arms[arms].tolist()


def test_select_arm_answers_explore_buffer_empty_then_the_refilled_draw():
    """With its exploration buffer used up, Algorithm 1's line 3 cannot draw: ``select_arm`` answers
    the named ``EXPLORE_BUFFER_EMPTY`` and changes nothing; after a refill it draws the next arm of
    ``D^w``, and ``D_t^s`` empty is ``NO_ARM`` (no arm index)."""
    from safebandits.algorithms.regret.safe_lucb import EXPLORE_BUFFER_EMPTY, NO_ARM, select_arm_entry

    inst = karm(0, horizon=2000)
    lrn = learner(inst, seed=3, t_prime=100)
    lrn.live["pos"] = lrn.live["drawn"]
    before = lrn.live.tobytes()
    assert select_arm_entry(lrn.state) == EXPLORE_BUFFER_EMPTY
    assert lrn.live.tobytes() == before
    lrn._refill()
    arm = select_arm_entry(lrn.state)
    assert arm != EXPLORE_BUFFER_EMPTY and arm in set(lrn._dw.tolist()) and lrn.live["pos"] == 1
    assert NO_ARM < 0 and EXPLORE_BUFFER_EMPTY < 0 and NO_ARM != EXPLORE_BUFFER_EMPTY
