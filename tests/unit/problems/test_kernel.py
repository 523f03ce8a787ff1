"""Kernelized constrained bandit instances: oracles, LP policy vs brute force, feedback, data loaders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from safebandits.estimators.gp import se_kernel
from safebandits.exceptions import ConfigError, InfeasibleInstanceError
from safebandits.problems import make_instance
from safebandits.problems.kernel import (
    DATA_ENV,
    DataNotFoundError,
    EmpiricalFeedback,
    GaussianFeedback,
    KernelInstance,
    load_finance,
    load_light_sensors,
)
from safebandits.types import Decision


def _shared_data() -> Path:
    """``../shared/data`` next to the repository (a clone in /work/NAME or a worktree in /work/wt/NAME)."""
    here = Path(__file__).resolve()
    for cand in (here.parents[3] / ".." / "shared" / "data", here.parents[4] / ".." / "shared" / "data"):
        if (cand / "light_sensors").is_dir():
            return cand
    return Path("/work/shared/data")


DATA = _shared_data()
needs_data = pytest.mark.skipif(
    not (DATA / "light_sensors").is_dir() or not (DATA / "finance").is_dir(),
    reason=f"shared data not found at {DATA} (light_sensors/, finance/)",
)


def _small(seed: int, n: int = 8) -> KernelInstance:
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 1, n)
    g = rng.uniform(-1, 1, n)
    g[rng.integers(n)] = -0.5  # Slater
    return KernelInstance(reward=rng.uniform(-1, 1, n), constraint=g, kernel=se_kernel(x, lengthscale=0.3))


def _brute_policy_value(f, g):
    """Best value over the LP's vertices: feasible points, and pairs mixed to E g = 0."""
    best = max(f[i] for i in range(len(f)) if g[i] <= 0)
    for i in np.flatnonzero(g < 0):
        for j in np.flatnonzero(g > 0):
            w = -g[i] / (g[j] - g[i])
            best = max(best, (1 - w) * f[i] + w * f[j])
    return best


@pytest.mark.parametrize("seed", range(8))
def test_oracles_against_brute_force(seed):
    inst = _small(seed)
    f, g = inst.reward, inst.constraint
    x = inst.optimal_arm
    assert g[x] <= 0 and np.all(f[g <= 0] <= f[x])
    pi = inst.optimal_policy
    assert pi.sum() == pytest.approx(1.0) and np.all(pi >= 0)
    assert pi @ g <= 1e-9
    assert inst.optimal_policy_value == pytest.approx(_brute_policy_value(f, g), abs=1e-9)
    assert inst.optimal_policy_value >= inst.optimal_value - 1e-12
    assert np.count_nonzero(pi > 1e-9) <= 2
    assert inst.slater_constant == pytest.approx(-g.min())
    assert inst.slater_policy @ g == pytest.approx(-inst.slater_constant)


def test_synthetic_instance():
    a = make_instance("ckb/synthetic", np.random.default_rng(0))
    b = make_instance("ckb/synthetic", np.random.default_rng(0))
    np.testing.assert_array_equal(a.reward, b.reward)
    assert a.n_points == 100 and a.kernel.shape == (100, 100)
    assert np.max(np.abs(a.reward)) == pytest.approx(1.0) and np.max(np.abs(a.constraint)) == pytest.approx(
        1.0
    )
    assert a.slater_constant >= 0.1
    info = a.public_info()
    # default bound="rkhs" (issue 17): B is the draw's RKHS norm, ||f||_k >= sup |f| = 1 when k(x, x) = 1
    assert info.reward_bound >= 1.0 - 1e-9 and info.slater == pytest.approx(min(1.0, a.slater_constant))
    assert info.safe_seed == (int(np.argmin(a.constraint)),)
    np.testing.assert_allclose(a.arms, np.eye(100))
    sup = make_instance("ckb/synthetic", np.random.default_rng(0), bound="sup").public_info()
    assert sup.reward_bound == pytest.approx(1.0) and info.reward_bound > sup.reward_bound
    c = make_instance("ckb/synthetic", np.random.default_rng(1))
    assert not np.allclose(a.reward, c.reward)


def test_synthetic_fixed_draw_ignores_the_trial_generator():
    a = make_instance("ckb/synthetic", np.random.default_rng(0), redraw=False, draw_seed=3)
    b = make_instance("ckb/synthetic", np.random.default_rng(1), redraw=False, draw_seed=3)
    c = make_instance("ckb/synthetic", np.random.default_rng(0), redraw=False, draw_seed=4)
    np.testing.assert_array_equal(a.reward, b.reward)
    np.testing.assert_array_equal(a.constraint, b.constraint)
    assert not np.allclose(a.constraint, c.constraint)
    with pytest.raises(ConfigError, match="redraw"):
        make_instance("ckb/synthetic", np.random.default_rng(0), redraw="no")


def test_validation():
    k = se_kernel(np.linspace(0, 1, 3), lengthscale=0.3)
    with pytest.raises(InfeasibleInstanceError):
        KernelInstance(reward=np.zeros(3), constraint=np.ones(3), kernel=k)
    with pytest.raises(InfeasibleInstanceError, match="Slater"):
        KernelInstance(reward=np.zeros(3), constraint=np.array([0.0, 1.0, 1.0]), kernel=k)
    with pytest.raises(ConfigError, match="kernel"):
        KernelInstance(reward=np.zeros(3), constraint=-np.ones(3), kernel=np.eye(2))
    with pytest.raises(ConfigError, match="seed_rule"):
        KernelInstance(reward=np.zeros(3), constraint=-np.ones(3), kernel=k, seed_rule="x")


def test_gaussian_feedback_in_mean():
    inst = KernelInstance(
        reward=np.array([0.3, -0.2]),
        constraint=np.array([-0.1, 0.4]),
        kernel=np.eye(2),
        feedback=GaussianFeedback(sigma=0.5, constraint_sigma=0.2),
    )
    env = inst.environment(np.random.default_rng(0))
    obs = [env.play(Decision(arm=1)) for _ in range(4000)]
    r = np.array([o.reward for o in obs])
    c = np.array([o.constraints[0] for o in obs])
    assert abs(r.mean() + 0.2) < 4 * 0.5 / np.sqrt(4000) and abs(c.mean() - 0.4) < 4 * 0.2 / np.sqrt(4000)
    assert r.std() == pytest.approx(0.5, rel=0.05) and c.std() == pytest.approx(0.2, rel=0.05)
    assert abs(np.corrcoef(r, c)[0, 1]) < 0.1  # independent noises
    assert env.n_samples == 4000
    with pytest.raises(ConfigError):
        env.play(Decision(arm=2))


def test_empirical_feedback_is_coupled():
    samples = np.array([[1.0, 0.2], [0.6, 0.4], [0.8, 0.0]])
    f = samples.mean(axis=0)
    inst = KernelInstance(
        reward=f,
        constraint=-f + 0.5,
        kernel=np.eye(2),
        feedback=EmpiricalFeedback(samples=samples, slope=-1.0, intercept=0.5),
    )
    env = inst.environment(np.random.default_rng(1))
    seen = set()
    for _ in range(300):
        o = env.play(Decision(arm=0))
        assert o.constraints[0] == pytest.approx(-o.reward + 0.5)
        seen.add(o.reward)
    assert seen == {1.0, 0.6, 0.8}


def test_loaders_without_data(monkeypatch, tmp_path):
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.setenv("SAFEBANDITS_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(DataNotFoundError, match=DATA_ENV) as info:
        load_light_sensors()
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, ConfigError)
    with pytest.raises(DataNotFoundError, match=r"fin\.csv"):
        load_finance(tmp_path)
    with pytest.raises(DataNotFoundError, match="not found"):
        make_instance("ckb/light", data_dir=str(tmp_path / "missing"))


@needs_data
def test_light_instance_matches_the_data_facts():
    inst = make_instance("ckb/light", data_dir=str(DATA))
    raw = load_light_sensors(DATA)
    means = raw["test"].mean(axis=0)
    assert means.min() == pytest.approx(164.2292, abs=1e-3) and means.max() == pytest.approx(
        945.5417, abs=1e-3
    )
    assert inst.n_points == 41 and inst.optimal_arm == 3 and inst.optimal_value == pytest.approx(1.0)
    assert int(inst.feasible.sum()) == 19
    assert inst.constraint.min() == pytest.approx(-0.5) and inst.constraint.max() == pytest.approx(
        308.54 / 945.5417, abs=1e-4
    )
    np.testing.assert_allclose(np.diag(inst.kernel), 1.0)
    assert np.linalg.eigvalsh(inst.kernel)[0] == pytest.approx(5.7e-5, rel=0.05)
    assert inst.optimal_policy_value == pytest.approx(1.0)
    assert inst.safe_arm != inst.optimal_arm and inst.constraint[inst.safe_arm] < 0  # median seed rule


@needs_data
def test_finance_instance_matches_the_data_facts(monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(DATA))
    prices, tickers = load_finance()
    assert prices.shape == (823, 29) and tickers[2] == "BA"
    inst = make_instance("ckb/finance")
    assert inst.optimal_arm == 2 and np.linalg.eigvalsh(inst.kernel)[0] == pytest.approx(2.2e-3, rel=0.05)
    assert isinstance(inst.feedback, EmpiricalFeedback)
    env = inst.environment(np.random.default_rng(0))
    r = np.array([env.pull(2).reward for _ in range(3000)])
    sd = inst.feedback.samples[:, 2].std()
    assert abs(r.mean() - inst.reward[2]) < 4 * sd / np.sqrt(3000)


def test_an_instance_derived_by_replace_has_its_own_cache():
    import dataclasses

    inst = make_instance("ckb/synthetic", np.random.default_rng(0))
    inst.public_info()
    other = dataclasses.replace(inst, name="other")
    assert other._cache is not inst._cache and not other._cache
    assert inst.with_horizon(7).horizon == 7
