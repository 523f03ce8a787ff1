"""A study on a continuous-domain (box) kernel problem: the declaration and its kernels stored exactly,
decisions carrying points of the box, and a reloaded study asking what the uninterrupted one asks."""

from __future__ import annotations

import numpy as np
import pytest

import safebandits as sb
from safebandits.estimators.gp import PointKernel
from safebandits.problems.kernel_box import Box
from safebandits.study.codec import info_from_dict, info_to_dict

PROBLEM = {
    "setting": "kernel",
    "domain": {"lower": [0.0, 0.0], "upper": [1.0, 1.0]},
    "kernel": {"name": "matern", "lengthscale": 0.3, "nu": 1.5},
    "reward_bound": 1.5,
    "constraint_bound": 1.5,
    "slater": 0.5,
    "safe_seed": [[0.1, 0.1]],
    "feedback": {"kind": "gaussian", "sigma": 0.05},
}
TRUTH = {
    "reward": {"centers": [[0.7, 0.6]], "weights": [0.9]},
    "constraint": {"centers": [[0.1, 0.1], [0.9, 0.9]], "weights": [-0.8, 0.9], "offset": -0.1},
}


def test_box_view_round_trips_through_the_codec():
    view = sb.problem_from_dict(PROBLEM).view("kernel", horizon=20)
    back = info_from_dict(info_to_dict(view))
    assert isinstance(back.box, Box) and back.box == view.box
    assert isinstance(back.kernel, PointKernel) and back.kernel.nu == 1.5 and back.kernel.kind == "matern"
    np.testing.assert_array_equal(back.kernel.points, view.kernel.points)
    np.testing.assert_array_equal(back.points, view.points)
    assert info_to_dict(back) == info_to_dict(view)


@pytest.mark.parametrize("algorithm", ["ckb-ucb", "stageopt", "sgp-ucb"])
def test_a_reloaded_box_study_asks_the_same_point(tmp_path, algorithm):
    problem = sb.problem_from_dict(PROBLEM)
    instance = problem.simulate(**TRUTH).instance("kernel")
    url = f"sqlite:///{tmp_path / 'box.db'}"
    study = sb.create_study("box", algorithm, problem, storage=url, seed=3, horizon=20)
    env = instance.environment(np.random.default_rng(0))
    for _ in range(6):
        q = study.ask()
        assert q.decision.point is not None and problem.domain.contains(q.decision.point)
        study.tell(q, env.play(q.decision))
    following = study.ask().decision.point
    again = sb.load_study("box", storage=url).ask().decision.point
    np.testing.assert_array_equal(following, again)
