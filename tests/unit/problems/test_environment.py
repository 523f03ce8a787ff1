import numpy as np
import pytest

from safebandits.exceptions import ConfigError
from safebandits.problems import ArmEnvironment, BinaryNoise, GaussianNoise
from safebandits.types import Decision


def test_gaussian_mean_and_sd():
    means = np.array([[0.3], [-0.2]])
    env = ArmEnvironment(means, None, GaussianNoise(0.5), np.random.default_rng(0))
    ys = np.array([env.pull(0).constraints[0] for _ in range(20000)])
    assert abs(ys.mean() - 0.3) < 4 * 0.5 / np.sqrt(20000)
    assert abs(ys.std() - 0.5) < 0.02
    assert env.n_samples == 20000


def test_binary_probability():
    means = np.array([[0.4]])
    env = ArmEnvironment(means, None, BinaryNoise(), np.random.default_rng(1))
    ys = np.array([env.pull(0).constraints[0] for _ in range(20000)])
    assert set(np.unique(ys)) == {-1.0, 1.0}
    p = (ys == 1).mean()
    assert abs(p - 0.7) < 4 * np.sqrt(0.21 / 20000)


@pytest.mark.parametrize("noise", [GaussianNoise(0.3), BinaryNoise()])
def test_batch_sums_agree_in_mean(noise):
    means = np.array([[0.2], [-0.5], [0.9]])
    env = ArmEnvironment(means, None, noise, np.random.default_rng(2))
    counts = np.array([100, 0, 50])
    tot = np.zeros(3)
    reps = 2000
    for _ in range(reps):
        tot += env.pull_counts(counts).constraint_sums[:, 0]
    avg = tot / reps
    assert np.all(np.abs(avg - counts * means[:, 0]) <= 4 * np.sqrt(counts * 1.0 / reps) + 1e-12)
    assert env.n_samples == reps * 150


def test_take_variates_matches_pull_stream():
    means = np.array([[0.1], [0.7]])
    a = ArmEnvironment(means, None, GaussianNoise(1.0), np.random.default_rng(3))
    b = ArmEnvironment(means, None, GaussianNoise(1.0), np.random.default_rng(3))
    arms = np.arange(10000) % 2
    ys = np.array([a.pull(int(i)).constraints[0] for i in arms])
    z = b.take_variates(10000)[:, 0]
    np.testing.assert_allclose(ys, means[arms, 0] + z)


@pytest.mark.parametrize("noise", [GaussianNoise(1.0), BinaryNoise()])
@pytest.mark.parametrize("first", [0, 10, 300])
def test_variates_and_batch_sums_read_rng_in_whole_blocks(noise, first):
    """The first block is drawn in two parts (FIRST_PART rows, then the rest); the rows and the batch
    sums are those of whole blocks of BLOCK rows drawn before any batch draw that follows them."""
    from safebandits.problems.environment import BLOCK, FIRST_PART

    means = np.array([[0.1, 0.2], [0.7, -0.3]])
    counts = np.array([3, 5])
    ref = np.random.default_rng(8)
    draw = ref.standard_normal if noise.variate == "normal" else ref.random
    block1 = draw((BLOCK, 2)) if first else None
    sums = noise.sample_sums(means, counts, ref)
    rows = np.vstack([block1[first:], draw((BLOCK, 2))]) if first else draw((BLOCK, 2))
    env = ArmEnvironment(means, None, noise, np.random.default_rng(8))
    if first:
        np.testing.assert_array_equal(env.take_variates(first), block1[:first])
        assert (first < FIRST_PART) == (env._owed > 0)
    np.testing.assert_array_equal(env.pull_counts(counts).constraint_sums, sums)
    np.testing.assert_array_equal(env.take_variates(BLOCK + 7)[:BLOCK], rows[:BLOCK])
    whole = ArmEnvironment(means, None, noise, np.random.default_rng(8))
    np.testing.assert_array_equal(
        np.vstack([whole.take_variates(k) for k in (1, FIRST_PART, 5, BLOCK)]),
        np.random.default_rng(8).standard_normal((2 * BLOCK, 2))[: FIRST_PART + BLOCK + 6]
        if noise.variate == "normal"
        else np.random.default_rng(8).random((2 * BLOCK, 2))[: FIRST_PART + BLOCK + 6],
    )


def test_reward_and_constraints_and_play():
    env = ArmEnvironment(
        np.array([[0.0, 1.0]]), np.array([2.0]), GaussianNoise(0.0), np.random.default_rng(4)
    )
    obs = env.play(Decision(arm=0))
    assert obs.reward == 2.0 and np.allclose(obs.constraints, [0.0, 1.0])
    with pytest.raises(ConfigError):
        env.play(Decision(arm=3))
    with pytest.raises(ConfigError):
        env.pull_counts(np.array([-1]))


@pytest.mark.parametrize("noise", [GaussianNoise(0.7), BinaryNoise()])
def test_scalar_and_array_observation_rules_agree(noise):
    means = np.array([[0.3], [-0.8]])
    a = ArmEnvironment(means, None, noise, np.random.default_rng(9))
    b = ArmEnvironment(means, None, noise, np.random.default_rng(9))
    arms = np.arange(5000) % 2
    ys = np.array([a.pull(int(i)).constraints[0] for i in arms])
    np.testing.assert_array_equal(ys, noise.observe(means[arms, 0], b.take_variates(5000)[:, 0]))
