"""The conservative constraint under the truth (issue 44): Conservative UCB keeps ``sum_{s<=t} mu_{I_s} >=
(1 - alpha) t mu_0`` in every round of every seeded replicate; unconstrained UCB breaks it on a problem
where it must (its first round-robin pulls the poor arms while the default arm is good), so the check can
fail."""

from __future__ import annotations

import numpy as np
import pytest

from safebandits.algorithms.compatibility import instance_for
from safebandits.algorithms.registry import make_learner
from safebandits.problems.conservative import TOL, conservative_margins
from safebandits.problems.declare import ConservativeProblem

REPLICATES = 30
HORIZON = 3000

#: (declaration, truth): the paper's five arms (default 0.5, one better arm), and a default arm far
#: better than the rest, where any exploration costs margin.
PROBLEMS = {
    "paper": (dict(n_arms=5, alpha=0.1), [0.5, 0.6, 0.4, 0.4, 0.4]),
    "good-default": (dict(n_arms=4, alpha=0.1), [0.9, 0.1, 0.1, 0.1]),
    "small-alpha": (dict(n_arms=3, alpha=0.02), [0.5, 0.55, 0.3]),
}


def violating_rounds(name: str, decl: dict, means: list, known: bool, seed: int) -> int:
    problem = ConservativeProblem(**decl, default_mean=means[0] if known else None, horizon=HORIZON)
    sim = problem.simulate(means=means)
    inst = instance_for(sim, name)
    learner = make_learner(name, sim, np.random.default_rng(seed))
    block = learner.simulate(inst.environment(np.random.default_rng(10_000 + seed)), HORIZON)
    played = np.asarray(means)[np.argmax(block.points, axis=1)]
    margins = conservative_margins(played, inst.constraint)
    return int(np.sum(margins < -TOL))


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
@pytest.mark.parametrize(
    ("name", "known"),
    [("conservative-ucb", True), ("conservative-ucb", False), ("conservative-ucb-unknown-mean", True)],
)
def test_conservative_ucb_never_violates(problem, name, known):
    decl, means = PROBLEMS[problem]
    counts = [violating_rounds(name, decl, means, known, seed) for seed in range(REPLICATES)]
    assert counts == [0] * REPLICATES


def test_ucb_violates_where_it_must():
    decl, means = PROBLEMS["good-default"]
    counts = [violating_rounds("ucb", decl, means, True, seed) for seed in range(REPLICATES)]
    # round 2 plays arm 1 after arm 0: 0.9 + 0.1 < 0.9 * 2 * 0.9, whatever the noise
    assert min(counts) > 0
