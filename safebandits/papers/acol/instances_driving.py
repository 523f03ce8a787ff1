"""The driving instances of Lindner et al. (ICML 2022), Section 4.3: ``acol/driving``."""

from __future__ import annotations

import functools
from typing import Literal, get_args

import numpy as np

from safebandits._validation import check_choice, check_int
from safebandits.papers.acol.simulator.bandit import Normalisation, driving_instance
from safebandits.papers.acol.simulator.candidates import candidate_set, load_released_candidates
from safebandits.papers.acol.simulator.dynamics import (
    DrivingConfig,
    FeatureConstants,
    ScenarioName,
    get_scenario,
)
from safebandits.papers.acol.simulator.features import policy_features
from safebandits.papers.acol.simulator.solve import DrivingTask
from safebandits.problems.linear import LinearCBAIInstance
from safebandits.problems.registry import QueryView, register_instance

__all__ = ["CANDIDATE_SOURCES", "candidate_features", "candidate_policies", "driving", "driving_task"]

CandidateSource = Literal["generated", "released", "released-distinct"]
CANDIDATE_SOURCES: tuple[str, ...] = get_args(CandidateSource)


@functools.lru_cache(maxsize=8)
def candidate_policies(
    candidates: str, n_candidates: int, candidate_seed: int, features: str, data_dir: str | None
) -> np.ndarray:
    """The candidate set (cached in the process; generated sets also on disk)."""
    if candidates == "generated":
        return candidate_set(n_candidates, candidate_seed, env=DrivingConfig.preset(features))
    pols = load_released_candidates(data_dir)
    if candidates == "released-distinct":
        _, first = np.unique(pols.reshape(pols.shape[0], -1), axis=0, return_index=True)
        pols = pols[np.sort(first)]
    return pols


@functools.lru_cache(maxsize=32)
def candidate_features(
    scenario: str,
    candidates: str,
    n_candidates: int,
    candidate_seed: int,
    features: str,
    data_dir: str | None,
) -> np.ndarray:
    """Features (n, 9) of a candidate set in a scenario (cached in the process)."""
    pols = candidate_policies(candidates, n_candidates, candidate_seed, features, data_dir)
    out = policy_features(pols, get_scenario(scenario), DrivingConfig.preset(features))
    out.setflags(write=False)
    return out


#: A driving query as a person answers it (Sec. 4.3: "is this behaviour acceptable?").
DRIVING_VIEW = QueryView(
    "picture",
    draw="safebandits.papers.acol.figures:draw_query",
    caption=(
        "The arm is a candidate policy: the orange car is the one it drives; the white cars are the "
        "others on the road, fading towards the start."
    ),
    question="Is this driving behaviour acceptable?",
    aliases=("driving",),  # (the view name studies stored before the views were the instances' own)
)


@register_instance("acol/driving", view=DRIVING_VIEW)
def driving(
    *,
    scenario: ScenarioName = "base",
    candidates: CandidateSource = "generated",
    n_candidates: int = 100,
    candidate_seed: int = 0,
    features: FeatureConstants = "paper",
    normalise: Normalisation = "in-place",
    noise: str = "binary",
    sigma: float = 0.05,
    data_dir: str | None = None,
) -> LinearCBAIInstance:
    """Driving: arms = features of candidate policies (d = 9), binary feedback (Sec. 4.3, App. C).

    ``scenario``: "base", "different-reward" or "different-environment". ``candidates``: "generated"
    (``n_candidates`` policies, authors' recipe, seed ``candidate_seed``, cached on disk), "released"
    (the authors' 1000 policies; ``data_dir`` or ``$SAFEBANDITS_DATA``) or "released-distinct" (its 20
    distinct policies). ``features``: "paper" or "code" constants (the released set was made with
    "code"). ``normalise``: "in-place" (default: App. C.2 normalises every policy's features and the
    authors' code rescales them in place, rewards included), "constraint" (the constraint features only,
    rewards of the raw features: ours) or "none".
    """
    check_choice(scenario, "scenario", ScenarioName, owner="acol/driving")
    check_choice(candidates, "candidates", CandidateSource, owner="acol/driving")
    check_choice(features, "features", FeatureConstants, owner="acol/driving")
    check_choice(normalise, "normalise", Normalisation, owner="acol/driving")
    n = check_int(n_candidates, "n_candidates", low=1, owner="acol/driving")
    seed = check_int(candidate_seed, "candidate_seed", low=0, owner="acol/driving")
    key = (candidates, n, seed, features, None if data_dir is None else str(data_dir))
    pols = candidate_policies(*key)
    feats = candidate_features(scenario, *key)
    return driving_instance(
        pols,
        get_scenario(scenario),
        env=DrivingConfig.preset(features),
        normalise=normalise,
        noise=noise,
        sigma=sigma,
        features=feats,
    )


@register_instance("driving/task")
def driving_task(
    *, scenario: str = "base", objective: str = "penalised", penalty: float = 0.0, features: str = "paper"
) -> DrivingTask:
    """Driving optimisation problem for solver runs: penalised (lambda) or constrained CEM (Figure 4)."""
    return DrivingTask(scenario=scenario, objective=objective, penalty=penalty, features=features)
