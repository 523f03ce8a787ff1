"""OPB's ``bound="kl"`` option: KL (Chernoff) cost indices on outcomes in [0, 1] (issue 45, item 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.algorithms.base import keyed_config
from safebandits.algorithms.regret.opb import OPBConfig
from safebandits.estimators.bounded import kl_upper, upper_bound
from safebandits.exceptions import ConfigError
from safebandits.experiments.regret_loop import run_regret
from tests.unit.algorithms.test_opb import k_armed, play_ask_tell


def test_kl_cost_indices_are_the_kl_bound_and_never_above_the_papers():
    inst = k_armed([0.15, 0.3, 0.45, 0.55, 0.6], [0.05, 0.1, 0.2, 0.35, 0.55], 0.3, T=2000)
    info = inst.public_info()
    a = make_learner("opb", info, np.random.default_rng(1), {"bound": "kl"})
    b = make_learner("opb", info, np.random.default_rng(1))
    env = inst.environment(np.random.default_rng(2))
    play_ask_tell(a, env, 400)
    for name in ("_counts", "_reward_sums", "_cost_sums"):  # (b reads a's data: one set of statistics)
        getattr(b, name)[...] = getattr(a, name)
    ur_a, uc_a = a.indices()
    ur_b, uc_b = b.indices()
    np.testing.assert_array_equal(ur_a, ur_b)  # (the reward indices keep beta_a)
    n = a.counts.astype(float)
    pulled = (n > 0) & (np.arange(5) != 0)  # (the safe arm's cost is known)
    c_hat = a._cost_sums[pulled, 0] / n[pulled]
    level = math.log(1 / a.delta_prime)
    np.testing.assert_allclose(uc_a[pulled, 0], np.minimum(kl_upper(c_hat, n[pulled], level), 1.0))
    assert np.all(uc_a <= uc_b + 1e-12) and np.any(uc_a < uc_b - 0.01)
    est = a.arm_estimates()
    assert est is not None


def test_mixture_cost_indices_are_the_mixture_bound():
    inst = k_armed([0.15, 0.3, 0.45], [0.05, 0.1, 0.2], 0.3, T=1000)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(1), {"bound": "beta-mixture"})
    learner._counts[1:], learner._cost_sums[1:, 0] = (40, 200), (2.0, 20.0)
    _, uc = learner.indices()
    delta = 0.05 / (4 * 3 * 1000) * 1000  # (the union over counts' budget for one arm: T delta')
    expected = upper_bound("beta-mixture", np.array([2.0, 20.0]), np.array([40, 200]), delta)
    np.testing.assert_allclose(uc[1:, 0], expected, rtol=1e-12)
    assert uc[2, 0] < 0.1 + math.sqrt(2 * math.log(1 / learner.delta_prime) / 200)  # (the paper's index)


@pytest.mark.parametrize("bound", ["kl", "beta-mixture"])
def test_simulate_equals_ask_tell_bit_for_bit(bound):
    inst = k_armed([0.15, 0.3, 0.45, 0.55, 0.6], [0.05, 0.1, 0.2, 0.35, 0.55], 0.3, T=2000)
    info = inst.public_info()
    a = make_learner("opb", info, np.random.default_rng(7), {"bound": bound})
    b = make_learner("opb", info, np.random.default_rng(7), {"bound": bound})
    env_a, env_b = inst.environment(np.random.default_rng(8)), inst.environment(np.random.default_rng(8))
    _, probs_a = play_ask_tell(a, env_a, 1500)
    blocks = [b.simulate(env_b, 500), b.simulate(env_b, 1000)]
    np.testing.assert_array_equal(np.vstack([blk.probs for blk in blocks]), probs_a)
    assert a.diagnostics() == b.diagnostics()


def test_kl_keeps_the_expected_cost_promise_and_lowers_regret():
    """Fixed seeds: every policy's expected cost within the limit, with less regret than the paper's index."""
    inst = k_armed([0.15, 0.3, 0.45, 0.55, 0.6], [0.05, 0.1, 0.2, 0.35, 0.55], 0.3, T=2000)
    info = inst.public_info()
    regret = {}
    for bound in ("sub-gaussian", "kl", "beta-mixture"):
        total = []
        for s in range(6):
            learner = make_learner("opb", info, np.random.default_rng(s), {"bound": bound})
            out = run_regret(learner, inst.environment(np.random.default_rng(100 + s)), inst)
            assert out.policy_violations == 0
            total.append(out.policy_regret)
        regret[bound] = float(np.mean(total))
    assert regret["beta-mixture"] < regret["kl"] < 0.95 * regret["sub-gaussian"]


def test_kl_refuses_outcomes_outside_the_unit_interval():
    inst = k_armed([0.1, 0.5], [0.1, 0.6], 0.4, noise="gaussian", sigma=0.3)
    with pytest.raises(ConfigError, match="bound='kl'"):
        make_learner("opb", inst.public_info(), np.random.default_rng(0), {"bound": "kl"})
    with pytest.raises(ConfigError, match="bound"):
        make_learner("opb", inst.public_info(), np.random.default_rng(0), {"bound": "clopper"})


def test_the_bound_option_keeps_the_stored_runs_keys():
    # Issue 45 added ``bound`` after the archived runs: at the paper's bound the field is left out of an
    # experiment run's config and hash (LearnerConfig.unkeyed), so stored OPB runs keep their keys; any
    # other bound is in the key.
    from safebandits.experiments.spec import expand, get_experiment

    spec = get_experiment("opb-random")
    task = next(t for t in expand(spec, "quick") if t.algorithm == "opb")
    assert "bound" not in task.algorithm_params
    assert "algorithm.bound" not in task.config()
    keyed = keyed_config(OPBConfig(bound="kl"))
    assert keyed["bound"] == "kl"
    assert "bound" not in keyed_config(OPBConfig(bound="sub-gaussian"))
    assert keyed_config(OPBConfig())["bound"] == "auto"  # (the default since issue 45: paper specs state it)
