"""Conformance of every registered instance: oracle answers agree with the ground truth."""

import numpy as np
import pytest

from safebandits.problems import list_instances, make_instance

NAMES = sorted(n for n in list_instances() if n.startswith("acol/"))  # CBAI instances


def build(name, seed=0):
    entry = list_instances()[name]
    return make_instance(name, rng=np.random.default_rng(seed) if entry.random else None)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oracle_optimum(name, seed):
    inst = build(name, seed)
    x = inst.optimal_arm
    assert inst.feasible[x]
    assert np.all(inst.rewards[inst.feasible] <= inst.rewards[x])
    np.testing.assert_allclose(inst.margins, inst.arms @ inst.constraint_param - inst.threshold)
    linear = inst.arms @ inst.reward_param if inst.reward_values is None else inst.reward_values
    np.testing.assert_allclose(inst.gaps, inst.rewards[x] - linear)
    assert inst.min_abs_margin == pytest.approx(np.min(np.abs(inst.margins)))
    assert set(inst.competing_arms) >= {x}


@pytest.mark.parametrize("name", NAMES)
def test_noisy_sampler_agrees_in_mean(name):
    inst = build(name)
    env = inst.environment(np.random.default_rng(5))
    reps = 4000
    sums = np.zeros(inst.n_arms)
    for arm in range(inst.n_arms):
        sums[arm] = sum(env.pull(arm).constraints[0] for _ in range(reps))
    se = 1.0 / np.sqrt(reps)  # every noise model here has sd <= 1
    assert np.all(np.abs(sums / reps - inst.constraint_values) <= 5 * se)


@pytest.mark.parametrize("name", NAMES)
def test_public_info_is_consistent(name):
    inst = build(name)
    info = inst.public_info()
    np.testing.assert_array_equal(info.arms, inst.arms)
    np.testing.assert_allclose(info.rewards, inst.rewards)
