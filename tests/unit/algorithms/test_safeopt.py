"""SafeOpt (Sui et al. 2015) on StageOpt's safe set: its sets, its choice, its widths, its safety."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.safeopt import SafeOptConfig
from safebandits.estimators.gp import beta_width
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.types import Observation


def synthetic(seed=0, n=60, T=300, **kw):
    return make_instance("ckb/synthetic", np.random.default_rng(seed), n_points=n, T=T, **kw)


def test_defaults_are_the_guaranteed_scale():
    c = SafeOptConfig()
    assert c.confidence == "theory" and c.info_gain == "realised" and c.gp_noise == "theory"
    with pytest.raises(ConfigError):
        SafeOptConfig(constant_beta=0.0)
    with pytest.raises(ConfigError):
        SafeOptConfig(confidence="heuristic")


def test_theory_width_is_the_rkhs_bound_and_constant_is_constant():
    inst = synthetic()
    info = inst.public_info()
    theory = make_learner("safeopt", info, np.random.default_rng(0))
    beta, beta_g = theory.betas()
    lam = 1.0 + 2.0 / info.horizon
    assert theory.gp_f.noise_var == pytest.approx(lam)
    assert beta == pytest.approx(beta_width(info.reward_bound, info.noise_bound, 0.0, 0.05))
    assert beta_g == pytest.approx(beta_width(info.constraint_bound, info.constraint_noise_bound, 0.0, 0.05))
    const = make_learner("safeopt", info, np.random.default_rng(0), {"confidence": "constant"})
    assert const.betas() == (2.0, 2.0)


def test_each_choice_is_the_widest_possible_maximiser_or_expander():
    inst = synthetic(seed=1)
    learner = make_learner("safeopt", inst.public_info(), np.random.default_rng(3))
    env = inst.environment(np.random.default_rng(4))
    for _ in range(80):
        m, g = learner.maximisers(), learner.expanders()
        assert m.any() and not np.any((m | g) & ~learner.safe)
        best = float(np.max(learner.f_lower[learner.safe]))
        np.testing.assert_array_equal(m, learner.safe & (learner.f_upper >= best))
        w = learner.widths()
        d = learner.ask()
        i = int(d.arm)
        assert (m | g)[i] and w[i] >= np.max(w[m | g]) - 1e-12
        lo_f, lo_g = learner.f_lower.copy(), learner.g_lower.copy()
        up_f, up_g = learner.f_upper.copy(), learner.g_upper.copy()
        learner.tell(d, env.play(d))
        # intervals are intersected: they only shrink
        assert np.all(learner.f_lower >= lo_f) and np.all(learner.g_upper <= up_g)
        assert np.all(learner.g_lower >= lo_g) and np.all(learner.f_upper <= up_f)


def test_safe_set_is_stageopts():
    inst = synthetic(seed=2)
    info = inst.public_info()
    so = make_learner("safeopt", info, np.random.default_rng(0), {"confidence": "constant"})
    st = make_learner("stageopt", info, np.random.default_rng(0), {"gp_noise": "theory"})
    # the same intervals of g (StageOpt with the same width) give the same set after the same data
    st.betas = so.betas  # (StageOpt's width replaced by SafeOpt's constant for the comparison)
    env = inst.environment(np.random.default_rng(1))
    for _ in range(40):
        d = so.ask()
        obs = env.play(d)
        so.tell(d, obs)
        st.gp_f.update(int(d.arm), float(obs.reward))
        st.gp_g.update(int(d.arm), float(obs.constraints[0]))
        st.n_samples += 1
        st._intersect()
        np.testing.assert_array_equal(so.safe, st.safe)
        np.testing.assert_array_equal(so.expanders(), st.expanders())


@pytest.mark.parametrize("safe_set", ["full", "incremental"])
def test_no_unsafe_round_with_the_guaranteed_scale(safe_set):
    """With B, G the RKHS norms of the draws (ckb/synthetic's default), the theory width, the kernel
    metric and L = G, the guarantee covers every round: no run of these seeds plays an unsafe point."""
    total_unsafe, regrets = 0, []
    for seed in range(4):
        inst = synthetic(seed=seed, n=80, T=300)
        learner = make_learner(
            "safeopt", inst.public_info(), np.random.default_rng(seed), {"safe_set": safe_set}
        )
        out = run_regret(learner, inst.environment(np.random.default_rng(10 + seed)), inst)
        total_unsafe += out.violations
        regrets.append(out.regret)
    assert total_unsafe == 0
    assert all(math.isfinite(r) for r in regrets)


def test_needs_a_safe_seed():
    inst = synthetic()
    info = inst.public_info()
    import dataclasses

    with pytest.raises(ConfigError, match="safe seed"):
        make_learner("safeopt", dataclasses.replace(info, safe_seed=()), np.random.default_rng(0))


def _crossing_instance(n=6):
    """Far-apart points (a nearly diagonal kernel: no point certifies another), the seed point 0."""
    from safebandits.problems.kernel import GaussianFeedback, KernelInstance

    x = np.arange(n, dtype=float)[:, None]
    k = np.exp(-((x - x.T) ** 2) / (2 * 0.05**2))
    g = np.full(n, 0.5)
    g[0] = -0.5
    return KernelInstance(
        reward=np.linspace(0.1, 0.6, n), constraint=g, kernel=k, points=x, horizon=50,
        feedback=GaussianFeedback(sigma=0.01),
    )  # fmt: skip


def test_crossed_intervals_play_inside_the_safe_set():
    # Issue 40: observations that contradict the intervals (a constant beta, a tiny lambda) make the
    # seed's interval of f cross (l^f > u^f); M_t and G_t are then empty. The old tie rule took its
    # tolerance from the -inf scores (tol = inf) and drew from the whole domain: unsafe points.
    inst = _crossing_instance()
    learner = make_learner(
        "safeopt", inst.public_info(), np.random.default_rng(0), {"confidence": "constant", "gp_noise": 1e-4}
    )
    for y in (0.0, 1.0, 0.0, 1.0, 0.0, 1.0):
        d = learner.ask()
        assert learner.safe[d.arm], d.arm
        learner.tell(d, Observation(reward=y, constraints=np.array([-0.5])))
    assert learner.f_lower[0] > learner.f_upper[0]  # (the case: crossed)
    assert not (learner.maximisers() | learner.expanders()).any()
    for _ in range(20):
        d = learner.ask()
        assert d.arm == 0  # the only safe point: the fallback (largest certified l^f in S_t)
        learner.tell(d, Observation(reward=0.5, constraints=np.array([-0.5])))
    assert learner.fallback_rounds >= 20


def test_pick_never_takes_an_infinite_tolerance():
    from safebandits.algorithms.regret._ckb_common import _pick, _pick_any

    none = np.full(5, -np.inf)
    assert _pick(none, -np.inf, 0.3) == -1
    assert _pick(np.full(5, np.nan), np.nan, 0.3) == -1
    assert _pick_any(none, -np.inf, 0.5) == 2  # (CKB: every point is a candidate)
    s = np.array([-np.inf, np.inf, 1.0, np.inf])
    assert {_pick(s, np.inf, u) for u in (0.0, 0.99)} == {1, 3}
    s = np.array([-np.inf, 2.0, 2.0 + 1e-14, 1.0])
    assert {_pick(s, 2.0 + 1e-14, u) for u in np.linspace(0, 0.999, 7)} == {1, 2}


@pytest.mark.parametrize("cached", [True, False])
@pytest.mark.parametrize("name", ["safeopt", "stageopt"])
@pytest.mark.parametrize("metric", ["kernel", "euclidean"])
def test_blocked_safe_set_is_bit_identical_to_the_matrix_form(name, metric, cached, monkeypatch):
    """The full safe set and expanders computed a block at a time (issue 40: no ``n x n`` distance matrix
    above ``DISTANCE_CACHE_POINTS``) equal, bit for bit, the ``n x n`` matrix form they replaced, over
    many blocks per round, with the small-domain matrix and without."""
    from safebandits.algorithms.regret import stageopt
    from safebandits.estimators.gp import kernel_distance

    monkeypatch.setattr(stageopt, "BLOCK_ELEMENTS", 97)  # (a few rows per block, ragged last block)
    monkeypatch.setattr(stageopt, "DISTANCE_CACHE_POINTS", 2048 if cached else 0)
    inst = synthetic(seed=5, n=70, T=200)
    info = inst.public_info()
    cfg = {"metric": metric, **({"confidence": "constant"} if name == "safeopt" else {})}
    learner = make_learner(name, info, np.random.default_rng(1), cfg)
    assert (learner._ld is not None) == cached
    if metric == "euclidean":
        pts = np.asarray(info.points, dtype=np.float64)
        dist = np.sqrt(np.maximum(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1), 0.0))
    else:
        dist = kernel_distance(info.constraint_kernel)
    ld = learner.lipschitz * dist
    env = inst.environment(np.random.default_rng(2))
    grew = 0
    for _ in range(120):
        s, u = np.flatnonzero(learner.safe), np.flatnonzero(~learner.safe)
        want = np.zeros(70, dtype=bool)
        if u.size:
            want[s[((learner.g_lower[s, None] + ld[np.ix_(s, u)]) <= 0.0).any(axis=1)]] = True
        np.testing.assert_array_equal(learner.expanders(), want)
        before = learner.safe.copy()
        d = learner.ask()
        learner.tell(d, env.play(d))
        reach = np.min(learner.g_upper[before, None] + ld[before], axis=0)
        np.testing.assert_array_equal(learner.safe, before | (reach <= 0.0))
        grew += int(learner.safe.sum() > before.sum())
    assert grew >= 3  # the set grew in several rounds


def test_cached_and_blocked_distances_agree_on_coordinates(monkeypatch):
    """With a kernel given by its coordinates (a ``PointKernel``) the small-domain matrix and the blocks
    hold the same numbers (each element computed on its own), so the runs are the same."""
    from safebandits.algorithms.regret import stageopt
    from safebandits.estimators.gp import PointKernel
    from safebandits.problems.kernel import KernelInfo

    pts = np.random.default_rng(0).uniform(size=(150, 2))
    kern = PointKernel(pts, lengthscale=0.2)
    f = np.sin(4 * pts[:, 0]) * np.cos(3 * pts[:, 1])
    g = ((pts - 0.5) ** 2).sum(1) / 0.15 - 1.0
    seed = int(np.argmin(g))
    info = KernelInfo(
        kernel=kern, constraint_kernel=kern, points=pts, reward_bound=1.0, constraint_bound=1.0,
        noise_bound=0.05, constraint_noise_bound=0.05, slater=0.1, horizon=60, safe_seed=(seed,),
    )  # fmt: skip
    noise = 0.05 * np.random.default_rng(1).standard_normal((60, 2))
    runs = []
    for cache in (2048, 0):
        monkeypatch.setattr(stageopt, "DISTANCE_CACHE_POINTS", cache)
        monkeypatch.setattr(stageopt, "BLOCK_ELEMENTS", 1000)
        learner = make_learner("safeopt", info, np.random.default_rng(2), {"confidence": "constant"})
        arms, sizes = [], []
        for t in range(60):
            d = learner.ask()
            i = int(d.arm)
            arms.append(i)
            learner.tell(
                d, Observation(reward=f[i] + noise[t, 0], constraints=np.array([g[i] + noise[t, 1]]))
            )
            sizes.append(int(learner.safe.sum()))
        runs.append((arms, sizes))
    assert runs[0] == runs[1] and runs[0][1][-1] > 1
