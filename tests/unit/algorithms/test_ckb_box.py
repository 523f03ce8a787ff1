"""CKB, SGP-UCB, StageOpt and SafeOpt on a continuous domain (a box): reproducible runs, the acquisition
maximised to the footnote's accuracy every round, per-round safety of the safe learners, refusals, and
finite domains untouched by the box options."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.estimators.box_search import accuracy_target
from safebandits.estimators.gp import PointKernel
from safebandits.exceptions import CannotStartError, ConfigError
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems import make_instance
from safebandits.problems.kernel import GaussianFeedback
from safebandits.problems.kernel_box import Box, BoxKernelInstance, RKHSFunction


def one_d(horizon=60, seed=True, sigma=0.02):
    """f peaks at about 0.55, g <= 0 left of about 0.5: the constrained optimum is on the boundary."""
    box = Box([0.0], [1.0])
    kern = PointKernel(box.centre[None, :], "se", lengthscale=0.2)
    c = np.linspace(0.0, 1.0, 6)[:, None]
    f = RKHSFunction(c, [0.0, 0.3, 0.6, 0.8, 0.5, 0.2], kern)
    g = RKHSFunction(c, [-0.8, -0.5, -0.2, 0.2, 0.4, 0.6], kern)
    # the told B and G bound the RKHS norms (so |f| <= B and |g| <= G too: k(x, x) = 1)
    return BoxKernelInstance(
        reward=f, constraint=g, box=box, kernel=kern, horizon=horizon, feedback=GaussianFeedback(sigma),
        safe_seed=[[0.05]] if seed else None, reward_bound=f.rkhs_norm, constraint_bound=g.rkhs_norm,
    )  # fmt: skip


def two_d(horizon=40):
    box = Box([0.0, 0.0], [1.0, 1.0])
    kern = PointKernel(box.centre[None, :], "se", lengthscale=0.3)
    f = RKHSFunction([[0.2, 0.2], [0.7, 0.6], [0.4, 0.9]], [0.3, 0.9, 0.4], kern)
    g = RKHSFunction([[0.1, 0.1], [0.5, 0.5], [0.9, 0.9]], [-0.8, 0.2, 0.9], kern, offset=-0.1)
    return BoxKernelInstance(
        reward=f, constraint=g, box=box, kernel=kern, horizon=horizon, feedback=GaussianFeedback(0.05),
        safe_seed=[[0.1, 0.1]],
    )  # fmt: skip


def points_played(method, inst, seed, rounds, config=None):
    learner = make_learner(method, inst.public_info(), np.random.default_rng(seed), config)
    env = inst.environment(np.random.default_rng(100))
    out = []
    for _ in range(rounds):
        d = learner.ask()
        assert d.point is not None and inst.box.contains(d.point)
        out.append(np.array(d.point, dtype=float))
        learner.tell(d, env.play(d))
    return np.array(out), learner


@pytest.mark.parametrize(
    "method",
    ["ckb-ucb", "ckb-rand", pytest.param("ckb-ts", marks=pytest.mark.slow), "sgp-ucb", "stageopt", "safeopt"],
)
def test_a_box_run_is_a_pure_function_of_its_seed(method):
    inst = two_d()
    a, _ = points_played(method, inst, 7, 25)
    b, _ = points_played(method, inst, 7, 25)
    np.testing.assert_array_equal(a, b)
    if method.startswith("ckb"):  # (the safe learners may replay the seed while it is all they know)
        c, _ = points_played(method, inst, 8, 25)
        assert not np.array_equal(a, c)


def test_run_regret_on_a_box_is_reproducible():
    inst = two_d(horizon=30)
    outs = [
        run_regret(make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(3)),
                   inst.environment(np.random.default_rng(4)), inst)
        for _ in range(2)
    ]  # fmt: skip
    assert outs[0].regret == outs[1].regret and outs[0].violations == outs[1].violations
    assert outs[0].info["box_rounds"] == 30 and outs[0].info["accuracy_c"] == pytest.approx(
        max(inst.public_info().reward_bound, inst.public_info().constraint_bound)
    )


@pytest.mark.parametrize("accuracy_c", [None, 0.05])
def test_every_round_maximises_the_acquisition_to_within_c_over_sqrt_t(accuracy_c):
    """Lines 3-7 on a 1-D box: the point chosen scores within ``eps_t = C / sqrt(t)`` of the maximum of
    the same acquisition on a grid of 20,001 points (UCB: ``f- - phi g-`` with the round's widths)."""
    inst = one_d(horizon=40)
    config = {} if accuracy_c is None else {"accuracy_c": accuracy_c}
    learner = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(5), config)
    env = inst.environment(np.random.default_rng(6))
    grid = np.linspace(0.0, 1.0, 20_001)[:, None]
    c = learner.search.constant
    for t in range(1, 41):
        beta, beta_g = learner.betas()
        phi = learner.phi
        d = learner.ask()
        fh, gh = learner.search.estimates(grid, beta, -beta_g)
        best = float(np.max(fh - phi * gh))
        fx, gx = learner.search.estimates(np.atleast_2d(d.point), beta, -beta_g)
        chosen = float(fx[0] - phi * gx[0])
        assert chosen >= best - accuracy_target(c, t), (t, chosen, best)
        assert learner.last_estimates == pytest.approx((float(fx[0]), float(gx[0])))
        learner.tell(d, env.play(d))


@pytest.mark.parametrize("method", ["stageopt", "safeopt", "sgp-ucb"])
def test_safe_learners_are_safe_every_round_on_a_box(method):
    """With the truth in the RKHS (norms within the told bounds), every point played has g <= 0, and
    the safe set grows beyond the seed."""
    inst = one_d(horizon=150)
    info = inst.public_info()
    assert inst.constraint.rkhs_norm <= info.constraint_bound + 1e-9
    config = {} if method == "safeopt" else {"gp_noise": 0.01}
    pts, learner = points_played(method, inst, 2, 150, config)
    g = inst.constraint(pts)
    assert np.all(g <= 0.0), float(np.max(g))
    assert np.ptp(pts[:, 0]) > 0.1  # it left the seed
    if method != "sgp-ucb":
        assert learner.safe.sum() > 1 and learner.box_points.shape[0] > 1 + 1000  # (grown)
        # every point played is a candidate certified safe
        idx = [int(np.flatnonzero((learner.box_points == p).all(1))[0]) for p in pts]
        assert np.all(learner.safe[idx])


def test_safe_learners_refuse_a_box_without_a_safe_seed():
    inst = one_d(seed=False)
    for method in ("stageopt", "safeopt", "sgp-ucb"):
        with pytest.raises(CannotStartError, match="ckb-ucb"):
            make_learner(method, inst.public_info(), np.random.default_rng(0))
    make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0))  # CKB needs none


@pytest.mark.parametrize(
    ("method", "config", "match"),
    [
        ("ckb-ucb", {"hyperparameters": "ml"}, "finite domain"),
        ("sgp-ucb", {"info_gain": "greedy"}, "on a box use"),
        ("ckb-ucb", {"refresh_every": 5, "posterior": "dense"}, "finite domain"),
    ],
)
def test_finite_domain_options_are_refused_on_a_box(method, config, match):
    with pytest.raises(ConfigError, match=match):
        make_learner(method, one_d().public_info(), np.random.default_rng(0), config)


def test_box_options_are_validated():
    for bad in ({"accuracy_c": 0.0}, {"box_candidates": 0}, {"box_starts": -1}, {"accuracy_c": math.inf}):
        with pytest.raises(ConfigError):
            make_learner("ckb-ucb", one_d().public_info(), np.random.default_rng(0), bad)
    with pytest.raises(ConfigError):
        make_learner("stageopt", one_d().public_info(), np.random.default_rng(0), {"box_points": 0})


@pytest.mark.parametrize("method", ["ckb-ucb", "ckb-ts", "ckb-rand", "sgp-ucb", "stageopt", "safeopt"])
def test_finite_domains_ignore_the_box_options(method):
    """On a finite domain the box options change nothing: the same indices, no coordinates."""
    inst = make_instance("ckb/synthetic", np.random.default_rng(1), n_points=40, T=80)

    def arms(config):
        learner = make_learner(method, inst.public_info(), np.random.default_rng(9), config)
        env = inst.environment(np.random.default_rng(10))
        out = []
        for _ in range(80):
            d = learner.ask()
            assert d.point is None
            out.append(int(d.arm))
            learner.tell(d, env.play(d))
        return out

    other = {"accuracy_c": 0.01, "box_candidates": 3, "box_starts": 0}
    if method in ("stageopt", "safeopt"):
        other["box_points"] = 5
    assert arms({}) == arms(other)


@pytest.mark.parametrize(
    "method", ["ckb-ucb", "ckb-rand", pytest.param("ckb-ts", marks=pytest.mark.slow), "sgp-ucb"]
)
def test_a_cancelled_round_is_undone_on_a_box(method):
    """``cancel`` leaves the learner as before the ask: the next ask draws the same candidates and
    returns the same point, and the run goes on as if nothing had been asked."""
    inst = two_d(horizon=30)
    plain, _ = points_played(method, inst, 4, 20)
    learner = make_learner(method, inst.public_info(), np.random.default_rng(4))
    env = inst.environment(np.random.default_rng(100))
    for t in range(20):
        d = learner.ask()
        if t % 3 == 1:
            learner.cancel()
            again = learner.ask()
            np.testing.assert_array_equal(again.point, d.point)
            d = again
        np.testing.assert_array_equal(d.point, plain[t])
        learner.tell(d, env.play(d))


@pytest.mark.parametrize("method", ["ckb-ucb", "ckb-ts", "sgp-ucb", "stageopt"])
def test_a_box_learner_pickled_midway_asks_the_same_point(method):
    import copy
    import pickle

    inst = two_d()
    learner = make_learner(method, inst.public_info(), np.random.default_rng(1))
    env = inst.environment(np.random.default_rng(2))
    for _ in range(5):
        d = learner.ask()
        learner.tell(d, env.play(d))
    clones = [pickle.loads(pickle.dumps(learner)), copy.deepcopy(learner)]
    want = learner.ask().point
    for clone in clones:
        np.testing.assert_array_equal(clone.ask().point, want)


def test_realised_information_gain_on_a_box():
    """``info_gain="realised"``: ``gamma_t`` is the information gain of the data the box posterior saw
    (``1/2 sum log(1 + sigma^2_{s-1}(x_s) / lambda)``), so ``beta_t`` grows with it."""
    inst = one_d(horizon=30)
    learner = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0), {"info_gain": "realised"})
    env = inst.environment(np.random.default_rng(1))
    gains, betas = [], []
    for _ in range(10):
        d = learner.ask()
        learner.tell(d, env.play(d))
        gains.append(learner.gp_f.info_gain)
        betas.append(learner.betas()[0])
    assert np.all(np.diff(gains) > 0) and np.all(np.diff(betas) > 0)
    total = 0.0
    gp = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0)).gp_f
    for x, y in zip(learner.gp_f.points, learner.gp_f.values, strict=True):
        total += 0.5 * math.log1p(gp.update(x, y) / gp.noise_var)
    assert learner.gp_f.info_gain == pytest.approx(total)


@pytest.mark.parametrize("kind", ["se", "matern"])
def test_certified_radius_inverts_the_kernel_metric(kind):
    from safebandits.algorithms.regret.safe_box import certified_radius

    kern = PointKernel(np.zeros((1, 1)), kind, lengthscale=0.3, variance=1.0)
    reach = np.array([1e-4, 0.05, 0.3, 1.0, 1.4, 1.5])  # sqrt(2 v) = 1.414...: beyond it every point
    r = certified_radius(kern, "kernel", reach)
    d = np.sqrt(np.maximum(2.0 * (1.0 - kern._of_distance(r[:5])), 0.0))
    np.testing.assert_allclose(d, reach[:5], rtol=1e-6)  # (1 - k(r) loses digits at tiny r)
    assert np.all(kern._of_distance(r[:5]) >= 1.0 - 0.5 * reach[:5] ** 2)  # the conservative side
    assert r[5] == np.inf and np.all(np.diff(r) > 0)
    np.testing.assert_array_equal(certified_radius(kern, "euclidean", reach), reach)


@pytest.mark.parametrize("method", ["stageopt", "safeopt"])
def test_the_candidates_grow_around_certified_points(method):
    """Every ``box_grow_every`` observations ``box_grow_points`` candidates are appended (the old ones keep
    their index), each inside the region its source's certificate covers, so it is certified at once; the
    posteriors on the larger set are those of the same observations."""
    inst = one_d(horizon=80)
    config = {"gp_noise": 0.01, "box_points": 50, "box_grow_every": 5, "box_grow_points": 7}
    learner = make_learner(method, inst.public_info(), np.random.default_rng(3), config)
    env = inst.environment(np.random.default_rng(4))
    first = learner.box_points.copy()
    sizes = []
    for t in range(1, 41):
        before_n, before_safe = learner.box_points.shape[0], learner.safe.copy()
        d = learner.ask()
        learner.tell(d, env.play(d))
        n = learner.box_points.shape[0]
        sizes.append(n)
        if n > before_n:  # grown: the new candidates are certified at once
            assert t % 5 == 0 and n - before_n <= 7
            assert learner.safe[before_n:].all() and learner.safe[:before_n][before_safe].all()
            assert np.all(inst.constraint(learner.box_points[before_n:]) <= 0.0)
    np.testing.assert_array_equal(learner.box_points[: first.shape[0]], first)
    assert sizes[-1] > 51 and learner.gp_f.n_points == sizes[-1]
    # the posterior on the grown set is that of the same observations told to a new learner's GP
    fresh = make_learner(
        method, inst.public_info(), np.random.default_rng(3), {**config, "box_grow_every": 0}
    )
    from safebandits.estimators.gp import FiniteGP

    gp = FiniteGP(learner.info.kernel, learner.gp_f.noise_var, posterior="dense")
    for i, r, _ in learner._history:
        gp.update(i, r)
    np.testing.assert_allclose(learner.gp_f.mean, gp.mean, atol=1e-8)
    np.testing.assert_allclose(learner.gp_f.variance(), gp.variance(), atol=1e-8)
    assert fresh.box_points.shape[0] == 51


def test_no_growth_keeps_the_initial_candidates():
    inst = one_d(horizon=40)
    _, learner = points_played("stageopt", inst, 2, 40, {"gp_noise": 0.01, "box_grow_every": 0})
    assert learner.box_points.shape == (1 + 1000, 1)


def test_safeopt_berkenkamp_refuses_a_box():
    with pytest.raises(ConfigError, match="variant='berkenkamp'"):
        make_learner("safeopt", one_d().public_info(), np.random.default_rng(0), {"variant": "berkenkamp"})
