"""CKB (Algorithm 1) with UCB / TS / Rand exploration, and the StageOpt and SGP-UCB baselines."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.ckb import (
    CKB,
    CKB_LIVE,
    CKBConfig,
    CKBConstants,
    CKBState,
    RoundDraws,
    auto_slack,
    select,
)
from safebandits.estimators.gp import FiniteGP, se_kernel
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.problems.kernel import GaussianFeedback, KernelInstance


def synthetic(seed=0, n=30, T=500, **kw):
    return make_instance("ckb/synthetic", np.random.default_rng(seed), n_points=n, T=T, **kw)


def play(learner, env, rounds):
    for _ in range(rounds):
        d = learner.ask()
        learner.tell(d, env.play(d))


# -- selection kernels ---------------------------------------------------------------------------


def selection_state(mean_f, cov_f, mean_g, cov_g, phi, *, truncate=True, joint=False, big_b=1.0, big_g=1.2):
    """A :class:`CKBState` on posteriors with the given means and covariances and dual variable ``phi``."""
    n = mean_f.shape[0]
    gps = []
    for mean, cov in ((mean_f, cov_f), (mean_g, cov_g)):
        gp = FiniteGP(np.eye(n), 1.0)
        gp.mean[:], gp.cov[:], gp.var[:] = mean, cov, np.diag(cov)
        gps.append(gp.state)
    const = CKBConstants(big_b=big_b, big_g=big_g, truncate=truncate, joint=joint, rho=1.0, cap=1.0,
                         step=1.0, slack=0.0, dual_estimate=True)  # fmt: skip
    live = np.zeros(1, dtype=CKB_LIVE)
    live[0]["phi"] = phi
    return CKBState(gps[0], gps[1], np.zeros(n), np.zeros(n), np.zeros(n), const, live)


def test_select_matches_numpy():
    rng = np.random.default_rng(0)
    n = 40
    a = rng.standard_normal((n, n))
    cov_f, cov_g = a @ a.T / n, np.eye(n) * 0.3
    mf, mg = rng.standard_normal(n), rng.standard_normal(n)
    for phi, cf, cg in [(0.0, 1.5, -1.0), (2.0, 0.7, 0.4), (0.5, -0.3, -2.0)]:
        st = selection_state(mf, cov_f, mg, cov_g, phi)
        i = select(st, cf, cg, 0.3)
        fb = np.clip(mf + cf * np.sqrt(np.diag(cov_f)), -1.0, 1.0)
        gb = np.clip(mg + cg * np.sqrt(np.diag(cov_g)), -1.2, 1.2)
        score = fb - phi * gb
        assert score[i] >= score.max() - 1e-12  # truncation makes ties (broken at random)
        assert st.live[0]["f_est"] == pytest.approx(fb[i]) and st.live[0]["g_est"] == pytest.approx(gb[i])
        np.testing.assert_allclose(st.f_hat, fb)
        np.testing.assert_allclose(st.g_hat, gb)
        # the same estimates given as draws (the TS path), untruncated: the same point
        joint = selection_state(mf, cov_f, mg, cov_g, phi, truncate=False, joint=True)
        joint.f_hat[:], joint.g_hat[:] = fb, gb
        assert select(joint, 0.0, 0.0, 0.3) == i


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    phi=st.floats(0.0, 5.0),
    cf=st.floats(-3.0, 3.0),
    cg=st.floats(-3.0, 3.0),
    u=st.floats(0.0, 0.999),
    truncate=st.booleans(),
)
def test_select_picks_a_maximiser_of_the_truncated_score(seed, phi, cf, cg, u, truncate):
    rng = np.random.default_rng(seed)
    n = 12
    a = rng.standard_normal((n, n))
    mf, mg = 2.0 * rng.standard_normal(n), 2.0 * rng.standard_normal(n)
    state = selection_state(mf, a @ a.T / n, mg, np.diag(rng.uniform(0, 1, n)), phi, truncate=truncate)
    i = select(state, cf, cg, u)
    fb = mf + cf * np.sqrt(np.diag(state.f.cov))
    gb = mg + cg * np.sqrt(np.diag(state.g.cov))
    if truncate:
        fb, gb = np.clip(fb, -1.0, 1.0), np.clip(gb, -1.2, 1.2)
    score = fb - phi * gb
    assert 0 <= i < n and score[i] >= score.max() - 1e-9 * (1 + abs(score.max()))
    live = state.live[0]
    assert live["f_est"] == state.f_hat[i] and live["g_est"] == state.g_hat[i]
    assert live["f_est"] == pytest.approx(fb[i]) and live["g_est"] == pytest.approx(gb[i])


def test_ties_are_broken_uniformly():
    n = 7
    picks = set()
    for u in np.linspace(0, 0.999, 50):
        st = selection_state(np.ones(n), np.eye(n), np.zeros(n), np.eye(n), 0.0, joint=True, big_b=2.0)
        st.f_hat[:] = 1.0
        picks.add(select(st, 0.0, 0.0, u))
    assert picks == set(range(n))
    inst = synthetic(T=10)
    first = {
        make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(s)).ask().arm for s in range(12)
    }
    assert len(first) > 3  # at t = 1 every UCB ties


# -- config, defaults, dual step -----------------------------------------------------------------


def test_defaults_follow_theorem_1():
    inst = synthetic(T=400)
    info = inst.public_info()
    ckb = make_learner("ckb-ucb", info, np.random.default_rng(0))
    assert ckb.rho == pytest.approx(4 * info.reward_bound / info.slater)
    assert ckb.step == pytest.approx(info.constraint_bound * math.sqrt(400) / ckb.rho)
    slack = make_learner("ckb-ucb", info, np.random.default_rng(0), {"slack": 0.01})
    assert slack.rho == pytest.approx(8 * info.reward_bound / info.slater)
    auto = make_learner("ckb-ucb", info, np.random.default_rng(0), {"slack": "auto"})
    assert 0 < auto.slack <= info.slater / 2 + 1e-12
    assert auto_slack(0.5, 10**8, 1.0, 1.0, 1.0, 0.05, 8.0) < 0.25  # K^/T -> 0


@pytest.mark.parametrize(
    "field, value",
    [("exploration", "greedy"), ("slack", -0.1), ("gp_noise", 0.0), ("dual", "queue"), ("info_gain", "max"),
     ("rho", -1.0), ("truncate", "yes"), ("refresh_every", -1)],
)  # fmt: skip
def test_bad_config(field, value):
    with pytest.raises(ConfigError, match=field):
        CKBConfig(**{field: value})


def test_rejects_non_kernel_problems():
    inst = make_instance("stagewise/four-arm")
    with pytest.raises(ConfigError, match="KernelInfo"):
        make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0))


def test_dual_step_uses_the_own_truncated_estimate():
    inst = synthetic(seed=2, T=300)
    env = inst.environment(np.random.default_rng(0))
    ckb = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(1), {"step": 3.0, "slack": 0.05})
    play(ckb, env, 20)
    for _ in range(30):
        phi0 = ckb.phi
        d = ckb.ask()
        gbar = ckb.last_estimates[1]
        ckb.tell(d, env.play(d))
        assert ckb.phi == pytest.approx(min(max(phi0 + (gbar + 0.05) / 3.0, 0.0), ckb.rho))
        assert abs(gbar) <= inst.public_info().constraint_bound + 1e-12


@pytest.mark.parametrize("name", ["ckb-ucb", "ckb-ts", "ckb-rand"])
def test_dual_variable_stays_in_zero_rho(name):
    # A binding constraint, a small rho and a large dual step: phi must hit rho and stay inside [0, rho].
    inst = synthetic(seed=0, n=30, T=400)
    env = inst.environment(np.random.default_rng(0))
    ckb = make_learner(name, inst.public_info(), np.random.default_rng(1), {"rho": 0.3, "step": 0.5})
    phis = []
    for _ in range(400):
        d = ckb.ask()
        ckb.tell(d, env.play(d))
        phis.append(ckb.phi)
    phis = np.array(phis)
    assert phis.min() >= 0.0 and phis.max() <= 0.3
    assert ckb.rounds_at_rho > 0 and np.any(phis == 0.0)
    assert ckb.diagnostics()["phi_max"] == pytest.approx(phis.max())
    cfg = {"rho": 0.3, "step": 0.5, "dual": "virtual_queue"}
    vq = make_learner(name, inst.public_info(), np.random.default_rng(1), cfg)
    play(vq, inst.environment(np.random.default_rng(0)), 400)
    assert vq.phi_max > 0.3  # the virtual queue has no upper projection


def test_cancel_gives_the_same_decision():
    inst = synthetic(T=100)
    for name in ("ckb-ucb", "ckb-ts", "ckb-rand", "stageopt", "sgp-ucb"):
        learner = make_learner(name, inst.public_info(), np.random.default_rng(3))
        play(learner, inst.environment(np.random.default_rng(0)), 5)
        a = learner.ask()
        learner.cancel()
        b = learner.ask()
        assert a.arm == b.arm


def test_round_draws_give_back():
    d = RoundDraws(np.random.default_rng(0), 3)
    u1, z1 = d.next()
    z1 = z1.copy()
    d.give_back()
    u2, z2 = d.next()
    assert u1 == u2 and np.array_equal(z1, z2)


# -- statistical checks ----------------------------------------------------------------------------


def test_confidence_bounds_cover_f_and_g_at_the_stated_rate():
    """Theorem 1's events E^est: |f - mu| <= beta sigma and |g - mu~| <= beta~ sigma~ for all x and t, with
    probability >= 1 - delta, when ||f||_k <= B (told the RKHS norm) and beta uses the realised information
    gain. 24 runs of 150 rounds; a 20x narrower width must break coverage (the check can fail)."""
    delta, runs, T = 0.1, 24, 150

    def failures(scale):
        bad = 0
        for seed in range(runs):
            inst = synthetic(seed=seed, n=25, T=T, bound="rkhs", sigma=0.2)
            env = inst.environment(np.random.default_rng(100 + seed))
            cfg = {"delta": delta, "info_gain": "realised", "gp_noise": "theory", "beta_scale": scale}
            ckb = make_learner("ckb-rand", inst.public_info(), np.random.default_rng(seed), cfg)
            ok = True
            for _ in range(T):
                cb = ckb.confidence_bounds()
                ok &= bool(np.all((cb["f_lower"] <= inst.reward) & (inst.reward <= cb["f_upper"])))
                ok &= bool(np.all((cb["g_lower"] <= inst.constraint) & (inst.constraint <= cb["g_upper"])))
                d = ckb.ask()
                ckb.tell(d, env.play(d))
            bad += not ok
        return bad / runs

    assert failures(1.0) <= delta + 3 * math.sqrt(delta * (1 - delta) / runs)
    assert failures(0.05) >= 0.5


def test_ckb_ucb_regret_is_sublinear():
    T, reps = 3000, 3
    r_tenth, r_end, per_step_first, per_step_last = [], [], [], []
    for seed in range(reps):
        inst = synthetic(seed=10 + seed, n=30, T=T)
        ckb = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(seed))
        out = run_regret(ckb, inst.environment(np.random.default_rng(50 + seed)), inst)
        t = np.array(out.curves["t"])
        reg = np.array(out.curves["regret"])
        r_tenth.append(out.regret_tenth)
        r_end.append(out.regret)
        per_step_first.append(np.interp(T / 10, t, reg) / (T / 10))
        per_step_last.append((out.regret - np.interp(0.9 * T, t, reg)) / (0.1 * T))
    slope = math.log10(np.mean(r_end) / np.mean(r_tenth))
    assert slope < 0.7  # linear regret has slope 1
    assert np.mean(per_step_last) < 0.25 * np.mean(per_step_first)


def test_slack_removes_the_violation_on_a_binding_instance():
    inst = synthetic(seed=0, n=100, T=2000)  # x* on the constraint boundary, argmax f infeasible
    assert inst.constraint[int(np.argmax(inst.reward))] > 0
    outs = {}
    for slack in (0.0, "auto"):
        ckb = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(10), {"slack": slack})
        outs[slack] = run_regret(ckb, inst.environment(np.random.default_rng(20)), inst)
    assert outs[0.0].cost[0] > 0  # V(T) > 0 without slack on this draw
    assert outs["auto"].cost[0] < 0  # V(T) = 0 with it
    assert outs["auto"].positive_cost[0] < outs[0.0].positive_cost[0]


# -- baselines -------------------------------------------------------------------------------------


def _lipschitz_instance(seed=0, n=30, T=300):
    """Noise-free-ish instance where L = ||g||_k (told G = RKHS norm) makes StageOpt's sets valid."""
    return synthetic(seed=seed, n=n, T=T, bound="rkhs", sigma=0.05)


def test_stageopt_safe_set_grows_from_the_seed_and_stays_safe():
    inst = _lipschitz_instance()
    env = inst.environment(np.random.default_rng(0))
    so = make_learner("stageopt", inst.public_info(), np.random.default_rng(0), {"expansion_fraction": 0.5})
    sizes, played = [], []
    for _ in range(300):
        d = so.ask()
        played.append(d.arm)
        so.tell(d, env.play(d))
        sizes.append(int(so.safe_set().sum()))
    assert so.safe_set()[list(inst.safe_seed)].all()
    assert np.all(np.diff(sizes) >= 0) and sizes[-1] > 1
    assert np.all(inst.constraint[so.safe_set()] <= 1e-12)  # certified points are safe
    assert np.all(inst.constraint[played] <= 1e-12)
    assert so.stage == 2 and so.diagnostics()["stage_switch"] <= 150


def test_sgp_ucb_phases():
    inst = synthetic(seed=1, T=400, n_seed=3, bound="rkhs", sigma=0.05)
    env = inst.environment(np.random.default_rng(0))
    sg = make_learner("sgp-ucb", inst.public_info(), np.random.default_rng(0), {"exploration_rounds": 40})
    first = []
    for t in range(400):
        d = sg.ask()
        if t < 40:
            first.append(d.arm)
        else:
            assert sg.safe_set()[d.arm]
        sg.tell(d, env.play(d))
    assert set(first) == set(inst.safe_seed)
    assert np.all(inst.constraint[sg.safe_set()] <= 1e-12)


def test_baselines_need_kernel_info_and_valid_configs():
    inst = make_instance("stagewise/four-arm")
    for name in ("stageopt", "sgp-ucb"):
        with pytest.raises(ConfigError, match="KernelInfo"):
            make_learner(name, inst.public_info(), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="expansion_fraction"):
        make_learner(
            "stageopt", synthetic().public_info(), np.random.default_rng(0), {"expansion_fraction": 2.0}
        )
    no_points = KernelInstance(
        reward=np.zeros(3), constraint=-np.ones(3), kernel=se_kernel(np.arange(3.0), lengthscale=1.0),
        feedback=GaussianFeedback(0.1),
    )  # fmt: skip
    with pytest.raises(ConfigError, match="euclidean"):
        make_learner("stageopt", no_points.public_info(), np.random.default_rng(0), {"metric": "euclidean"})


def test_ckb_is_a_ckb():
    assert isinstance(make_learner("ckb-rand", synthetic().public_info(), np.random.default_rng(0)), CKB)
