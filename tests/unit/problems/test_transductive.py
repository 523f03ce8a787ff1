"""Oracles of safe transductive instances against brute force."""

import numpy as np
import pytest

from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems import make_instance
from safebandits.problems.transductive import TransductiveInstance

NAMES = ["beside/mab", "beside/hard-i1", "beside/example1", "beside/vacuous", "beside/linear"]


def build(name, seed=0, **kw):
    return make_instance(name, np.random.default_rng(seed) if name == "beside/linear" else None, **kw)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1])
def test_oracles_brute_force(name, seed):
    inst = build(name, seed)
    z, th, mu, g = inst.decisions, inst.reward_param, inst.constraint_params, inst.threshold
    safe = [k for k in range(len(z)) if all(z[k] @ m <= g for m in mu)]
    best = max(safe, key=lambda k: (z[k] @ th, -k))
    assert inst.optimal_arm == best and inst.safe[best]
    np.testing.assert_allclose(inst.gaps, z[best] @ th - z @ th, atol=1e-12)
    np.testing.assert_allclose(inst.safety_gaps, g - z @ mu.T, atol=1e-12)
    eps = inst.epsilon
    good = [
        k for k in range(len(z)) if z[k] @ th >= z[best] @ th - eps and all(z[k] @ m <= g + eps for m in mu)
    ]
    assert list(inst.good_set()) == good
    assert all(inst.is_correct(k) == (k in good) for k in range(len(z))) and not inst.is_correct(None)
    for e in (0.0, 0.05, 0.3):
        ok = [k for k in range(len(z)) if min(g - z[k] @ m for m in mu) >= e]
        want = np.full(len(z), -np.inf) if not ok else max(z[k] @ th for k in ok) - z @ th
        np.testing.assert_allclose(inst.eps_safe_gap(e), want, atol=1e-12)


def test_hard_instance_structure():
    inst = build("beside/hard-i1", epsilon=0.05)
    np.testing.assert_allclose(inst.min_safety_gap, [0.1, -0.1])  # alpha = 4 eps = 0.2
    assert inst.optimal_arm == 0 and list(inst.good_set()) == [0] and inst.gaps[1] < 0


def test_mab_instance_every_arm_safe_second_eps_good():
    inst = build("beside/mab", n_arms=10)
    assert inst.safe.all() and list(inst.good_set()) == [0, 1]


def test_vacuous_epsilon_is_half_min_gap():
    inst = build("beside/vacuous")
    assert list(inst.good_set()) == [inst.optimal_arm] and np.all(inst.constraint_params == 0)


def test_environment_returns_reward_and_all_constraints():
    inst = TransductiveInstance(
        arms=np.eye(2),
        decisions=np.eye(2),
        reward_param=[1.0, 0.0],
        constraint_params=[[0.0, 1.0], [1.0, 0.0]],
        threshold=2.0,
    )
    env = inst.environment(np.random.default_rng(0))
    obs = env.pull(0)
    assert isinstance(obs.reward, float) and obs.constraints.shape == (2,)
    batch = env.pull_counts(np.array([4000, 4000]))
    np.testing.assert_allclose(batch.reward_sums / 4000, [1.0, 0.0], atol=0.06)
    np.testing.assert_allclose(batch.constraint_sums / 4000, [[0.0, 1.0], [1.0, 0.0]], atol=0.06)


def test_invalid_instances_rejected():
    with pytest.raises(InfeasibleInstanceError):
        TransductiveInstance(
            arms=np.eye(1), decisions=np.eye(1), reward_param=[1.0], constraint_params=[[1.0]], threshold=0.0
        )
    with pytest.raises(ConfigError, match="row span"):
        TransductiveInstance(
            arms=np.eye(2)[:1],
            decisions=np.eye(2),
            reward_param=[1.0, 0.0],
            constraint_params=[[0.0, 0.0]],
            threshold=1.0,
        )
    with pytest.raises(ConfigError, match="epsilon"):
        build("beside/hard-i1", epsilon=-1.0)


def test_bounds_terms():
    from safebandits.papers.beside.beside_bounds import beside_bounds, corollary1

    inst = build("beside/vacuous")
    out = beside_bounds(inst, delta=0.1)
    assert out["safety_term"] > 0 and out["optimality_term"] > 0
    assert beside_bounds(inst, delta=0.01)["theorem1_total"] > out["theorem1_total"]
    # multi-armed vacuous instance: H = min_lambda max_z (1/l_z + 1/l_*) / gap_z^2, bound / lower is a log
    mab = TransductiveInstance(
        arms=np.eye(3),
        decisions=np.eye(3),
        reward_param=[1.0, 0.5, 0.0],
        constraint_params=[[0.0, 0.0, 0.0]],
        threshold=1.0,
        epsilon=0.25,
    )
    cor = corollary1(mab, delta=0.1)
    assert cor["vacuous_constraint"] and 1.0 < cor["bound_over_lower"] < 10.0
    grid = [
        (a, b, 1 - a - b)
        for a in np.linspace(0.01, 0.98, 98)
        for b in np.linspace(0.01, 0.98, 98)
        if a + b < 0.995
    ]
    brute = min(max((1 / a + 1 / b) / 0.25, 1 / a + 1 / c) for a, b, c in grid)
    assert brute * 0.98 <= cor["bai_complexity"] <= brute * 1.0001
