"""A study on a conservative declaration (issue 44): stored, reloaded, and the reloaded study asks what the
uninterrupted learner would."""

from __future__ import annotations

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.problems.declare import ConservativeProblem
from safebandits.study import create_study, load_study
from safebandits.types import Observation


def test_conservative_study_reloads(tmp_path):
    problem = ConservativeProblem(n_arms=3, alpha=0.1, default_mean=0.5, horizon=100)
    storage = f"sqlite:///{tmp_path}/s.db"
    study = create_study("cons", "conservative-ucb", problem, storage=storage, seed=0)
    twin = make_learner("conservative-ucb", problem, np.random.default_rng(0))
    for _ in range(25):
        q = study.ask()
        d = twin.ask()
        assert q.decision.arm == d.arm
        obs = Observation(reward=0.5 if d.arm == 0 else 0.6, constraints=np.zeros(0))
        study.tell(q.id, obs)
        twin.tell(d, obs)
    again = load_study("cons", storage=storage)
    assert again.ask().decision.arm == twin.ask().arm
    assert again.declaration == problem
