"""CKB, StageOpt and SGP-UCB on the low-rank posterior: the same decisions as the dense one, candidate
Thompson sampling, and domains given by coordinates only (no n x n matrix)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.ckb import CKBConfig
from safebandits.estimators.gp import PointKernel
from safebandits.exceptions import ConfigError
from safebandits.problems import make_instance
from safebandits.problems.kernel import KernelInfo


def synthetic(seed=0, n=40, T=300):
    return make_instance("ckb/synthetic", np.random.default_rng(seed), n_points=n, T=T)


def trajectory(method, inst, rounds, **config):
    learner = make_learner(method, inst.public_info(), np.random.default_rng(11), config)
    env = inst.environment(np.random.default_rng(12))
    arms, phis = [], []
    for _ in range(rounds):
        d = learner.ask()
        learner.tell(d, env.play(d))
        arms.append(int(d.arm))
        phis.append(float(getattr(learner, "phi", 0.0)))
    return np.array(arms), np.array(phis), learner


@pytest.mark.parametrize(
    "method", ["ckb-ucb", "ckb-rand", "ckb-ts", "stageopt", "sgp-ucb"]
)  # TS: joint draws either way (n <= 512)
def test_lowrank_posterior_makes_the_same_decisions(method):
    inst = synthetic(seed=3)
    arms_d, phi_d, dense = trajectory(method, inst, 120, posterior="dense")
    arms_l, phi_l, low = trajectory(method, inst, 120, posterior="lowrank")
    assert dense.gp_f.mode == "dense" and low.gp_f.mode == "lowrank"
    np.testing.assert_array_equal(arms_l, arms_d)
    # TS: the jittered Cholesky factor of a numerically singular covariance (SE kernel, eigenvalues down
    # to 1e-16) turns round-off differences of 1e-16 in the covariance into about 1e-7 in the draws
    np.testing.assert_allclose(phi_l, phi_d, rtol=0, atol=1e-5 if method == "ckb-ts" else 1e-9)
    np.testing.assert_allclose(low.gp_f.mean, dense.gp_f.mean, atol=1e-8)
    np.testing.assert_allclose(low.gp_g.var, dense.gp_g.var, atol=1e-9)
    # the same kernel and lambda for f and g: one covariance for both
    assert low.gp_f.lowrank is low.gp_g.lowrank


def test_auto_keeps_the_dense_posterior_and_joint_draws_on_small_domains():
    inst = synthetic(n=40)
    learner = make_learner("ckb-ts", inst.public_info(), np.random.default_rng(0))
    assert learner.gp_f.mode == "dense" and learner.ts_sampling == "joint"
    big = synthetic(n=600, T=50)
    learner = make_learner("ckb-ts", big.public_info(), np.random.default_rng(0))
    assert learner.gp_f.mode == "lowrank" and learner.ts_sampling == "candidates"


def test_candidate_sampling_on_the_whole_domain_is_joint_sampling():
    inst = synthetic(seed=5)
    arms_j, phi_j, _ = trajectory("ckb-ts", inst, 80, ts_sampling="joint")
    arms_c, phi_c, learner = trajectory("ckb-ts", inst, 80, ts_sampling="candidates", ts_candidates=40)
    assert learner.ts_sampling == "candidates"
    np.testing.assert_array_equal(arms_c, arms_j)
    np.testing.assert_allclose(phi_c, phi_j, atol=1e-12)


def test_candidate_sampling_plays_a_candidate():
    inst = synthetic(seed=2, n=120)
    learner = make_learner(
        "ckb-ts",
        inst.public_info(),
        np.random.default_rng(1),
        {"ts_sampling": "candidates", "ts_candidates": 15},
    )
    env = inst.environment(np.random.default_rng(2))
    for _ in range(60):
        beta, beta_g = learner.betas()
        cand = learner.ts_candidates(beta, beta_g)
        assert cand.shape == (15,) and np.all(np.diff(cand) > 0)
        d = learner.ask()
        assert int(d.arm) in set(cand.tolist())
        f_est, g_est = learner.last_estimates
        assert abs(f_est) <= learner.big_b + 1e-12 and abs(g_est) <= learner.big_g + 1e-12
        learner.tell(d, env.play(d))


def _big_info(n, T):
    pts = np.linspace(0.0, 1.0, n)
    return KernelInfo(
        kernel=(k := PointKernel(pts, "se", lengthscale=0.2)), constraint_kernel=k, points=pts[:, None],
        reward_bound=1.0, constraint_bound=1.0, noise_bound=0.1, constraint_noise_bound=0.1, slater=0.5,
        horizon=T, safe_seed=(0,),
    )  # fmt: skip


@pytest.mark.parametrize(
    "method", ["ckb-ucb", "ckb-rand", pytest.param("ckb-ts", marks=pytest.mark.slow), "sgp-ucb"]
)
def test_a_domain_given_by_coordinates_needs_no_matrix(method):
    n, T = 30_000, 25
    info = _big_info(n, T)
    learner = make_learner(method, info, np.random.default_rng(0))
    pts = np.linspace(0.0, 1.0, n)
    f, g = np.sin(6 * pts), 0.5 - pts
    rng = np.random.default_rng(1)
    from safebandits.types import Observation

    for _ in range(T):
        d = learner.ask()
        i = int(d.arm)
        learner.tell(d, Observation(reward=f[i] + 0.1 * rng.standard_normal(), constraints=np.array([g[i]])))
    cov = learner.gp_f.lowrank
    assert cov is learner.gp_g.lowrank
    if getattr(learner, "lazy", False):  # CKB-UCB / CKB-Rand: lazy updates (T <= n)
        assert cov.steps == T
    else:
        assert cov.rows == T and cov.dense is None
    assert cov.nbytes < 2 * T * n * 8  # O(T n), not O(n^2)


def test_refresh_needs_the_dense_posterior():
    with pytest.raises(ConfigError, match="refresh_every"):
        CKBConfig(refresh_every=10, posterior="lowrank")
    cfg = CKBConfig(refresh_every=10)
    assert dataclasses.replace(cfg, posterior="dense").posterior == "dense"


# -- StageOpt's incremental safe set ---------------------------------------------------------------


@pytest.mark.parametrize("metric", ["kernel", "euclidean"])
def test_incremental_safe_set_is_inside_the_papers(metric):
    inst = synthetic(seed=4, n=80, T=400)
    info = inst.public_info()
    cfg = {"metric": metric, "expansion_fraction": 0.5}
    full = make_learner("stageopt", info, np.random.default_rng(0), cfg)
    inc = make_learner("stageopt", info, np.random.default_rng(0), {**cfg, "safe_set": "incremental"})
    env = inst.environment(np.random.default_rng(1))
    grew = False
    for _ in range(150):
        d = full.ask()
        inc.ask()
        inc.cancel()  # both are told full's point (the same data for both)
        obs = env.play(d)
        full.tell(d, obs)
        inc.gp_f.update(int(d.arm), float(obs.reward))
        inc.gp_g.update(int(d.arm), float(obs.constraints[0]))
        inc.n_samples += 1  # (what tell counts: beta_t reads it)
        inc._sources.append(int(d.arm))
        inc._intersect()
        assert not np.any(inc.safe & ~full.safe)  # a subset of the paper's set
        # the expanders of a set are the paper's formula on that set
        s, u = np.flatnonzero(inc.safe), np.flatnonzero(~inc.safe)
        want = np.zeros(80, dtype=bool)
        if u.size:
            cert = (inc.g_lower[s, None] + full.lipschitz * full.distance_block(s, u)) <= 1e-12
            want[s[cert.any(axis=1)]] = True
        np.testing.assert_array_equal(inc.expanders(), want)
        grew |= inc.safe.sum() > len(info.safe_seed)
    assert grew  # the incremental set expands


def test_incremental_stageopt_on_a_domain_given_by_coordinates():
    n, T = 20_000, 30
    info = _big_info(n, T)
    learner = make_learner(
        "stageopt", info, np.random.default_rng(0), {"safe_set": "incremental", "expansion_rounds": T}
    )
    pts = np.linspace(0.0, 1.0, n)
    g = pts - 0.5  # safe seed: point 0
    from safebandits.types import Observation

    for _ in range(T):
        d = learner.ask()
        i = int(d.arm)
        assert learner.safe[i]
        learner.tell(d, Observation(reward=float(-pts[i]), constraints=np.array([g[i]])))
    assert learner.gp_f.lowrank.rows == T
    assert learner.safe.sum() > 1


# -- hyperparameters from data ---------------------------------------------------------------------


@pytest.mark.parametrize("method", ["ckb-ucb", "sgp-ucb"])
def test_fitted_lengthscale_on_the_doubling_schedule(method):
    from safebandits.types import Observation

    n, T = 300, 90
    pts = np.linspace(0.0, 1.0, n)
    kern = PointKernel(pts, "se", lengthscale=0.5)  # told a wrong lengthscale
    info = dataclasses.replace(_big_info(n, T), kernel=kern, constraint_kernel=kern)
    cfg = {"hyperparameters": "ml", "ml_start": 10, "gp_noise": 0.05**2}  # lambda = the noise variance
    learner = make_learner(method, info, np.random.default_rng(0), cfg)
    rng = np.random.default_rng(1)
    f, g = np.sin(25 * pts), 0.3 - np.cos(25 * pts)  # wiggly: lengthscale about 0.04
    for _ in range(T):
        d = learner.ask()
        i = int(d.arm)
        learner.tell(d, Observation(reward=f[i] + 0.05 * rng.standard_normal(), constraints=np.array([g[i]])))
    assert [t for t, _, _ in learner.fitted] == [10, 20, 40, 80]
    _, ls_f, ls_g = learner.fitted[-1]
    assert ls_f == ls_g and ls_f < 0.2  # one kernel for f and g, refitted well below the told 0.5
    # the posterior is the fitted kernel's posterior of all the data
    from safebandits.estimators.gp import batch_posterior

    mean, cov = batch_posterior(np.asarray(learner.gp_f.kernel), learner.gp_f.noise_var, learner.gp_f.counts,
                                learner.gp_f.sums)  # fmt: skip
    np.testing.assert_allclose(learner.gp_f.mean, mean, atol=1e-8)
    np.testing.assert_allclose(learner.gp_f.var, np.diag(cov), atol=1e-8)


def test_fitted_hyperparameters_need_a_kernel_on_coordinates_and_a_learner_that_can_refit():
    inst = synthetic(n=30)
    with pytest.raises(ConfigError, match="PointKernel"):
        make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0), {"hyperparameters": "ml"})
    info = _big_info(200, 50)
    with pytest.raises(ConfigError, match="not supported"):
        make_learner("stageopt", info, np.random.default_rng(0), {"hyperparameters": "ml"})
    with pytest.raises(ConfigError, match="not supported"):
        make_learner("safeopt", info, np.random.default_rng(0), {"hyperparameters": "ml"})
