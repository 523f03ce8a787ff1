"""Can start must mean can learn (issue 40, part 3): the lower bound on the rounds a learner plays the
known safe action before it could play another, checked against real runs on the issue's two problems."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import safebandits as sb
from safebandits.algorithms.compatibility import instance_for, learner_fit
from safebandits.algorithms.learning import leave_estimate
from safebandits.problems.zoo.declared import declared

#: Six ads, Bernoulli clicks and complaints, complaint rate at most 0.05, ad 0 known safe (cost unknown).
ADS = {
    "setting": "linear",
    "arms": np.eye(6).tolist(),
    "threshold": 0.05,
    "safe_arm": 0,
    "feedback": "bernoulli",
}
ADS_TRUTH = {
    "reward_param": [0.02, 0.03, 0.04, 0.05, 0.06, 0.08],
    "cost_params": [[0.01, 0.02, 0.03, 0.04, 0.08, 0.1]],
}


def _items() -> tuple[dict, dict]:
    """20 items in d = 5, item 0 known safe (cost unknown), sub-Gaussian noise 0.1."""
    rng = np.random.default_rng(3)
    arms = rng.normal(size=(20, 5))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    arms[0] *= 0.1
    theta = rng.normal(size=5)
    mu = rng.normal(size=5)
    problem = {
        "setting": "linear",
        "arms": arms.tolist(),
        "threshold": 0.3,
        "safe_arm": 0,
        "param_norm_bound": 1.0,
        "feedback": {"kind": "subgaussian", "sigma": 0.1},
    }
    truth = {
        "reward_param": (theta / np.linalg.norm(theta)).tolist(),
        "cost_params": [(mu / np.linalg.norm(mu)).tolist()],
        "sigma": 0.1,
    }
    return problem, truth


def _first_departure(sim, name: str, horizon: int, seed: int) -> int | None:
    """The first round whose decision puts weight on an action other than the safe one (None: never)."""
    inst = instance_for(sim, name, horizon=horizon)
    info = inst.public_info()
    learner = sb.make_learner(name, info, np.random.default_rng(seed))
    env = inst.environment(np.random.default_rng(seed + 1000))
    decl = sim.problem
    safe = decl.safe_arm if hasattr(decl, "safe_arm") else int(info.safe_seed[0])
    x0 = np.asarray(decl.arms if hasattr(decl, "arms") else info.points, dtype=float)[safe]
    for t in range(1, horizon + 1):
        d = learner.ask()
        left = d.arm is not None and d.arm != safe
        if d.probs is not None:
            p = np.asarray(d.probs, dtype=float)
            left = left or float(p.sum() - p[safe]) > 1e-12
        if d.point is not None and d.point.shape == x0.shape:
            left = left or not np.allclose(d.point, x0)
        if left:
            return t
        learner.tell(d, env.play(d))
    return None


def _sim(problem: dict, truth: dict, horizon: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return declared(problem=problem, truth=truth, T=horizon)


STAGEWISE = ("lc-lucb", "safe-lts", "opb", "oplb")


def test_ads_problem_separates_the_learners_that_cannot_leave_the_safe_ad():
    sim = _sim(ADS, ADS_TRUTH, 4000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = learner_fit(sim.problem, task="regret", horizon=4000)
    stuck = {c.name: est for c, est in fit.cannot_learn}
    assert set(STAGEWISE) <= set(stuck)
    assert not {c.name for c in fit.fitting} & set(STAGEWISE)
    for name in STAGEWISE:
        est = stuck[name]
        assert est.rounds >= 4000 and not est.can_learn
        assert fit.leave_estimates[name] is est
        assert est.fixes  # what would let it learn
    # Bernoulli costs are at least 0: Algorithm 5's width must reach 0.05, about 21,600 rounds at R = 1/2
    assert 20_000 < stuck["oplb"].rounds < 23_000
    assert math.isinf(stuck["lc-lucb"].rounds)  # points: the widths of the other ads never shrink


@pytest.mark.parametrize("name", STAGEWISE)
def test_learners_whose_estimate_exceeds_the_horizon_never_leave_the_safe_ad(name):
    horizon = 600
    sim = _sim(ADS, ADS_TRUTH, horizon)
    est = leave_estimate(sim.problem, name, horizon=horizon)
    assert est is not None and not est.can_learn
    assert _first_departure(sim, name, horizon, seed=0) is None


@pytest.mark.parametrize("name", ["opb", "oplb", "lc-lucb", "safe-lts"])
def test_estimate_is_a_lower_bound_on_the_first_departure(name):
    problem, truth = _items()
    horizon = 300
    sim = _sim(problem, truth, horizon)
    est = leave_estimate(sim.problem, name, horizon=horizon)
    assert est is not None and est.can_learn and est.rounds > 0
    for seed in range(3):
        first = _first_departure(sim, name, horizon, seed)
        assert first is None or first >= est.rounds + 1, (seed, first, est.rounds)


def test_the_suggested_longer_horizon_and_known_safe_values_let_opb_learn():
    sim = _sim(ADS, ADS_TRUTH, 4000)
    est = leave_estimate(sim.problem, "oplb", horizon=4000)
    longer = next(f for f in est.fixes if f.startswith("a longer horizon"))
    h = int(longer.split(">= ")[1].split(" ")[0].replace(",", ""))
    assert leave_estimate(sim.problem, "oplb", horizon=h).can_learn
    assert not leave_estimate(sim.problem, "oplb", horizon=h - 1).can_learn
    known = dict(ADS, safe_cost=0.01, safe_reward=0.02)
    for name in ("opb", "oplb"):
        e = leave_estimate(_sim(known, ADS_TRUTH, 4000).problem, name, horizon=4000)
        assert e is not None and e.rounds == 0 and e.can_learn


def test_learners_without_a_safe_action_get_no_estimate():
    sim = _sim(ADS, ADS_TRUTH, 100)
    assert leave_estimate(sim.problem, "uniform-exploration", horizon=100) is None
    assert leave_estimate(sim.problem, "rage", horizon=100) is None


@pytest.mark.slow
@pytest.mark.parametrize("name", STAGEWISE)
def test_ads_at_the_issue_horizon_never_leave(name):
    sim = _sim(ADS, ADS_TRUTH, 4000)
    for seed in range(3):
        assert _first_departure(sim, name, 4000, seed) is None


@pytest.mark.parametrize("name", ["lc-lucb", "safe-lts"])
def test_points_bound_beyond_a_short_horizon_means_no_departure(name):
    """On the 20 items the plays of the safe item alone need >= 100 rounds before any other item's
    pessimistic cost could be within the threshold: with a horizon of 80 they are listed as unable to
    learn, and indeed never leave."""
    problem, truth = _items()
    sim = _sim(problem, truth, 80)
    est = leave_estimate(sim.problem, name, horizon=80)
    assert est is not None and 80 <= est.rounds < math.inf and not est.can_learn
    assert any("star" in f for f in est.fixes)
    for seed in range(2):
        assert _first_departure(sim, name, 80, seed) is None


def _kernel_sim(lengthscale: float, horizon: int):
    from safebandits.problems.declare import KernelProblem

    pts = np.linspace(0, 1, 21)[:, None]
    p = KernelProblem(points=pts, kernel={"name": "se", "lengthscale": lengthscale}, reward_bound=1,
                      constraint_bound=1, slater=0.2, safe_seed=[0], horizon=horizon,
                      feedback={"kind": "gaussian", "sigma": 0.1})  # fmt: skip
    return p.simulate(reward=np.sin(3 * pts[:, 0]), constraint=0.8 * np.linspace(-0.5, 0.5, 21))


KERNEL = ("sgp-ucb", "stageopt", "safeopt")


@pytest.mark.parametrize("name", KERNEL)
def test_kernel_estimate_is_a_lower_bound_on_the_first_departure(name):
    sim = _kernel_sim(0.3, 120)
    est = leave_estimate(sim, name, horizon=120)
    assert est is not None and est.can_learn and est.rounds >= 1
    for seed in range(2):
        first = _first_departure(sim, name, 120, seed)
        assert first is None or first >= est.rounds + 1, (seed, first, est.rounds)


@pytest.mark.parametrize("name", KERNEL)
def test_kernel_learners_that_can_never_grow_the_seed_are_flagged_and_never_leave(name):
    """A lengthscale far below the points' spacing: playing the seed says nothing about the others."""
    sim = _kernel_sim(0.01, 60)
    est = leave_estimate(sim, name, horizon=60)
    assert est is not None and math.isinf(est.rounds) and not est.can_learn and est.fixes
    assert _first_departure(sim, name, 60, seed=0) is None
