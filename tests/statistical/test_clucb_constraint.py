"""The conservative constraint under the truth for contextual linear bandits (issue 44): CLUCB keeps
``sum_{s<=t} r_{a_s} >= (1 - alpha) sum_{s<=t} r_{b_s}`` in every round of every seeded replicate, the
baseline a policy (an action per context); LinUCB, unconstrained, breaks it where it must (a
near-optimal production scorer and a small alpha: its early exploration costs more than alpha of the
baseline's reward), so the check can fail."""

from __future__ import annotations

import numpy as np
import pytest

from safebandits.algorithms.registry import make_learner
from safebandits.experiments.conservative_linear import run_conservative_linear
from safebandits.problems.declare import ConservativeLinearProblem

REPLICATES = 12
HORIZON = 1500
THETA = [0.5, 0.8, 0.2, 0.9]

#: (declaration, truth): a fixed production action (an average action: the baseline is weak), and a
#: production scorer close to theta* with a small alpha (the baseline is strong: exploring costs margin).
PROBLEMS = {
    "fixed-action": dict(dim=4, n_actions=10, alpha=0.1, baseline_action=0),
    "strong-scorer": dict(dim=4, n_actions=10, alpha=0.05, baseline_param=[0.8, 0.8, 0.2, 0.9]),
    "checkpoint": dict(dim=4, n_actions=6, alpha=0.02, baseline_param=[0.5, 0.8, 0.2, 0.8], checkpoint=10),
}


def outcome(name: str, problem: str, seed: int):
    decl = ConservativeLinearProblem(
        **PROBLEMS[problem], feedback={"kind": "gaussian", "sigma": 0.1}, param_bound=1.5, horizon=HORIZON
    )
    sim = decl.simulate(theta=THETA)
    inst = sim.instance("conservative-linear")
    learner = make_learner(name, decl, np.random.default_rng(seed))
    return run_conservative_linear(learner, inst, np.random.default_rng(10_000 + seed))


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_clucb_never_violates(problem):
    runs = [outcome("clucb", problem, seed) for seed in range(REPLICATES)]
    assert [r.conservative["violations"] for r in runs] == [0] * REPLICATES
    assert all(r.conservative["min_margin"] >= 0.0 for r in runs)


def test_linucb_violates_where_it_must():
    # (seed 0..11: 31-42 violating checkpoints each; with alpha = 0.05 on "strong-scorer", 10 of 12 runs)
    runs = [outcome("linucb", "checkpoint", seed) for seed in range(REPLICATES)]
    counts = [r.conservative["violations"] for r in runs]
    assert min(counts) > 0, counts


def test_clucb_learns_beyond_the_baseline():
    # (not only safe by never leaving the baseline: it plays the optimistic action most rounds and its
    # regret is below the baseline policy's)
    r = outcome("clucb", "fixed-action", 0)
    assert r.reward > r.baseline_reward


@pytest.mark.parametrize("problem", ["strong-scorer", "checkpoint"])
def test_clucb_budget_is_a_lower_bound_of_the_true_margin(problem):
    # (the certificate's xi_t, step 4, against the margin under the truth after the round it certified)
    decl = ConservativeLinearProblem(
        **PROBLEMS[problem], feedback={"kind": "gaussian", "sigma": 0.1}, param_bound=1.5, horizon=600
    )
    inst = decl.simulate(theta=THETA).instance("conservative-linear")
    alpha = PROBLEMS[problem]["alpha"]
    for seed in range(4):
        learner = make_learner("clucb", decl, np.random.default_rng(seed))
        env, margin, checked = inst.environment(np.random.default_rng(seed)), 0.0, 0
        for _ in range(600):
            d = learner.ask(env.context())
            cert = learner.certificate()
            learner.tell(d, env.play(d))
            played, base, _ = env.last
            margin += played - (1.0 - alpha) * base
            if cert.kind == "upper-bound":
                assert learner.budget <= margin + 1e-9
                checked += 1
        assert checked > 0  # (alpha = 0.02: a dozen optimistic rounds in 600; alpha = 0.05: hundreds)
