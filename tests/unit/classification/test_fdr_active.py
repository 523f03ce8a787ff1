from __future__ import annotations

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.algorithms.classification.fdr_active import ActiveFDRConfig
from safebandits.classification import half_circle_pool
from safebandits.classification.problem import PoolInstance, run_classification
from safebandits.exceptions import ConfigError, ProtocolError


def _instance(seed=0, n=400, noise=0.05):
    return PoolInstance(half_circle_pool(np.random.default_rng(seed), n_points=n, label_noise=noise), 0.15)


def test_designs_sum_to_one_and_live_where_classifiers_say_positive_or_disagree():
    inst = _instance(noise=0.0)
    learner = make_learner("fdr-active", inst.public_info(), np.random.default_rng(1), {"n_initial": 100})
    env = inst.environment(np.random.default_rng(2))
    d = learner.ask()
    learner.tell(d, env.play(d))
    z = learner.perturbed_classifiers()
    assert z.shape == (10, 400) and set(np.unique(z)) <= {0.0, 1.0}
    assert z.any()  # (if every classifier predicted no positive, both designs would be uniform)
    safe, diff = learner.designs(z)
    for lam in (safe, diff):
        assert lam.sum() == pytest.approx(1.0) and np.all(lam >= 0)
    assert np.all(safe[~z.any(axis=0)] == 0.0)
    disagree = (z != z[0]).any(axis=0)
    if disagree.any():
        assert np.all(diff[~disagree] == 0.0)


def test_protocol_batches_and_budget():
    inst = _instance()
    for name in ("fdr-active", "fdr-passive"):
        learner = make_learner(name, inst.public_info(), np.random.default_rng(0), {"batch_size": 7})
        with pytest.raises(ProtocolError):
            learner.tell(None, None)
        env = inst.environment(np.random.default_rng(0))
        out = run_classification(learner, env, inst, budget=120)
        assert out.curves["labels"][:3] == [50.0, 57.0, 64.0]
        assert out.labels == 50 + 7 * 10 and learner.labelled.sum() == out.labels  # no point twice
        assert set(out.final) == {"accuracy", "fdr", "precision", "recall"}


def test_same_key_same_trajectory():
    inst = _instance()
    runs = []
    for _ in range(2):
        learner = make_learner("fdr-active", inst.public_info(), np.random.default_rng(5))
        runs.append(run_classification(learner, inst.environment(np.random.default_rng(6)), inst, budget=90))
    assert runs[0].curves == runs[1].curves


def test_final_classifier_meets_fdr_on_its_labels():
    inst = _instance(noise=0.1)
    learner = make_learner("fdr-active", inst.public_info(), np.random.default_rng(3))
    run_classification(learner, inst.environment(np.random.default_rng(4)), inst, budget=110)
    _, y = learner.training_data()
    z_train = learner.predict()[np.flatnonzero(learner.labelled)]
    assert z_train.sum() > 0
    assert np.sum(z_train * (1 - y)) / z_train.sum() <= inst.q + 1e-12


def test_config_validation():
    with pytest.raises(ValueError, match="n_classifiers"):
        ActiveFDRConfig(n_classifiers=1)
    with pytest.raises(ValueError, match="batch_size"):
        ActiveFDRConfig(batch_size=0)


@pytest.mark.parametrize("name", ["fdr-active", "fdr-passive"])
def test_refused_labels_change_nothing(name):
    # Pool labels are Bernoulli: per-point sums are integers in [0, count]; counts are the query's.
    inst = _instance(n=60)
    learner = make_learner(name, inst.public_info(), np.random.default_rng(0), {"batch_size": 7})
    env = inst.environment(np.random.default_rng(0))
    d = learner.ask()
    obs = env.play(d)
    pulled = int(np.flatnonzero(d.counts)[0])
    for sums, error in [(0.5, ConfigError), (2.0, ConfigError), (np.nan, ConfigError), (-1.0, ConfigError)]:
        bad = obs.constraint_sums.copy()
        bad[pulled, 0] = sums
        with pytest.raises(error, match="sum"):
            learner.tell(d, obs._replace(constraint_sums=bad))
    with pytest.raises(ConfigError, match="counts"):
        learner.tell(d, obs._replace(counts=obs.counts + 1))
    with pytest.raises(TypeError):
        learner.tell(d, obs._replace(constraint_sums=obs.constraint_sums.astype(str)))
    assert learner.n_samples == 0 and learner._pending is d and not learner.labelled.any()
    learner.tell(d, obs)
    assert learner.n_samples == int(d.counts.sum()) == int(learner.labelled.sum())
