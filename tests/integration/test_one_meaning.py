"""One meaning per column and per sentence (issue 40, part 4): regret columns name their comparator,
per-round violations and violations of the in-expectation promise are separate, the largest policy cost
has one unit, guarantee texts state the problem's own numbers, and the API's create and status replies
carry every default the learner applied."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import safebandits as sb
from safebandits.algorithms.compatibility import guarantee_statement
from safebandits.problems.declare import KernelProblem

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app

LINEAR = {
    "setting": "linear",
    "arms": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "threshold": 0.5,
    "safe_arm": 0,
    "feedback": {"kind": "gaussian", "sigma": 0.5},
}
KERNEL = {
    "setting": "kernel",
    "points": [[0.0], [0.25], [0.5], [0.75], [1.0]],
    "kernel": {"name": "se", "lengthscale": 0.3},
    "reward_bound": 1.0,
    "constraint_bound": 1.0,
    "slater": 0.2,
    "safe_seed": [0],
    "horizon": 50,
}


# -- guarantee texts -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["stageopt", "sgp-ucb", "safeopt"])
def test_kernel_guarantees_state_the_problems_limit_not_a_placeholder(name):
    pts = np.linspace(0, 1, 6)[:, None]
    p = KernelProblem(points=pts, kernel={"name": "se", "lengthscale": 0.3}, reward_bound=1,
                      constraint_bound=1, slater=0.2, safe_seed=[0])  # fmt: skip
    text = guarantee_statement(p, name)
    assert "your threshold" not in text, text
    assert "g at most 0" in text and "delta = 0.05" in text, text
    bounded = KernelProblem(points=pts, kernel={"name": "se", "lengthscale": 0.3}, reward_bound=1,
                            constraint_bound=1, slater=0.2, safe_seed=[0], feedback="bernoulli",
                            constraint_shift=-0.05)  # fmt: skip
    assert "the mean outcome at most 0.05" in guarantee_statement(bounded, name)


def test_fdr_guarantee_states_q():
    p = sb.problems.declare.PoolProblem(features=np.eye(3), q=0.1) if hasattr(sb, "problems") else None
    if p is None:  # pragma: no cover
        pytest.skip("no pool declaration")
    assert "at most q = 0.1" in guarantee_statement(p, "fdr-active")


# -- the API's create and status replies -----------------------------------------------------------


def _client(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study("seq", "g-acol", inst.public_info(), storage=url, seed=1).close()  # (the database)
    return TestClient(create_app(url), base_url="http://127.0.0.1"), url


def test_api_create_and_status_carry_the_defaults_the_learner_applied(tmp_path):
    c, _ = _client(tmp_path)
    made = c.post("/api/v1/studies", json={
        "name": "eps", "algorithm": "beside", "experiment": {"problem": dict(LINEAR, epsilon=0.02)},
        "seed": 1,
    })  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["config"]["epsilon"] == pytest.approx(0.02)  # the problem's, not null
    status = c.get("/api/v1/studies/eps").json()
    assert status["config"]["epsilon"] == pytest.approx(0.02)
    made = c.post("/api/v1/studies", json={
        "name": "gp", "algorithm": "safeopt", "experiment": {"problem": KERNEL}, "seed": 1,
    })  # fmt: skip
    assert made.status_code == 201, made.text
    config = made.json()["config"]
    assert config["gp_noise"] == pytest.approx(1.0 + 2.0 / 50)  # "theory" resolved: lambda = 1 + 2/T
    assert config["horizon"] == 50
    status = c.get("/api/v1/studies/gp").json()
    assert status["config"]["gp_noise"] == pytest.approx(1.0 + 2.0 / 50)
