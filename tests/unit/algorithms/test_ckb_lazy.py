"""CKB with lazy exact updates (``updates="lazy"``, issue 33): the same decisions as the eager low-rank
posterior (every point updated every round) on random instances, bounds that hold, and the option's
resolution."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret._ckb_common import stale_posterior
from safebandits.algorithms.regret.ckb import CKBConfig, lazy_pays, lazy_upper_bounds
from safebandits.estimators.gp import LazyGP, PointKernel
from safebandits.exceptions import ConfigError
from safebandits.problems.kernel import KernelInfo
from safebandits.types import Observation


def _problem(seed, n, T, kind="se", lengthscale=0.2, nu=2.5, same_kernel=True, matrix=False):
    """``ckb/synthetic``'s construction (random RKHS f and g of 30 centres, normalised) on ``n`` points."""
    rng = np.random.default_rng(seed)
    pts = np.sort(rng.uniform(0.0, 1.0, n))
    kern = PointKernel(pts, kind, lengthscale=lengthscale, nu=nu)
    kern_g = kern if same_kernel else PointKernel(pts, kind, lengthscale=1.5 * lengthscale, nu=nu)

    def draw(k):
        h = k.between(pts[:, None], pts[rng.integers(0, n, 30)][:, None]) @ rng.uniform(-1, 1, 30)
        return h / np.max(np.abs(h))

    f, g = draw(kern), draw(kern_g)
    if matrix:
        kern, kern_g = np.asarray(kern), np.asarray(kern_g)
    info = KernelInfo(
        kernel=kern, constraint_kernel=kern_g, points=pts[:, None], reward_bound=1.0, constraint_bound=1.0,
        noise_bound=0.1, constraint_noise_bound=0.1, slater=0.3, horizon=T, safe_seed=(int(np.argmin(g)),),
    )  # fmt: skip
    return info, f, g


def _run(method, info, f, g, rounds, seed, **config):
    learner = make_learner(method, info, np.random.default_rng(seed), config)
    noise = np.random.default_rng(seed + 1).standard_normal((rounds, 2)) * 0.1
    arms, ests = [], []
    for t in range(rounds):
        d = learner.ask()
        i = int(d.arm)
        arms.append(i)
        ests.append(learner.last_estimates)
        learner.tell(d, Observation(reward=f[i] + noise[t, 0], constraints=np.array([g[i] + noise[t, 1]])))
    return np.array(arms), np.array(ests), learner


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(20, 400),
    method=st.sampled_from(["ckb-ucb", "ckb-rand"]),
    kind=st.sampled_from(["se", "matern"]),
    lengthscale=st.sampled_from([0.05, 0.2, 0.5]),
    same_kernel=st.booleans(),
    options=st.sampled_from([{}, {"truncate": False}, {"dual": "virtual_queue"}, {"gp_noise": 0.01}]),
)
def test_lazy_updates_make_the_eager_decisions(seed, n, method, kind, lengthscale, same_kernel, options):
    rounds = 150
    info, f, g = _problem(seed, n, rounds, kind, lengthscale, same_kernel=same_kernel)
    arms_e, est_e, eager = _run(method, info, f, g, rounds, seed, updates="eager", **options)
    arms_l, est_l, lazy = _run(method, info, f, g, rounds, seed, updates="lazy", **options)
    assert lazy.lazy and isinstance(lazy.gp_f, LazyGP) and not eager.lazy
    assert (lazy.gp_f.lowrank is lazy.gp_g.lowrank) == same_kernel
    np.testing.assert_array_equal(arms_l, arms_e)
    np.testing.assert_allclose(est_l, est_e, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lazy.phi, eager.phi, rtol=0, atol=1e-9)
    # the same posterior (read through the properties, which bring every point up to date)
    np.testing.assert_allclose(lazy.gp_f.mean, eager.gp_f.mean, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lazy.gp_g.mean, eager.gp_g.mean, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lazy.gp_g.var, eager.gp_g.var, rtol=0, atol=1e-9)
    assert lazy.gp_f.info_gain == pytest.approx(eager.gp_f.info_gain, abs=1e-9)


def test_lazy_updates_compute_each_entry_once_and_leave_points_behind():
    n, rounds = 3000, 300
    info, f, g = _problem(7, n, rounds, lengthscale=0.1)
    arms_e, _, _ = _run("ckb-ucb", info, f, g, rounds, 7, updates="eager")
    arms_l, _, lazy = _run("ckb-ucb", info, f, g, rounds, 7, updates="lazy")
    assert lazy.lazy
    np.testing.assert_array_equal(arms_l, arms_e)
    cov = lazy.gp_f.lowrank
    # each entry W[s, x] is computed at most once (an eager update computes n per round)...
    assert cov.computed <= n * rounds
    # ... and later, in batches: points are left behind between refreshes
    assert np.sum(cov.fresh < cov.steps) > n // 2
    behind = int(np.sum(cov.steps - cov.fresh))
    computed = cov.computed
    assert lazy.gp_f.mean.shape == (n,)  # the property brings every point up to date
    assert np.all(cov.fresh == cov.steps)
    assert cov.computed == computed + behind == n * rounds  # every entry exactly once


@pytest.mark.parametrize("method", ["ckb-ucb", "ckb-rand"])
def test_the_upper_bounds_hold_for_every_point(method):
    n, rounds = 250, 120
    info, f, g = _problem(3, n, rounds, lengthscale=0.1)
    learner = make_learner(method, info, np.random.default_rng(5), {"updates": "lazy"})
    noise = np.random.default_rng(6).standard_normal((rounds, 2)) * 0.1
    stale_seen = known_stale = 0
    for t in range(rounds):
        beta, beta_g = learner.betas()
        cf, cg = (beta, -beta_g) if method == "ckb-ucb" else (0.7 * beta, -1.3 * beta_g)
        gf, gg, c = learner.gp_f, learner.gp_g, learner.state.const
        cov = gf.lowrank
        ub = np.empty(n)
        known = np.zeros(n, dtype=bool)
        t = cov.steps
        pf, pg = stale_posterior(gf, cf), stale_posterior(gg, -cg)
        lazy_upper_bounds(ub, known, pf, pg, cf, cg, learner.phi, c)
        stale = cov.fresh < cov.steps
        stale_seen += int(np.sum(stale))
        known_stale += int(np.sum(stale & known))
        clone = copy.deepcopy(learner)  # bring the copy's points up to date, not the learner's
        exact, _, _ = clone._exact_scores(np.arange(n), cf, cg, learner.phi)
        assert np.all(exact <= ub)
        assert np.array_equal(exact[known], ub[known])  # (known: the exact score, bit for bit)
        assert np.all(known[~stale])
        d = learner.ask()
        i = int(d.arm)
        learner.tell(d, Observation(reward=f[i] + noise[t, 0], constraints=np.array([g[i] + noise[t, 1]])))
    assert stale_seen > 0
    assert known_stale > 0  # (stale points whose score truncation decides)


def test_a_lazy_learner_copies_and_pickles_mid_run():
    n, rounds = 400, 80
    info, f, g = _problem(11, n, 2 * rounds, lengthscale=0.1)
    learner = make_learner("ckb-ucb", info, np.random.default_rng(0), {"updates": "lazy"})
    rng = np.random.default_rng(1)

    def step(lr, noise):
        d = lr.ask()
        i = int(d.arm)
        lr.tell(d, Observation(reward=f[i] + noise[0], constraints=np.array([g[i] + noise[1]])))
        return i

    for _ in range(rounds):
        step(learner, 0.1 * rng.standard_normal(2))
    copies = [copy.deepcopy(learner), pickle.loads(pickle.dumps(learner))]
    for other in copies:
        assert other.gp_f.lowrank is other.gp_g.lowrank
        assert other.gp_f.lowrank.means[0] is other.gp_f._mean
        assert other.gp_f.state.mean is other.gp_f._mean
    noise = 0.1 * np.random.default_rng(2).standard_normal((rounds, 2))
    want = [step(learner, noise[t]) for t in range(rounds)]
    for other in copies:
        assert [step(other, noise[t]) for t in range(rounds)] == want


@pytest.mark.parametrize(
    ("n", "horizon", "lazy"),
    [
        (500, 300, False), (576, 300, False), (1000, 300, False), (5000, 300, False), (20000, 300, False),
        (500, 1000, False), (1000, 1000, False), (2000, 1000, False),  # (T > n, or the factor fits in cache)
        (4000, 1000, True), (5000, 1000, True), (20000, 1000, True), (10000, 500, True),
        (20000, 20001, False),
    ],
)  # fmt: skip
def test_auto_is_lazy_only_where_a_whole_run_is_cheaper(n, horizon, lazy):
    # Issue 43: the whole-run rule (measured: bench_ckb_scaling.py --whole; docs/decisions/ckb.md)
    assert lazy_pays(n, horizon) is lazy


def test_auto_chooses_lazy_updates_where_they_apply():
    big, _, _ = _problem(0, 4000, 1000)
    assert make_learner("ckb-ucb", big, np.random.default_rng(0)).lazy
    assert make_learner("ckb-rand", big, np.random.default_rng(0)).lazy
    assert not make_learner("ckb-ucb", big, np.random.default_rng(0), {"updates": "eager"}).lazy
    shorter = dataclasses.replace(big, horizon=300)  # issue 43: eager is cheaper over a run of 300 rounds
    assert not make_learner("ckb-ucb", shorter, np.random.default_rng(0)).lazy
    assert make_learner("ckb-ucb", shorter, np.random.default_rng(0), {"horizon": 1000}).lazy
    assert not make_learner("ckb-ucb", shorter, np.random.default_rng(0), {"horizon": 4001}).lazy  # T > n
    mid, _, _ = _problem(0, 600, 100)
    assert not make_learner("ckb-ucb", mid, np.random.default_rng(0)).lazy  # (lazy before issue 43)
    assert not make_learner(
        "ckb-ts", mid, np.random.default_rng(0), {"horizon": 500}
    ).lazy  # reads every point
    small, _, _ = _problem(0, 100, 50, matrix=True)  # dense posterior (n <= 512, a matrix)
    learner = make_learner("ckb-ucb", small, np.random.default_rng(0))
    assert not learner.lazy and learner.gp_f.mode == "dense"
    # asked for: the lazy low-rank posterior on any finite domain
    assert make_learner("ckb-ucb", small, np.random.default_rng(0), {"updates": "lazy"}).lazy


def test_lazy_on_a_kernel_matrix_makes_the_dense_decisions():
    info, f, g = _problem(4, 120, 200, matrix=True)
    arms_d, _, dense = _run("ckb-ucb", info, f, g, 200, 4)
    arms_l, _, lazy = _run("ckb-ucb", info, f, g, 200, 4, updates="lazy")
    assert dense.gp_f.mode == "dense" and lazy.lazy
    np.testing.assert_array_equal(arms_l, arms_d)


def test_lazy_updates_need_the_low_rank_posterior_and_a_known_kernel():
    with pytest.raises(ConfigError, match="updates='lazy'"):
        CKBConfig(updates="lazy", posterior="dense")
    with pytest.raises(ConfigError, match="updates='lazy'"):
        CKBConfig(updates="lazy", hyperparameters="ml")
    with pytest.raises(ConfigError):
        CKBConfig(updates="sometimes")


# -- SGP-UCB -----------------------------------------------------------------------------------------


def _run_sgp(info, f, g, rounds, seed, **config):
    learner = make_learner("sgp-ucb", info, np.random.default_rng(seed), config)
    noise = np.random.default_rng(seed + 1).standard_normal((rounds, 2)) * 0.1
    arms = []
    for t in range(rounds):
        d = learner.ask()
        i = int(d.arm)
        arms.append(i)
        learner.tell(d, Observation(reward=f[i] + noise[t, 0], constraints=np.array([g[i] + noise[t, 1]])))
    return np.array(arms), learner


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(20, 400),
    kind=st.sampled_from(["se", "matern"]),
    lengthscale=st.sampled_from([0.05, 0.2, 0.5]),
    options=st.sampled_from([{}, {"gp_noise": 0.01}, {"exploration_rounds": 0}, {"beta_scale": 0.3}]),
)
def test_lazy_sgp_ucb_makes_the_eager_decisions(seed, n, kind, lengthscale, options):
    rounds = 150
    info, f, g = _problem(seed, n, rounds, kind, lengthscale)
    arms_e, eager = _run_sgp(info, f, g, rounds, seed, updates="eager", **options)
    arms_l, lazy = _run_sgp(info, f, g, rounds, seed, updates="lazy", **options)
    assert lazy.lazy and isinstance(lazy.gp_f, LazyGP) and not eager.lazy
    np.testing.assert_array_equal(arms_l, arms_e)
    np.testing.assert_array_equal(lazy.safe_set(), eager.safe_set())
    np.testing.assert_allclose(lazy.gp_f.mean, eager.gp_f.mean, rtol=0, atol=1e-9)


def test_auto_is_lazy_for_sgp_ucb_where_a_whole_run_is_cheaper():
    # Issue 43: SGP-UCB's thresholds (T <= n, T n >= 1e6)
    for n, horizon, lazy in [(1000, 300, False), (500, 1000, False), (1000, 1000, True), (5000, 300, True)]:
        info, _, _ = _problem(0, n, horizon)
        assert make_learner("sgp-ucb", info, np.random.default_rng(0)).lazy is lazy


def test_lazy_sgp_ucb_on_a_large_domain():
    n, rounds = 3000, 300
    info, f, g = _problem(8, n, rounds, lengthscale=0.1)
    arms_e, _ = _run_sgp(info, f, g, rounds, 8, updates="eager")
    arms_l, lazy = _run_sgp(info, f, g, rounds, 8, updates="lazy")
    assert lazy.lazy
    np.testing.assert_array_equal(arms_l, arms_e)
    cov = lazy.gp_f.lowrank
    assert cov.computed <= n * rounds and np.sum(cov.fresh < cov.steps) > 0


def test_stageopt_and_safeopt_stay_eager():
    big, _, _ = _problem(0, 600, 100)
    for method in ("stageopt", "safeopt"):
        learner = make_learner(method, big, np.random.default_rng(0))
        assert not learner.lazy and not isinstance(learner.gp_f, LazyGP)


def test_tie_floor_takes_no_tolerance_from_an_infinite_score():
    # Issue 40: the lazy argmax's tie floor mirrors _pick's; best - 1e-12 (1 + |best|) is NaN at +inf.
    from safebandits.algorithms.regret.ckb import _tie_floor

    assert _tie_floor(math.inf) == math.inf
    assert _tie_floor(-math.inf) == -math.inf
    assert _tie_floor(2.0) == pytest.approx(2.0 - 3e-12)
