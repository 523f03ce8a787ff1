"""The conservative constraint under the truth for CLUCB2, its checkpoint variant and CLUCB with the
baseline's rewards estimated (issue 44): no verified round with a negative margin in any of 30 seeded
replicates on each of three problems (a weak fixed production action, a strong production scorer with
a small alpha, and checkpoints every 10 rounds with a floor under the baseline's reward). The check can
fail: tests/unit/algorithms/test_clucb2.py (a learner told a false floor or alpha breaks it) and
test_clucb_constraint.py (LinUCB breaks it on the checkpoint problem)."""

from __future__ import annotations

import numpy as np
import pytest

from safebandits.algorithms.registry import make_learner
from safebandits.experiments.conservative_linear import run_conservative_linear
from safebandits.problems.declare import ConservativeLinearProblem

THETA = [0.5, 0.8, 0.2, 0.9]
#: (declaration, the simulated features' smallest coordinate): the checkpoint problem's floor 0.3 holds
#: (every mean is at least 0.4 sum(theta) / 2 = 0.48).
PROBLEMS = {
    "fixed-action": (dict(dim=4, n_actions=10, alpha=0.1, baseline_action=0), 0.0),
    "strong-scorer": (dict(dim=4, n_actions=10, alpha=0.05, baseline_param=[0.8, 0.8, 0.2, 0.9]), 0.0),
    "checkpoint": (
        dict(
            dim=4,
            n_actions=6,
            alpha=0.02,
            baseline_param=[0.5, 0.8, 0.2, 0.8],
            checkpoint=10,
            baseline_floor=0.3,
        ),
        0.4,
    ),
}
LEARNERS = ("clucb2", "clucb2-checkpoint", "clucb-unknown-baseline")


def outcome(name: str, problem: str, seed: int, horizon: int):
    decl, low = PROBLEMS[problem]
    known = name != "clucb-unknown-baseline"
    decl = ConservativeLinearProblem(
        **decl, known_baseline=known, feedback={"kind": "gaussian", "sigma": 0.1}, param_bound=1.5,
        horizon=horizon,
    )  # fmt: skip
    inst = decl.simulate(theta=THETA, feature_low=low).instance("conservative-linear")
    learner = make_learner(name, decl, np.random.default_rng(seed))
    return run_conservative_linear(learner, inst, np.random.default_rng(20_000 + seed))


def cases():
    for name in LEARNERS:
        for problem in PROBLEMS:
            if name == "clucb2-checkpoint" and problem != "checkpoint":
                continue  # (it needs checkpoints)
            yield name, problem


@pytest.mark.parametrize(("name", "problem"), list(cases()))
def test_no_violation_in_30_replicates(name, problem):
    runs = [outcome(name, problem, seed, 1500) for seed in range(30)]
    assert [r.conservative["violations"] for r in runs] == [0] * 30
    assert all(r.conservative["min_margin"] >= 0.0 for r in runs)
    assert np.mean([r.reward for r in runs]) > 0.0


def test_the_learners_learn_beyond_the_baseline():
    # (not safe by never leaving it: on the weak production action each earns more than the baseline)
    for name in ("clucb2", "clucb-unknown-baseline"):
        r = outcome(name, "fixed-action", 0, 1500)
        assert r.reward > r.baseline_reward, name


@pytest.mark.slow
@pytest.mark.parametrize(("name", "problem"), list(cases()))
def test_no_violation_in_100_long_replicates(name, problem):
    runs = [outcome(name, problem, seed, 6000) for seed in range(100)]
    assert [r.conservative["violations"] for r in runs] == [0] * 100


@pytest.mark.parametrize(
    ("name", "problem"), [("clucb2", "strong-scorer"), ("clucb-unknown-baseline", "strong-scorer"),
                          ("clucb2-checkpoint", "checkpoint")]
)  # fmt: skip
def test_the_certified_budget_is_a_lower_bound_of_the_true_margin(name, problem):
    # (the certificate's xi_t(a_t), less the checkpoint slack alpha r_l (t_k - t), against the margin
    # under the truth after the round it certified)
    decl, low = PROBLEMS[problem]
    decl = ConservativeLinearProblem(
        **decl, known_baseline=name != "clucb-unknown-baseline", feedback={"kind": "gaussian", "sigma": 0.1},
        param_bound=1.5, horizon=600,
    )  # fmt: skip
    inst = decl.simulate(theta=THETA, feature_low=low).instance("conservative-linear")
    alpha, tau, floor = decl.alpha, decl.checkpoint, decl.baseline_floor
    checked = 0
    for seed in range(4):
        learner = make_learner(name, decl, np.random.default_rng(seed))
        env, margin = inst.environment(np.random.default_rng(seed)), 0.0
        for t in range(1, 601):
            d = learner.ask(env.context())
            cert = learner.certificate()
            learner.tell(d, env.play(d))
            played, base, _ = env.last
            margin += played - (1.0 - alpha) * base
            if cert.kind == "upper-bound":
                slack = alpha * floor * (-(-t // tau) * tau - t) if name == "clucb2-checkpoint" else 0.0
                assert learner.budget - slack <= margin + 1e-9
                checked += 1
    assert checked > 50
