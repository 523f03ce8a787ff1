"""SafeOpt's ``variant="berkenkamp"`` against the recorded trajectories of the reference package
``safeopt`` 0.16 (``benchmarks/record_safeopt.py``, run once in its own venv; issue 40): the same arm in
every round, and the same sizes of the safe set, the maximisers and the expanders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.algorithms.regret.safeopt import SafeOptConfig
from safebandits.estimators.gp import se_kernel
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
