"""SafeOpt's ``variant="berkenkamp"`` against the recorded trajectories of the reference package
``safeopt`` 0.16 (``benchmarks/record_safeopt.py``, run once in its own venv; issue 40): the same arm in
every round, and the same sizes of the safe set, the maximisers and the expanders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.safeopt import SafeOptConfig
from safebandits.estimators.gp import batch_posterior, se_kernel
from safebandits.exceptions import ConfigError
from safebandits.problems.kernel import KernelInfo
from safebandits.types import Observation

DATA = Path(__file__).resolve().parents[2] / "data" / "safeopt_reference" / "trajectories.npz"
RECORD = np.load(DATA, allow_pickle=False)
META = json.loads(str(RECORD["meta"]))


def recorded(k: int) -> dict[str, np.ndarray]:
    return {key: RECORD[f"r{k}_{key}"] for key in ("points", "params", "arms", "obs", "sets")}


def learner_for(run: dict[str, np.ndarray], **options):
    pts, arms = run["points"], run["arms"]
    ls_f, var_f, ls_g, var_g, lam, beta = (float(v) for v in run["params"])
    info = KernelInfo(
        kernel=se_kernel(pts, lengthscale=ls_f, variance=var_f),
        constraint_kernel=se_kernel(pts, lengthscale=ls_g, variance=var_g),
        points=pts, reward_bound=1.0, constraint_bound=1.0, noise_bound=float(np.sqrt(lam)),
        constraint_noise_bound=float(np.sqrt(lam)), slater=0.1, horizon=len(arms),
        safe_seed=(int(arms[0]),),
    )  # fmt: skip
    cfg = {"variant": "berkenkamp", "confidence": "constant", "constant_beta": beta, "gp_noise": lam}
    return make_learner("safeopt", info, np.random.default_rng(0), {**cfg, **options})


def test_the_recording_covers_both_dimensions():
    dims = [RECORD[f"r{k}_points"].shape[1] for k in range(META["runs"])]
    assert META["runs"] >= 10 and dims.count(1) >= 5 and dims.count(2) >= 5
    assert META["package"].startswith("safeopt") and META["beta"] == 2.0


@pytest.mark.parametrize("posterior", ["auto", "lowrank"])
@pytest.mark.parametrize("k", range(META["runs"]))
def test_reproduces_the_reference_round_for_round(k, posterior):
    run = recorded(k)
    learner = learner_for(run, posterior=posterior)
    arms, obs, sets = run["arms"], run["obs"], run["sets"]
    for t in range(len(arms)):
        if t:  # (round 0 plays the seed: the package is handed its observation before it starts)
            want = tuple(int(v) for v in sets[t - 1])
            got = (int(learner.safe.sum()), int(learner.maximisers().sum()), int(learner.expanders().sum()))
            assert got == want, f"run {k}, round {t}: |S|, |M|, |G| {got}, the package's {want}"
        d = learner.ask()
        assert int(d.arm) == int(arms[t]), f"run {k}, round {t}: played {d.arm}, the package {arms[t]}"
        learner.tell(d, Observation(reward=float(obs[t, 0]), constraints=np.array([obs[t, 1]])))


def test_the_variant_is_an_option_and_sui_stays_the_default():
    assert SafeOptConfig().variant == "sui"
    with pytest.raises(ConfigError, match="variant"):
        SafeOptConfig(variant="reference")


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), lengthscale=st.floats(0.1, 0.4), beta=st.floats(0.5, 3.0))
def test_berkenkamp_sets_follow_their_definitions(seed, lengthscale, beta):
    """On random 1-D problems, every round: ``S_t = {u_t < 0}`` (or the seed), the choice in ``M_t u G_t``,
    and the expander passes the fictitious-observation test computed from scratch (the batch posterior
    with the observation added) while no wider candidate does."""
    rng = np.random.default_rng(seed)
    n = 25
    pts = np.sort(rng.uniform(0.0, 1.0, n))[:, None]
    kern = se_kernel(pts, lengthscale=lengthscale)
    f = np.linalg.cholesky(kern + 1e-9 * np.eye(n)) @ rng.standard_normal(n)
    g = np.linalg.cholesky(kern + 1e-9 * np.eye(n)) @ rng.standard_normal(n)
    s0 = int(rng.integers(n))
    g = g - g[s0] - 0.5
    lam = 0.01
    info = KernelInfo(
        kernel=kern, constraint_kernel=kern, points=pts, reward_bound=1.0, constraint_bound=1.0,
        noise_bound=0.1, constraint_noise_bound=0.1, slater=0.1, horizon=12, safe_seed=(s0,),
    )  # fmt: skip
    cfg = {"variant": "berkenkamp", "confidence": "constant", "constant_beta": beta, "gp_noise": lam}
    learner = make_learner("safeopt", info, np.random.default_rng(0), cfg)
    for _ in range(12):
        up = learner.gp_g.mean + beta * learner.gp_g.std()
        want = up < 0.0
        if not want.any():
            want[s0] = True
        np.testing.assert_array_equal(learner.safe, want)
        m, e = learner.maximisers(), learner.expanders()
        assert not np.any((m | e) & ~learner.safe) and e.sum() <= 1
        unsafe = ~learner.safe
        wf, wg = learner.f_upper - learner.f_lower, learner.g_upper - learner.g_lower
        cand = learner.safe & ~m & (np.maximum(wf, wg) > np.max(wf[m])) & unsafe.any()
        passed = []
        for x in np.flatnonzero(cand):
            counts, sums = learner.gp_g.counts.copy(), learner.gp_g.sums.copy()
            counts[x] += 1
            sums[x] += learner.g_lower[x]
            mean, cov = batch_posterior(kern, lam, counts, sums)
            up2 = mean + beta * np.sqrt(np.maximum(np.diagonal(cov), 0.0))
            passed.append((np.maximum(wf, wg)[x], x, bool(np.any(up2[unsafe] <= 0.0))))
        hits = [(w, x) for w, x, ok in passed if ok]
        if e.any():
            assert hits, "the learner's expander fails the test computed from scratch"
            chosen = int(np.flatnonzero(e)[0])
            assert max(w for w, x, ok in passed if x == chosen) >= max(w for w, _ in hits) - 1e-9
        else:
            assert not hits
        d = learner.ask()
        assert (m | e)[int(d.arm)]
        i = int(d.arm)
        learner.tell(d, Observation(reward=f[i] + 0.1 * rng.standard_normal(),
                                    constraints=np.array([g[i] + 0.1 * rng.standard_normal()])))  # fmt: skip


def test_berkenkamp_plays_the_seed_when_nothing_is_certified():
    run = recorded(0)
    learner = learner_for(run)
    seed = int(run["arms"][0])
    assert np.flatnonzero(learner.safe).tolist() == [seed]  # the prior certifies nothing: the told seed
    assert int(learner.ask().arm) == seed
